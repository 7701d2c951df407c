package onewrite

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// One write is below everything of the hub's: the package imports no other
// package of this repository.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/onewrite", deptest.Module+"/...")
}

// TestOnce: of many goroutines beginning the write, in the background or
// not, one runs it, one reports it began it, and every Wait sees its error
// after it returned.
func TestOnce(t *testing.T) {
	var w Write
	var runs, began atomic.Int32
	release := make(chan struct{})
	boom := errors.New("boom")
	write := func() error {
		runs.Add(1)
		<-release
		return boom
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w.Begin(write, true) {
				began.Add(1)
			}
			if i%2 == 0 {
				// Waiting from goroutines that did not begin the write.
				if err := w.Wait(); err != boom {
					t.Errorf("Wait: %v", err)
				}
			}
		}()
	}
	close(release)
	wg.Wait()
	if err := w.Wait(); err != boom {
		t.Errorf("Wait: %v", err)
	}
	if runs.Load() != 1 || began.Load() != 1 {
		t.Errorf("the write ran %d times and %d callers began it; want 1 and 1", runs.Load(), began.Load())
	}
}

// TestSync: a write begun not in the background has returned when Begin
// does; a later Begin does not run its own.
func TestSync(t *testing.T) {
	var w Write
	done := false
	if !w.Begin(func() error { done = true; return nil }, false) || !done {
		t.Fatal("Begin did not run the write before returning")
	}
	if w.Begin(func() error { t.Error("a second write ran"); return nil }, true) {
		t.Error("a second Begin reports it began the write")
	}
	if err := w.Wait(); err != nil {
		t.Error(err)
	}
}
