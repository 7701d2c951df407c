package sandbox

import (
	"context"
	"testing"
	"time"
)

// TestRestock checks when a paced replacement may start: at once with
// nothing ready or a busy driver, when the next run starts, when its
// context ends, and otherwise after the delay, which alone makes the wait
// quiet. The delay is set far longer
// than the test waits, so only the signal under test can end a wait in
// time.
func TestRestock(t *testing.T) {
	const long = time.Hour
	none := func() int { return 0 }
	one := func() int { return 1 }
	waited := func(s *restock, ctx context.Context, ready func() int) <-chan bool {
		done := make(chan bool, 1)
		go func() { done <- s.wait(ctx, ready) }()
		return done
	}
	// ended checks that the wait ends, and whether it was quiet.
	ended := func(t *testing.T, done <-chan bool, what string, quiet bool) {
		t.Helper()
		select {
		case q := <-done:
			if q != quiet {
				t.Fatalf("after %s, quiet = %v, want %v", what, q, quiet)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not end the wait", what)
		}
	}

	t.Run("nothing ready", func(t *testing.T) {
		s := &restock{delay: long}
		ended(t, waited(s, context.Background(), none), "nothing ready", false)
	})
	t.Run("a run starts", func(t *testing.T) {
		s := &restock{delay: long}
		asked := make(chan struct{})
		done := waited(s, context.Background(), func() int {
			close(asked) // wait has taken its signal channel by now
			return 1
		})
		<-asked
		s.started()
		ended(t, done, "a run starting", false)
		s.started() // with no one waiting: a no-op
	})
	t.Run("busy", func(t *testing.T) {
		s := &restock{delay: long}
		s.started()
		s.started() // within restockBurst of the first: the driver is busy
		ended(t, waited(s, context.Background(), one), "a busy driver", false)
	})
	t.Run("not busy", func(t *testing.T) {
		s := &restock{delay: long}
		s.started()
		s.last = s.last.Add(-restockBurst) // the run before started long ago
		s.started()
		asked := make(chan struct{})
		done := waited(s, context.Background(), func() int { close(asked); return 1 })
		<-asked
		select {
		case <-done:
			t.Fatal("a replacement went ahead while the driver was not busy and one was ready")
		case <-time.After(50 * time.Millisecond):
		}
		s.started()
		ended(t, done, "a run starting", false)
	})
	t.Run("cancelled", func(t *testing.T) {
		s := &restock{delay: long}
		ctx, cancel := context.WithCancel(context.Background())
		asked := make(chan struct{})
		done := waited(s, ctx, func() int { close(asked); return 1 })
		<-asked
		cancel()
		ended(t, done, "cancelling", false)
	})
	t.Run("delay", func(t *testing.T) {
		s := &restock{delay: time.Millisecond}
		ended(t, waited(s, context.Background(), one), "the delay", true)
		start := time.Now()
		quiet := (&restock{}).wait(context.Background(), one)
		if d := time.Since(start); d < restockDelay || !quiet {
			t.Fatalf("with one ready, the replacement waited %v (quiet %v), want at least %v and quiet", d, quiet, restockDelay)
		}
	})
}
