package sandbox

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Request is one attempt of a run.
type Request struct {
	Code       string      `json:"code"`  // Prepared.Code
	Seed       uint64      `json:"seed"`  // seeds Math.random and crypto
	Clock      time.Time   `json:"clock"` // logical clock start for Date
	Namespaces []Namespace `json:"namespaces"`
	Limits     Limits      `json:"limits"` // lowered from DefaultLimits; zero fields keep the defaults
	// Replay is how many calls earlier attempts of the run issued: the
	// highest seq its journal or pending inputs hold, 0 for a first attempt.
	// setTimeout waits in real time (wall time, not compute), but until the
	// code has issued that many calls a timer fires at once: the attempt
	// replays what already happened, and the timer waited then. The logical
	// clock, and so the Outcome, is the same either way.
	Replay int `json:"replay,omitempty"`
	// Fired is where timers fired while host operations were in flight in
	// earlier attempts (the Outcome.Fired, or Call.Fired, of the latest
	// one): the attempt fires its timers at the same points, so it takes
	// the same path while it replays.
	Fired []Early `json:"fired,omitempty"`
	Host  Host    `json:"-"`
}

// Run statuses.
const (
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusSuspended = "suspended"
	StatusCancelled = "cancelled"
	// StatusPlanned: the host planned at least one call (see Planning in
	// the package documentation), and the code returned (Outcome.Stop is
	// nil) or needed a placeholder's actual value (Outcome.Stop says where).
	StatusPlanned = "planned"
)

// Outcome is how an attempt ended. Given the same Request (code, seed,
// clock, namespaces, limits) and the same host answers, every field except
// Compute is identical across runs and drivers.
type Outcome struct {
	Status    string          `json:"status"`           // StatusCompleted, StatusFailed, StatusSuspended, StatusCancelled or StatusPlanned
	Result    json.RawMessage `json:"result,omitempty"` // completed and planned only; the returned value as JSON (symbolic JSON when planned), omitted for undefined
	Error     *Error          `json:"error,omitempty"`  // failed and cancelled
	Logs      []string        `json:"logs,omitempty"`
	Truncated Truncated       `json:"truncated"`
	Suspends  []*Suspend      `json:"suspends,omitempty"` // suspended only, in seq order
	Calls     int             `json:"calls"`              // highest seq issued
	Fired     []Early         `json:"fired,omitempty"`    // where timers fired while host operations were in flight
	Compute   time.Duration   `json:"compute"`            // guest execution time measured

	// Planned holds the seqs of the calls the host planned whose
	// placeholder the code received, in order, whatever the status.
	Planned []int `json:"planned,omitempty"`
	// Stop is where planning stopped: planned only, nil when the code
	// returned.
	Stop *PlanStop `json:"stop,omitempty"`

	// Whole is the returned value's JSON text when it did not fit the
	// inline budget (Truncated.Result; Result then holds a preview of it),
	// for the host to keep and hand out a handle to, in place of the
	// preview, at no more than the preview's cost.
	Whole json.RawMessage `json:"whole,omitempty"`
}

// Truncated says what was cut to fit Limits.InlineResultBytes.
type Truncated struct {
	Result bool `json:"result,omitempty"`
	Logs   bool `json:"logs,omitempty"`
}

// Driver runs guest code.
type Driver interface {
	// Run executes one attempt and reports how it ended; it never panics on
	// guest input. Concurrency: Run may be called from many goroutines at
	// once; each call owns its run and returns after every goroutine it
	// started has exited. Cancelling ctx ends the run as "cancelled".
	Run(ctx context.Context, req Request) Outcome
	// Close releases the driver's resources. Runs still in progress are
	// cancelled; Close returns once they have ended.
	Close() error
}

