// Package inputstate signs and checks the state of an input request: the
// exact pending calls (run, sequence number, arguments hash) a client is
// asked about, with an expiry and a nonce, under an HMAC key the hub keeps
// in the keychain. A state that was altered, signed by another hub or has
// expired is refused with an error matching ErrBadState; the heart checks
// the calls against the store and uses each nonce up once.
package inputstate
