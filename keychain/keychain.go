// Package keychain keeps the person's secrets in the operating system's
// keychain: the Secret Service on Linux, the Keychain on macOS and the
// Credential Manager on Windows.
//
// Secrets are written and read only here. An entry is a service name and an
// account: the account is a key chosen by the caller, such as
// "source/github/work/GITHUB_TOKEN", and the service names the
// CAPABILITIES_HOME the entry belongs to ("capabilities/h4f2a..."; see
// [ForHome]), so two homes never read or overwrite each other's secrets.
// Errors never carry a secret value, only the key.
//
// Tests use a service of their own ([TestService]): a test binary that does
// not pick one gets it anyway, so no test reads, moves or deletes the
// person's entries.
//
// The hub depends on the small [Keychain] interface so that code paths which
// only need a secret for a moment can be handed one without the whole hub.
package keychain

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gokeyring "github.com/zalando/go-keyring"
)

// Service is the base service name of the person's entries. Before homes
// had ids, every entry was stored under it directly.
const Service = "capabilities"

// TestService is the base service name tests use.
const TestService = "capabilities-test"

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
//
// A locked Secret Service answers a read with an unlock prompt, and where
// nobody can see the prompt (no desktop session) the call would wait
// forever. So every operation waits at most Timeout; after a timeout the
// keychain counts as unavailable for a minute, so callers fail fast instead
// of waiting again on each call.
type System struct {
	// Service is the service name the entries are stored under; empty
	// means [Service], or [TestService] in a test binary.
	Service string
	// Timeout bounds one operation; zero means 10 seconds.
	Timeout time.Duration
}

// New returns the operating system's keychain under [Service].
func New() System { return System{} }

// ServiceName is the service name k stores its entries under.
func (k System) ServiceName() string {
	switch {
	case k.Service != "":
		return k.Service
	case testing.Testing():
		return TestService
	}
	return Service
}

// unavailableFor is how long the keychain counts as unavailable after an
// operation timed out.
const unavailableFor = time.Minute

// noBusOnce applies NoBusAutolaunch before the first operation.
var noBusOnce sync.Once

var breaker struct {
	mu    sync.Mutex
	until time.Time
	cause string
}

// do runs f within the timeout. The operation itself cannot be cancelled:
// after a timeout its goroutine ends whenever the keychain answers.
func (s System) do(op, key string, f func() error) error {
	noBusOnce.Do(NoBusAutolaunch)
	breaker.mu.Lock()
	if time.Now().Before(breaker.until) {
		cause := breaker.cause
		breaker.mu.Unlock()
		return &UnavailableError{Op: op, Key: key, Cause: cause}
	}
	breaker.mu.Unlock()
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		cause := fmt.Sprintf("no answer within %s (the keychain is locked and waits on an unlock prompt, or its service hangs)", timeout)
		breaker.mu.Lock()
		breaker.until, breaker.cause = time.Now().Add(unavailableFor), cause
		breaker.mu.Unlock()
		return &UnavailableError{Op: op, Key: key, Cause: cause}
	}
}

// Get returns the secret stored under key, [ErrNotFound] when there is none,
// or an error wrapping [ErrUnavailable].
func (k System) Get(key string) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	var secret string
	err := k.do("reading", key, func() error {
		s, err := gokeyring.Get(k.ServiceName(), key)
		if err != nil {
			return classify("reading", key, err)
		}
		secret = s
		return nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// Set stores secret under key, replacing what was there.
func (k System) Set(key, secret string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if secret == "" {
		return fmt.Errorf("keychain: refusing to store an empty secret for %q", key)
	}
	return k.do("writing", key, func() error {
		if err := gokeyring.Set(k.ServiceName(), key, secret); err != nil {
			return classify("writing", key, err)
		}
		return nil
	})
}

// Delete removes the secret under key. Deleting a missing key returns
// [ErrNotFound].
func (k System) Delete(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return k.do("deleting", key, func() error {
		if err := gokeyring.Delete(k.ServiceName(), key); err != nil {
			return classify("deleting", key, err)
		}
		return nil
	})
}

// DeleteAll removes every entry of k's service. Deleting from a service
// that has none is not an error.
func (k System) DeleteAll() error {
	svc := k.ServiceName()
	return k.do("deleting", "every entry of "+svc, func() error {
		if err := gokeyring.DeleteAll(svc); err != nil && !errors.Is(err, gokeyring.ErrNotFound) {
			return classify("deleting", "every entry of "+svc, err)
		}
		return nil
	})
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
