package keylock

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLocks checks that the holders of one key are serialized and that a
// key's lock is gone once nobody holds or waits for it.
func TestLocks(t *testing.T) {
	var l Locks
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("r_%d", i%4)
			unlock := l.Lock(id)
			defer unlock()
			if i%4 == 0 {
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d attempts of one run held its lock at once", most.Load())
	}
	if n := l.Held(); n != 0 {
		t.Fatalf("%d run locks left after every attempt ended", n)
	}
}
