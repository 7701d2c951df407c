package keychain

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// requireKeychain skips when no Secret Service is reachable, except under CI
// (`make test` starts one), where a missing keychain is a failure.
func requireKeychain(t *testing.T) System {
	t.Helper()
	k := New()
	_, err := k.Get("probe/keychain-test")
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("keychain must be reachable under CI: %v", err)
		}
		t.Skipf("no keychain here (run through `make test`): %v", err)
	}
	return k
}

func TestRoundTrip(t *testing.T) {
	k := requireKeychain(t)
	key := fmt.Sprintf("test/roundtrip/%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = k.Delete(key) })

	if _, err := k.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key = %v, want ErrNotFound", err)
	}
	if err := k.Set(key, "s3cret-value"); err != nil {
		t.Fatalf("Set: %v", err)
	}
	got, err := k.Get(key)
	if err != nil || got != "s3cret-value" {
		t.Fatalf("Get = %q, %v; want the stored secret", got, err)
	}
	if err := k.Set(key, "rotated"); err != nil {
		t.Fatalf("Set again: %v", err)
	}
	if got, _ := k.Get(key); got != "rotated" {
		t.Fatalf("Get after overwrite = %q", got)
	}
	if err := k.Delete(key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := k.Delete(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete = %v, want ErrNotFound", err)
	}
}

func TestInvalidInput(t *testing.T) {
	k := New()
	for _, key := range []string{"", "a\nb", "a\x00b"} {
		if _, err := k.Get(key); err == nil {
			t.Errorf("Get(%q) succeeded, want an invalid key error", key)
		}
	}
	if err := k.Set("test/empty", ""); err == nil {
		t.Error("Set with an empty secret succeeded")
	}
}

func TestUnavailableErrorNamesTheFix(t *testing.T) {
	err := classify("reading", "source/github/work", errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("classify = %v, want ErrUnavailable", err)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Hint() == "" {
		t.Fatalf("error %v carries no hint", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "source/github/work") || !strings.Contains(msg, "hint:") {
		t.Fatalf("message %q must name the key and the hint", msg)
	}
}

func TestHangingKeychainTimesOutAndFailsFast(t *testing.T) {
	t.Cleanup(func() {
		breaker.mu.Lock()
		breaker.until = time.Time{}
		breaker.mu.Unlock()
	})
	block := make(chan struct{})
	defer close(block)
	k := System{Timeout: 20 * time.Millisecond}
	err := k.do("reading", "source/x/y/Z", func() error { <-block; return nil })
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no answer within 20ms") {
		t.Fatalf("a hanging keychain gave %v", err)
	}
	// Within the minute after, calls fail at once without waiting.
	called := false
	err = k.do("reading", "source/x/y/Z", func() error { called = true; return nil })
	if !errors.Is(err, ErrUnavailable) || called {
		t.Fatalf("after a timeout: %v (called %v)", err, called)
	}
}
