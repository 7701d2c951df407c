package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// turn runs f as one turn of the event loop: a single entry into the
// runtime, its microtasks included, under the remaining compute budget.
// It reports whether the run can go on.
func (r *run) turn(f func() error) bool {
	if r.failure.Load() != nil {
		return false
	}
	err := r.timed(f)
	if err != nil {
		r.failFrom(err)
	}
	if r.failure.Load() == nil {
		r.checkRejections()
	}
	return r.failure.Load() == nil
}

func (r *run) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		r.rejections = append(r.rejections, p)
	case goja.PromiseRejectionHandle:
		for i, q := range r.rejections {
			if q == p {
				r.rejections = append(r.rejections[:i], r.rejections[i+1:]...)
				break
			}
		}
	}
}

// checkRejections fails the run for a promise rejected in the last turn
// that nothing handled by the turn's end.
func (r *run) checkRejections() {
	for _, p := range r.rejections {
		if p == r.main || p.State() != goja.PromiseStateRejected {
			continue
		}
		r.rejections = nil
		r.fail(newError(CodeUnhandledRejection, "a promise was rejected and not handled: %s", r.describeValue(p.Result())))
		return
	}
	r.rejections = r.rejections[:0]
}

// loop delivers host results in op order and fires timers until the run
// is over: the main promise settled, or a call suspended and no host
// operation is in flight. A timer due while operations are in flight fires
// when due, between two results; where it fired is recorded (run.fired),
// and an attempt that replays fires at the recorded points instead
// (Request.Fired). Once a call suspended, timers no longer fire.
func (r *run) loop() {
	for r.failure.Load() == nil {
		// Results issued and not delivered: in flight, or arrived out of
		// order, or from an attempt replayed faster than it first ran.
		if r.nextOp > r.nextDeliver && len(r.suspends) == 0 && r.replayedFiring() {
			r.fire(true)
			continue
		}
		if c, ok := r.ready[r.nextDeliver]; ok {
			delete(r.ready, r.nextDeliver)
			r.nextDeliver++
			r.deliver(c)
			continue
		}
		settled := r.main.State() != goja.PromiseStatePending
		if settled && len(r.suspends) == 0 {
			// The code returned: operations still in flight are ones it
			// left behind (the loser of a race against a timer); stop
			// cancels them.
			return
		}
		if r.inflight > 0 {
			r.await()
			continue
		}
		if len(r.suspends) > 0 || settled {
			return
		}
		if _, ok := r.nextWall(); ok {
			// Nothing is in flight and the guest is not running: nothing
			// but this timer can happen while the loop waits for it.
			if !r.sleepUntil() {
				return
			}
			r.fire(false)
			continue
		}
		r.fail(newError(CodeUnsettled, "the code awaits a promise that nothing will settle: no tool call or timer is pending"))
	}
}

// await waits for the next host operation to finish, or for the next
// timer's wall time when it may fire early, which it then fires.
func (r *run) await() {
	var due <-chan time.Time
	if len(r.suspends) == 0 && r.mayFireEarly() {
		if wall, ok := r.nextWall(); ok {
			t := time.NewTimer(time.Until(wall))
			defer t.Stop()
			due = t.C
		}
	}
	select {
	case c := <-r.done:
		r.arrive(c)
	case <-due:
		r.fire(true)
	case <-r.ctx.Done():
		r.fail(r.ctxError())
	}
}

// arrive records a finished host operation.
func (r *run) arrive(c completion) {
	r.inflight--
	var s *Suspend
	if errors.As(c.err, &s) {
		p := r.ops[c.op]
		if p != nil && p.seq != 0 {
			if s.Seq == 0 {
				s.Seq = p.seq
			}
			if s.Address == "" {
				s.Address = p.what
			}
			// The op never becomes ready, so nothing after it is delivered.
			r.suspends = append(r.suspends, s)
			return
		}
		c.err = fmt.Errorf("lookup suspended: %w", c.err)
	}
	var pl *Planned
	if errors.As(c.err, &pl) {
		if p := r.ops[c.op]; p != nil && p.seq != 0 && p.raw {
			c.err, c.raw, c.planned = nil, nil, true
		} else {
			c.err = fmt.Errorf("lookup planned: %w", c.err)
		}
	}
	r.ready[c.op] = c
}

// deliver settles the guest promise of a finished host operation.
func (r *run) deliver(c completion) {
	p := r.ops[c.op]
	delete(r.ops, c.op)
	r.turn(func() error {
		if c.err != nil {
			v, err := r.toolError(p, c.err)
			if err != nil {
				return err
			}
			return p.reject(v)
		}
		if !p.raw {
			return p.resolve(r.rt.ToValue(c.text))
		}
		if c.planned {
			v, err := r.placeholder(goja.Undefined(), r.rt.ToValue(p.seq))
			if err != nil {
				return err
			}
			r.planned = append(r.planned, p.seq)
			return p.resolve(v)
		}
		// The guard's depth check, done here on the bytes; the guard itself
		// runs only to raise its error. Within it, the value is built in one
		// pass, or by JSON.parse when that declines.
		parse := r.parse
		if jsonDepth(c.raw) <= maxJSONDepth {
			if v, ok := jsonToValue(r.rt, c.raw); ok {
				return p.resolve(v)
			}
			parse = r.nativeParse
		}
		v, err := parse(goja.Undefined(), r.rt.ToValue(string(c.raw)))
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				return p.reject(ex.Value())
			}
			return err
		}
		return p.resolve(v)
	})
}

