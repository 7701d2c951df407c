package sandbox

import (
	"context"
	"sync"
	"time"
)

// restockDelay is how long a driver waits after a run before it replaces
// the runtime or worker the run used, as long as another is ready and no
// other run starts. The run's caller is still storing the outcome and
// answering its client, and a replacement (about 2 ms of CPU for a
// runtime, tens of milliseconds for a worker process) would compete with
// it; the hub is done within a millisecond or two. A longer delay leaves
// the machine idle before the next run, which then starts slower. A run
// that starts meanwhile means the driver is busy: the replacement is then
// needed soon, and goes ahead.
const restockDelay = 5 * time.Millisecond

// restock paces replacements: a replacement waits for restockDelay, or
// until the next run starts, whichever comes first.
// Safe for concurrent use; the zero value is ready.
type restock struct {
	delay time.Duration // 0 means restockDelay
	mu    sync.Mutex
	start chan struct{} // closed by the next started
}

func (s *restock) signal() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start == nil {
		s.start = make(chan struct{})
	}
	return s.start
}

// started tells waiting replacements that a run started: they go ahead
// at once.
func (s *restock) started() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start != nil {
		close(s.start)
		s.start = nil
	}
}

// wait returns once a replacement may start: at once when ready reports
// nothing ready, else after the delay, when the next run starts, or when ctx
// is done.
func (s *restock) wait(ctx context.Context, ready func() int) {
	start := s.signal() // before ready: a start in between is not missed
	if ready() == 0 {
		return
	}
	d := s.delay
	if d == 0 {
		d = restockDelay
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-start:
	case <-ctx.Done():
	}
}