// NewInProcess returns a driver that runs each attempt on a fresh goja
// runtime in this process, on a goroutine of its own. See the package
// documentation for what it cannot protect against.
//
// Runtimes are prepared ahead once the driver has served a run: a
// background goroutine then keeps up to two runtimes with the prelude and
// the last run's namespaces installed, so a run starts on one at once. A
// used runtime's replacement is built at once while runs come in a burst,
// otherwise restockDelay after the run ends or when the next run starts
// (see restock). A run that finds none ready, or none for its namespaces,
// builds its own. A driver that never runs code starts nothing.
func NewInProcess() Driver {
	ctx, cancel := context.WithCancel(context.Background())
	return &inProcess{ctx: ctx, cancel: cancel, warm: make(chan *run, preparedRuntimes), slots: make(chan struct{}, preparedRuntimes)}
}

// preparedRuntimes is how many runtimes the in-process driver keeps ready.
const preparedRuntimes = 2

type inProcess struct {
	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	warm      chan *run     // prepared runtimes
	slots     chan struct{} // one per runtime prepared or being prepared
	expect    expectedNamespaces
	restock   restock
	startWarm sync.Once
	wg        sync.WaitGroup
	mu        sync.Mutex
	closed    bool
	// collecting is held for writing while a collection after a run that
	// left much garbage runs; a run starts once it is over. clean is the
	// live heap after the last one.
	collecting sync.RWMutex
	clean      atomic.Uint64
}

// keepWarm prepares runtimes until Close. If preparing fails, runs build
// their own and report the error.
func (d *inProcess) keepWarm() {
	defer d.wg.Done()
	eng, err := loadEngine()
	if err != nil {
		return
	}
	for {
		select {
		case d.slots <- struct{}{}:
		case <-d.ctx.Done():
			return
		}
		d.restock.wait(d.ctx, func() int { return len(d.warm) })
		r, err := newShell(eng, d.expect.get())
		if err != nil {
			return
		}
		d.warm <- r // never blocks: a slot was taken
	}
}

// prepared returns a ready runtime for the namespaces, or builds one, and
// reports whether it took a prepared one: its slot is then the caller's to
// free once the run is over, so that preparing the replacement does not
// compete with the run. A prepared runtime for other namespaces is
// dropped.
func (d *inProcess) prepared(eng *engine, nss []Namespace) (r *run, took bool, err error) {
	d.expect.note(nss)
	d.restock.started()
	select {
	case r := <-d.warm:
		if r.fits(nss) {
			return r, true, nil
		}
		<-d.slots
	default:
	}
	r, err = newShell(eng, nss)
	return r, false, err
}

func (d *inProcess) Run(ctx context.Context, req Request) Outcome {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return failed(newError(CodeCancelled, "the driver is closed"))
	}
	d.wg.Add(1)
	d.mu.Unlock()
	defer d.wg.Done()

	// A run's memory limit counts from the live heap as of the last
	// collection: wait for one that is under way, or a baseline the last
	// run's garbage inflates would let this run use more.
	d.collecting.RLock()
	d.collecting.RUnlock()
	startLive := heapLive()
	ctx, stop := mergeCancel(ctx, d.ctx)
	defer stop()
	done := make(chan Outcome, 1)
	var took bool // written by the run's goroutine before it sends on done
	go func() {
		done <- execute(ctx, req, func(eng *engine, nss []Namespace) (r *run, err error) {
			r, took, err = d.prepared(eng, nss)
			return r, err
		})
	}()
	o := <-done
	if took {
		<-d.slots
	}
	// The heap as it was when this run started, not as the last
	// collection left it: a collection that ran while another run's data
	// was still reachable leaves a clean level too high to see this run's
	// garbage by.
	if _, objects := heapStats(); objects > min(d.clean.Load(), startLive)+collectAbove && d.collecting.TryLock() {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer d.collecting.Unlock()
			runtime.GC()
			d.clean.Store(heapLive())
		}()
	}
	d.startWarm.Do(func() {
		d.wg.Add(1)
		go d.keepWarm()
	})
	return o
}

func (d *inProcess) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	return nil
}

// mergeCancel returns a context derived from ctx that is also cancelled
// when other is.
func mergeCancel(ctx, other context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(other, cancel)
	return ctx, func() { stop(); cancel() }
}

func failed(e *Error) Outcome {
	status := StatusFailed
	if e.Code == CodeCancelled {
		status = StatusCancelled
	}
	return Outcome{Status: status, Error: e}
}
