package sandbox

import (
	"context"
	"sync"
	"time"
)

// restockDelay is how long a driver waits after a run before it replaces
// the runtime or worker the run used, as long as another is ready and the
// driver is not busy. The run's caller is still storing the outcome and
// answering its client, and a replacement (about 2 ms of CPU for a
// runtime, tens of milliseconds for a worker process) would compete with
// it; the hub is done within a millisecond or two. A longer delay leaves
// the machine idle before the next run, which then starts slower.
const restockDelay = 5 * time.Millisecond

// restockBurst: two runs that start within it make the driver busy. Runs
// then follow each other faster than replacements are made, and a
// replacement goes ahead at once: it is needed soon, and waiting only
// moves its work into the next run.
const restockBurst = 50 * time.Millisecond

// restock paces replacements: a replacement waits for restockDelay, until
// the next run starts, whichever comes first, or not at all while the
// driver is busy. Safe for concurrent use; the zero value is ready.
type restock struct {
	delay time.Duration // 0 means restockDelay
	mu    sync.Mutex
	start chan struct{} // closed by the next started
	last  time.Time     // the latest start
	busy  bool          // the latest start came within restockBurst of the one before
}

// signal returns the channel the next started closes, and whether the
// driver is busy.
func (s *restock) signal() (<-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start == nil {
		s.start = make(chan struct{})
	}
	return s.start, s.busy
}

// started tells waiting replacements that a run started: they go ahead
// at once.
func (s *restock) started() {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = !s.last.IsZero() && now.Sub(s.last) < restockBurst
	s.last = now
	if s.start != nil {
		close(s.start)
		s.start = nil
	}
}

// wait returns once a replacement may start: at once when ready reports
// nothing ready or the driver is busy, else after the delay, when the next
// run starts, or when ctx is done. quiet reports that the whole delay
// passed with no run starting: the machine has time to spare, for a
// garbage collection say.
func (s *restock) wait(ctx context.Context, ready func() int) (quiet bool) {
	start, busy := s.signal() // before ready: a start in between is not missed
	if busy || ready() == 0 {
		return false
	}
	d := s.delay
	if d == 0 {
		d = restockDelay
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-start:
	case <-ctx.Done():
	}
	return false
}
