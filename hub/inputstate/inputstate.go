package inputstate

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"capabilities.sh/capabilities/keychain"
)

// KeyName is the keychain key of the HMAC key that signs input-request
// states.
const KeyName = "hub/approval-signing-key"

// LoadKey reads the signing key from the keychain, creating it on first
// use. Without a keychain the key lives for this process only: states it
// signed are refused after a restart, and the client is asked again.
func LoadKey(kc keychain.Keychain, log *slog.Logger) []byte {
	if s, err := kc.Get(KeyName); err == nil {
		if k, err := base64.RawURLEncoding.DecodeString(s); err == nil && len(k) >= 32 {
			return k
		}
	}
	k := make([]byte, 32)
	rand.Read(k)
	if err := kc.Set(KeyName, base64.RawURLEncoding.EncodeToString(k)); err != nil {
		if errors.Is(err, keychain.ErrUnavailable) {
			log.Warn("no keychain: approval request states are signed with a key that lasts until the hub stops", "err", err)
		} else {
			log.Warn("storing the approval signing key failed", "err", err)
		}
	}
	return k
}

// State is what the hub signs into an input request's requestState:
// the exact pending calls it asks about.
type State struct {
	RunID   string `json:"r"`
	Calls   []Call `json:"c"`
	Expires int64  `json:"e"` // unix ms
	Nonce   string `json:"n"`
	// Whole says the request asked once about all the calls, a run's
	// plan: the answer for the first call is the answer for each.
	Whole bool `json:"w,omitempty"`
}

// Call is one pending call a State asks about.
type Call struct {
	PendingID string `json:"p"`
	Seq       int    `json:"s"`
	ArgsHash  string `json:"h"`
}

// Sign returns st signed with key.
func Sign(key []byte, st State) string {
	b, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// ErrBadState reports an input-request state that is not one the hub
// signed, was altered, has expired or was already used.
var ErrBadState = errors.New("invalid request state")

// Verify returns the state s that Sign signed with key, unless it has
// expired at now.
func Verify(key []byte, s string, now time.Time) (*State, error) {
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return nil, fmt.Errorf("%w: malformed", ErrBadState)
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: malformed", ErrBadState)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil), got) {
		return nil, fmt.Errorf("%w: the signature does not match (altered, or signed by another hub)", ErrBadState)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%w: malformed", ErrBadState)
	}
	if now.UnixMilli() > st.Expires {
		return nil, fmt.Errorf("%w: expired", ErrBadState)
	}
	return &st, nil
}
