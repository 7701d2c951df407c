package sandbox

import (
	"context"
	"sync"
	"time"
)

// restockDelay is how long a driver waits after a run before it replaces
// the runtime or worker the run used, as long as another is ready. The
// run's caller is still storing the outcome and answering its client, and
// a replacement (about 2 ms of CPU for a runtime, tens of milliseconds for
// a worker process) would compete with it.
const restockDelay = 20 * time.Millisecond

// restock paces replacements: a replacement waits for restockDelay, or
// until runs have taken everything ready, whichever comes first.
// Safe for concurrent use; the zero value is ready.
type restock struct {
	delay time.Duration // 0 means restockDelay
	mu    sync.Mutex
	empty chan struct{} // closed by the next ranOut
}

func (s *restock) signal() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.empty == nil {
		s.empty = make(chan struct{})
	}
	return s.empty
}

// ranOut tells waiting replacements that a run found nothing, or took the
// last thing, ready: they go ahead at once.
func (s *restock) ranOut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.empty != nil {
		close(s.empty)
		s.empty = nil
	}
}

// wait returns once a replacement may start: at once when ready reports
// nothing ready, else after the delay, at the next ranOut, or when ctx
// is done.
func (s *restock) wait(ctx context.Context, ready func() int) {
	empty := s.signal() // before ready: a ranOut in between is not missed
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
	case <-empty:
	case <-ctx.Done():
	}
}
