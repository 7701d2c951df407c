package keychain

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// testBase is a service of this test run's own under the test service.
func testBase(t *testing.T) System {
	t.Helper()
	requireKeychain(t)
	return System{Service: fmt.Sprintf("%s/unit%d", TestService, time.Now().UnixNano())}
}

func forHome(t *testing.T, base System, id string) *Home {
	t.Helper()
	h, err := ForHome(base, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.DeleteAll() })
	return h
}

func TestTestsUseTheirOwnService(t *testing.T) {
	if got := New().ServiceName(); got != TestService {
		t.Fatalf("a test binary's default service is %q, want %q", got, TestService)
	}
	if got := (System{Service: "x"}).ServiceName(); got != "x" {
		t.Fatalf("Service option ignored: %q", got)
	}
	h, err := ForHome(New(), "h1")
	if err != nil || h.ServiceName() != TestService+"/h1" {
		t.Fatalf("ForHome service %v, %v", h, err)
	}
	for _, bad := range []string{"", "a/b", "a b", "x\n"} {
		if _, err := ForHome(New(), bad); err == nil {
			t.Errorf("ForHome accepted the home id %q", bad)
		}
	}
}

func TestHomesDoNotShareEntries(t *testing.T) {
	base := testBase(t)
	one, two := forHome(t, base, "one"), forHome(t, base, "two")
	const key = "source/github/default/GITHUB_TOKEN"
	if err := one.Set(key, "secret-of-home-one"); err != nil {
		t.Fatal(err)
	}
	if err := two.Set(key, "secret-of-home-two"); err != nil {
		t.Fatal(err)
	}
	if got, err := one.Get(key); err != nil || got != "secret-of-home-one" {
		t.Fatalf("home one reads %q, %v", got, err)
	}
	if got, err := two.Get(key); err != nil || got != "secret-of-home-two" {
		t.Fatalf("home two reads %q, %v", got, err)
	}
	if err := two.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := two.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after DeleteAll home two reads %v", err)
	}
	if got, _ := one.Get(key); got != "secret-of-home-one" {
		t.Fatalf("DeleteAll of home two removed home one's entry: %q", got)
	}
}

func TestEntriesFromBeforeHomesMoveOnFirstRead(t *testing.T) {
	base := testBase(t)
	t.Cleanup(func() { base.DeleteAll() })
	const key = "source/memory/default/TOKEN"
	if err := base.Set(key, "old-shared-secret"); err != nil {
		t.Fatal(err)
	}
	one, two := forHome(t, base, "one"), forHome(t, base, "two")
	got, err := one.Get(key)
	if err != nil || got != "old-shared-secret" {
		t.Fatalf("home one reads %q, %v; want the old entry", got, err)
	}
	// Moved: the home has it under its own service, the old one is gone.
	if got, err := one.scoped.Get(key); err != nil || got != "old-shared-secret" {
		t.Fatalf("home one's own entry: %q, %v", got, err)
	}
	if _, err := base.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the old entry is still there: %v", err)
	}
	if _, err := two.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("home two reads home one's moved entry: %v", err)
	}
	// Deleting removes an old entry too, so it does not come back.
	if err := base.Set(key, "another-old-secret"); err != nil {
		t.Fatal(err)
	}
	if err := two.Delete(key); err != nil {
		t.Fatalf("Delete of an old entry: %v", err)
	}
	if _, err := two.Get(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a deleted old entry came back: %v", err)
	}
	if err := two.Delete(key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete = %v, want ErrNotFound", err)
	}
}