func (r *run) toolError(p *pending, err error) (goja.Value, error) {
	var te *ToolError
	if !errors.As(err, &te) {
		te = &ToolError{Code: CodeHostError, Message: err.Error(), Hint: hints[CodeHostError]}
	}
	address := te.Address
	if address == "" {
		address = p.what
	}
	rt := r.rt
	return r.makeToolError(goja.Undefined(), rt.ToValue(te.Code), rt.ToValue(te.Message), rt.ToValue(address),
		rt.ToValue(te.Hint), rt.ToValue(te.Status), rt.ToValue(te.Retryable))
}

// startOp issues a host operation, p without its resolve and reject, and
// returns the guest's promise for it. The operation runs on a worker
// goroutine once one is free; its result goes back to the loop through
// r.done.
func (r *run) startOp(p *pending, do func(ctx context.Context) completion) goja.Value {
	promise, resolve, reject := r.rt.NewPromise()
	id := r.nextOp
	r.nextOp++
	p.resolve, p.reject = resolve, reject
	r.ops[id] = p
	r.inflight++
	if r.queue.push(queuedOp{id: id, do: do, bytes: p.bytes}) {
		r.wg.Add(1)
		go r.work()
	}
	return r.rt.ToValue(promise)
}

// work runs queued operations until the run stops. Once the run's context
// is done, the operations left fail with its cause without running.
func (r *run) work() {
	defer r.wg.Done()
	for {
		op, ok := r.queue.pop()
		if !ok {
			return
		}
		var c completion
		if r.ctx.Err() != nil {
			c = completion{err: context.Cause(r.ctx)}
		} else {
			c = safeDo(r.ctx, op.do)
		}
		c.op = op.id
		r.queue.done(op)
		select {
		case r.done <- c:
		case <-r.finished:
		}
	}
}

type queuedOp struct {
	id    int
	do    func(ctx context.Context) completion
	bytes int // a call's arguments
}

// argsInFlight is how many calls' worth of arguments (Limits.ArgsBytes)
// a run's calls in flight may hold together: eight calls of 4 MB would
// hold 32 MB in the host at once, and it processes each a few times over.
const argsInFlight = 2

// opQueue holds operations waiting for a worker, oldest first. An
// operation starts once a worker is free and, while others are in flight,
// its arguments fit in maxBytes beside theirs; one alone always starts.
type opQueue struct {
	mu       sync.Mutex
	cond     sync.Cond // L is mu; signalled when an op is pushed, one is done, or the queue closes
	ops      []queuedOp
	max      int // workers at most
	workers  int // started
	idle     int // waiting in pop
	closed   bool
	maxBytes int // arguments in flight at most (beside a first op's)
	inBytes  int // arguments of the ops in flight
}

// push queues op and reports whether the caller must start a worker for it.
func (q *opQueue) push(op queuedOp) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ops = append(q.ops, op)
	if q.idle > 0 {
		q.cond.Signal()
		return false
	}
	if q.workers < q.max {
		q.workers++
		return true
	}
	return false
}

// pop takes the oldest operation, waiting for one; ok is false once the
// queue is closed and empty.
func (q *opQueue) pop() (op queuedOp, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && (len(q.ops) == 0 || q.inBytes > 0 && q.inBytes+q.ops[0].bytes > q.maxBytes) {
		q.idle++
		q.cond.Wait()
		q.idle--
	}
	if len(q.ops) == 0 {
		return queuedOp{}, false
	}
	op = q.ops[0]
	q.ops[0] = queuedOp{}
	q.ops = q.ops[1:]
	q.inBytes += op.bytes
	return op, true
}

// done records that op, taken by pop, returned: its arguments no longer
// count as in flight.
func (q *opQueue) done(op queuedOp) {
	if op.bytes == 0 {
		return
	}
	q.mu.Lock()
	q.inBytes -= op.bytes
	q.mu.Unlock()
	q.cond.Broadcast()
}

// close wakes every waiting worker; they drain what is left and exit.
func (q *opQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// errHostPanicked is what the guest learns of a panic in the host: not its
// value, which is the hub's own (Go types, internal state).
const errHostPanicked = "the hub failed on this call"

// safeDo turns a panic in the host into a host error.
func safeDo(ctx context.Context, do func(context.Context) completion) (c completion) {
	defer func() {
		if x := recover(); x != nil {
			c = completion{err: errors.New(errHostPanicked)}
		}
	}()
	return do(ctx)
}
