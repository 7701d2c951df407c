package sandbox

import (
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/dop251/goja"
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

// checkEvery is how many bytes of typed arrays and array buffers a run
// allocates between two synchronous memory checks. They are the only
// values that allocate megabytes in one step a guard can see coming; the
// memory watcher samples everything else, and a check within the turn
// stops a loop that allocates them faster than it samples.
const checkEvery = 4 << 20

// jsAllocated(bytes) is the guards' account of a typed array or buffer
// just allocated; every checkEvery bytes the heap is checked at once, on
// the loop goroutine.
func (r *run) jsAllocated(c goja.FunctionCall) goja.Value {
	r.account(c.Argument(0).ToInteger())
	return goja.Undefined()
}

// account adds n bytes allocated by the guest and checks the heap every
// checkEvery bytes.
func (r *run) account(n int64) {
	if n <= 0 {
		return
	}
	r.allocated += n
	if r.allocated >= checkEvery {
		r.allocated = 0
		r.checkMemory()
	}
}

// checkMemory fails the run with memory_limit when the heap has grown
// MemoryBytes past its size when the run started. A growth that may be
// garbage gets a collection before it counts.
func (r *run) checkMemory() {
	limit := r.baseline + uint64(r.limits.MemoryBytes)
	live, objects := heapStats()
	// A concurrent collection counts what is allocated while it marks as
	// live, so a loop that allocates and drops quickly can read as over
	// the limit: a collection run here, while the guest waits on this
	// goroutine, has nothing allocated during its mark and tells.
	if objects > limit {
		runtime.GC()
		live = heapLive()
	}
	if live > limit {
		r.fail(newError(CodeMemoryLimit, "the code used more than %d MB of memory", r.limits.MemoryBytes>>20))
	}
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
		if objects > baseline+limit && (live > baseline+limit || time.Since(lastGC) > 50*time.Millisecond) {
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
