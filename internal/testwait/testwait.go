// Package testwait is the one way tests wait for something another
// goroutine or process makes true: a hub that comes up, a socket that stops
// answering, a log line that appears. Tests never sleep to wait.
//
// A wait is bounded by a generous timeout (long enough for a loaded 2-core
// machine) and fails the test with what it waited for; nothing depends on
// how long the condition took.
package testwait

import (
	"testing"
	"time"
)

// Timeout is the bound of For when the caller has none of its own.
const Timeout = time.Minute

// every is how often For checks its condition.
const every = 5 * time.Millisecond

// For checks cond until it holds, failing t after timeout (Timeout when
// zero or less) with what it waited for.
func For(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, cond) {
		if timeout <= 0 {
			timeout = Timeout
		}
		t.Fatalf("waited %v for %s", timeout, what)
	}
}

// Until checks cond until it holds or timeout (Timeout when zero or less)
// passes, and reports whether it held: for a test that has more to say
// than For does when the wait fails.
func Until(timeout time.Duration, cond func() bool) bool {
	if timeout <= 0 {
		timeout = Timeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
	return true
}
