package sandbox

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// timed runs f with panics recovered and the compute clock running; a turn
// that runs past the budget is interrupted.
func (r *run) timed(f func() error) error {
	remaining := r.limits.Compute - r.compute
	if remaining <= 0 {
		r.fail(r.computeError())
		return nil
	}
	if r.computeTimer == nil {
		r.computeTimer = time.AfterFunc(remaining, func() { r.fail(r.computeError()) })
	} else {
		r.computeTimer.Reset(remaining)
	}
	start := time.Now()
	err := protect(f)
	r.compute += time.Since(start)
	if !r.computeTimer.Stop() {
		r.fail(r.computeError())
	}
	return err
}

func (r *run) computeError() *Error {
	return newError(CodeComputeLimit, "the code ran past its compute time of %s", r.limits.Compute)
}

// watchMemory samples the heap and fails the run with memory_limit when
// the heap grows MemoryBytes past its size when the run started. A growth
// made of garbage gets a collection before it counts. It exits when the
// loop finishes.
func (r *run) watchMemory(baseline uint64) {
	defer r.wg.Done()
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	limit := uint64(r.limits.MemoryBytes)
	var lastGC time.Time
	for {
		select {
		case <-r.finished:
			return
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		live, objects := heapStats()
		if live > baseline+limit {
			r.fail(newError(CodeMemoryLimit, "the code used more than %d MB of memory", limit>>20))
			return
		}
		if objects > baseline+limit && time.Since(lastGC) > 50*time.Millisecond {
			runtime.GC()
			lastGC = time.Now()
			if live, _ = heapStats(); live > baseline+limit {
				r.fail(newError(CodeMemoryLimit, "the code used more than %d MB of memory", limit>>20))
				return
			}
		}
	}
}

func heapLive() uint64 {
	live, _ := heapStats()
	return live
}

// heapStats returns the live heap as of the last collection and the bytes
// in heap objects now, garbage included.
func heapStats() (live, objects uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		objects = s[1].Value.Uint64()
	}
	return live, objects
}
