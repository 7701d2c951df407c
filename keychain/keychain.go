// Package keychain keeps the person's secrets in the operating system's
// keychain: the Secret Service on Linux, the Keychain on macOS and the
// Credential Manager on Windows.
//
// Secrets are written and read only here. Every entry lives under the service
// name "capabilities"; the account is a key chosen by the caller, such as
// "source/github/work". Errors never carry a secret value, only the key.
//
// The hub depends on the small [Keychain] interface so that code paths which
// only need a secret for a moment can be handed one without the whole hub.
package keychain

import (
	"errors"
	"fmt"
	"strings"

	gokeyring "github.com/zalando/go-keyring"
)

// Service is the keychain service name every entry is stored under.
const Service = "capabilities"

// ErrNotFound reports that no secret is stored under the key.
var ErrNotFound = errors.New("no secret stored")

// ErrUnavailable reports that the operating system's keychain cannot be
// reached. Errors wrapping it carry a hint on how to make it reachable.
var ErrUnavailable = errors.New("keychain unavailable")

// Keychain stores secrets by key. Implementations are safe for concurrent use.
type Keychain interface {
	Get(key string) (string, error)
	Set(key, secret string) error
	Delete(key string) error
}

// System is the operating system's keychain, reached through go-keyring.
type System struct{}

// New returns the operating system's keychain.
func New() System { return System{} }

// Get returns the secret stored under key, [ErrNotFound] when there is none,
// or an error wrapping [ErrUnavailable].
func (System) Get(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	s, err := gokeyring.Get(Service, key)
	if err != nil {
		return "", classify("reading", key, err)
	}
	return s, nil
}

// Set stores secret under key, replacing what was there.
func (System) Set(key, secret string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if secret == "" {
		return fmt.Errorf("keychain: refusing to store an empty secret for %q", key)
	}
	if err := gokeyring.Set(Service, key, secret); err != nil {
		return classify("writing", key, err)
	}
	return nil
}

// Delete removes the secret under key. Deleting a missing key returns
// [ErrNotFound].
func (System) Delete(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := gokeyring.Delete(Service, key); err != nil {
		return classify("deleting", key, err)
	}
	return nil
}

// Hint tells a person how to make the keychain reachable on this system.
func Hint() string { return hint }

func checkKey(key string) error {
	if key == "" || strings.ContainsAny(key, "\x00\n") {
		return fmt.Errorf("keychain: invalid key %q", key)
	}
	return nil
}

// classify maps go-keyring's errors onto ours. go-keyring's own messages
// never include the secret, but we still build ours from the key only.
func classify(op, key string, err error) error {
	switch {
	case errors.Is(err, gokeyring.ErrNotFound):
		return fmt.Errorf("keychain: %s %q: %w", op, key, ErrNotFound)
	case errors.Is(err, gokeyring.ErrSetDataTooBig):
		return fmt.Errorf("keychain: %s %q: the secret is too large for this keychain", op, key)
	case errors.Is(err, gokeyring.ErrUnsupportedPlatform):
		return &UnavailableError{Op: op, Key: key, Cause: "this platform has no supported keychain"}
	}
	// Anything else comes from the transport to the keychain (no D-Bus
	// session, no Secret Service, a locked collection): say so plainly.
	return &UnavailableError{Op: op, Key: key, Cause: err.Error()}
}

// UnavailableError reports that the keychain could not be reached.
type UnavailableError struct {
	Op, Key string
	Cause   string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("keychain unavailable while %s %q: %s (hint: %s)", e.Op, e.Key, e.Cause, hint)
}

// Unwrap makes errors.Is(err, ErrUnavailable) hold.
func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// Hint returns the fix for the person.
func (e *UnavailableError) Hint() string { return hint }
