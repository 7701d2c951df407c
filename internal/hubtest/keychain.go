package hubtest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"capabilities.sh/capabilities/keychain"
)

// MemKeychain is a keychain.Keychain in memory; the zero value is empty
// and ready.
type MemKeychain struct {
	mu  sync.Mutex
	M   map[string]string
	Err error // returned by Get when set
}

func (k *MemKeychain) Get(key string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Err != nil {
		return "", k.Err
	}
	v, ok := k.M[key]
	if !ok {
		return "", fmt.Errorf("keychain: reading %q: %w", key, keychain.ErrNotFound)
	}
	return v, nil
}

func (k *MemKeychain) Set(key, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.M == nil {
		k.M = map[string]string{}
	}
	k.M[key] = secret
	return nil
}

func (k *MemKeychain) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.M, key)
	return nil
}

// RequireKeychain returns the OS keychain, skipping the test without a
// Secret Service, except under CI, where it fails.
func RequireKeychain(t testing.TB) keychain.Keychain {
	t.Helper()
	kc := keychain.New()
	if _, err := kc.Get("probe/hub-upstream-test"); errors.Is(err, keychain.ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("keychain must be reachable under CI: %v", err)
		}
		t.Skipf("no keychain (run through scripts/with-session.sh): %v", err)
	}
	return kc
}

// StoreSecret puts a secret in kc for the test's duration.
func StoreSecret(t testing.TB, kc keychain.Keychain, key, value string) {
	t.Helper()
	if err := kc.Set(key, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kc.Delete(key) })
}

// UniqueName is a name no other test run uses, so the keychain entries of
// parallel runs do not meet.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1e12)
}

// FailingKeychain refuses every write, as a locked keychain does. It
// reads through the Keychain it holds, which is nil unless one is set.
type FailingKeychain struct{ keychain.Keychain }

func (FailingKeychain) Set(key, secret string) error {
	return &keychain.UnavailableError{Op: "writing", Key: key, Cause: "locked"}
}
