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

// Early is where timers fired while host operations were in flight: Timers
// of them, one after another, once After operation results (tool calls,
// reads and lookups, counted in the order the guest issued them) had been
// delivered and before the next one was. A timer that fires with nothing in
// flight is not in it: nothing else could happen then, so an attempt that
// replays fires it at the same point anyway.
type Early struct {
	After  int `json:"after"`
	Timers int `json:"timers"`
}

// fire runs the next timer, and moves the logical clock to its due time.
// early says host operations are in flight: the firing is recorded.
func (r *run) fire(early bool) {
	t, ok := r.popTimer()
	if !ok {
		return
	}
	fn := r.timerFns[t.id]
	delete(r.timerFns, t.id)
	if t.due.After(r.now) {
		r.now = t.due
	}
	if early {
		if n := len(r.fired); n > 0 && r.fired[n-1].After == r.nextDeliver {
			r.fired[n-1].Timers++
		} else {
			r.fired = append(r.fired, Early{After: r.nextDeliver, Timers: 1})
		}
	}
	r.turn(func() error {
		_, err := fn(goja.Undefined())
		return err
	})
}

// replayedFiring reports whether an earlier attempt fired a timer at this
// point, before the next result, that this one has not fired yet. Entries
// the attempt has passed without reaching (it took another path) are
// dropped.
func (r *run) replayedFiring() bool {
	for r.nextRec < len(r.record) {
		e := r.record[r.nextRec]
		if e.After > r.nextDeliver {
			return false
		}
		done := 0
		if n := len(r.fired); n > 0 && r.fired[n-1].After == e.After {
			done = r.fired[n-1].Timers
		}
		if e.After == r.nextDeliver && done < e.Timers {
			return true
		}
		r.nextRec++
	}
	return false
}

// mayFireEarly reports whether a timer may fire when due while host
// operations are in flight: the run is live and has no firing of an
// earlier attempt still ahead of it to replay.
func (r *run) mayFireEarly() bool {
	return r.live() && r.nextRec >= len(r.record)
}

// nextWall is the wall time of the timer that fires next, if any.
func (r *run) nextWall() (time.Time, bool) {
	for r.timers.Len() > 0 {
		t := r.timers[0]
		if _, live := r.timerFns[t.id]; live {
			return t.wall, true
		}
		heap.Pop(&r.timers)
	}
	return time.Time{}, false
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

// sleepUntil waits until the next timer's wall time when the run is live,
// and reports whether the run can go on: false when its context ended
// first, the failure recorded.
func (r *run) sleepUntil() bool {
	wall, ok := r.nextWall()
	if !ok || !r.live() {
		return true
	}
	wait := time.Until(wall)
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
