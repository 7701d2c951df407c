package sandbox

import (
	"container/heap"
	"time"

	"github.com/dop251/goja"
)

func (r *run) jsSetTimer(c goja.FunctionCall) goja.Value {
	ms := c.Argument(0).ToFloat()
	fn, ok := goja.AssertFunction(c.Argument(1))
	if !ok || ms != ms || ms < 0 || ms > maxTimerDelay {
		panic(r.rt.NewTypeError("invalid timer"))
	}
	if len(r.timerFns) >= maxPendingTimers {
		r.fail(newError(CodeTimerLimit, "more than %d timers are pending at once", maxPendingTimers))
		return goja.Undefined()
	}
	r.timerSeq++
	id := r.timerSeq
	r.timerFns[id] = fn
	delay := time.Duration(ms * float64(time.Millisecond))
	heap.Push(&r.timers, timer{due: r.now.Add(delay), wall: time.Now().Add(delay), id: id})
	return r.rt.ToValue(id)
}

func (r *run) jsClearTimer(c goja.FunctionCall) goja.Value {
	delete(r.timerFns, int(c.Argument(0).ToInteger()))
	return goja.Undefined()
}

// popTimer returns the next live timer: earliest due, then first created.
func (r *run) popTimer() (timer, bool) {
	for r.timers.Len() > 0 {
		t := heap.Pop(&r.timers).(timer)
		if _, live := r.timerFns[t.id]; live {
			return t, true
		}
	}
	return timer{}, false
}

// timer is a pending setTimeout: due on the logical clock, which orders
// timers and is what Date reads once it fires, and not before wall in real
// time while the run is live.
type timer struct {
	due  time.Time
	wall time.Time
	id   int
}

// live reports whether the run is past what earlier attempts did: it has
// issued as many calls as Request.Replay. Until then a timer fires without
// waiting, as it waited when those calls were first made.
func (r *run) live() bool { return r.seq >= r.replay }

// sleepUntil waits until t's wall time when the run is live, and reports
// whether the run can go on: false when its context ended first, the
// failure recorded.
func (r *run) sleepUntil(t timer) bool {
	if !r.live() {
		return true
	}
	wait := time.Until(t.wall)
	if wait <= 0 {
		return true
	}
	sleep := time.NewTimer(wait)
	defer sleep.Stop()
	select {
	case <-sleep.C:
		return true
	case <-r.ctx.Done():
		r.fail(r.ctxError())
		return false
	}
}

// timerQueue orders timers by due time, then creation.
type timerQueue []timer

func (q timerQueue) Len() int { return len(q) }
func (q timerQueue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].id < q[j].id
}
func (q timerQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timerQueue) Push(x any)   { *q = append(*q, x.(timer)) }
func (q *timerQueue) Pop() any {
	old := *q
	t := old[len(old)-1]
	*q = old[:len(old)-1]
	return t
}
