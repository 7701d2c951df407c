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
	heap.Push(&r.timers, timer{due: r.now.Add(time.Duration(ms * float64(time.Millisecond))), id: id})
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

// timer is a pending setTimeout on the logical clock.
type timer struct {
	due time.Time
	id  int
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
