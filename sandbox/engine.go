package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"capabilities.sh/capabilities/prelude"
	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

const (
	// regexpTimeout bounds one backtracking regular expression match. It is
	// set process-wide on regexp2 the first time a driver runs code.
	regexpTimeout = time.Second
	// maxPendingTimers bounds timers waiting to fire at once.
	maxPendingTimers = 1000
	// maxTimerDelay is the longest setTimeout delay, in milliseconds.
	maxTimerDelay = 30_000
	// maxJSONDepth bounds nesting in JSON.parse input and JSON.stringify values.
	maxJSONDepth = 1000
	// memoryPoll is how often a run samples the heap.
	memoryPoll = 5 * time.Millisecond
)

// engine is the process-wide, read-only part of the sandbox: the compiled
// prelude. Runtimes are per run.
type engine struct {
	prelude []*goja.Program
}

var loadEngine = sync.OnceValues(func() (*engine, error) {
	regexp2.DefaultMatchTimeout = regexpTimeout
	e := &engine{}
	for _, f := range prelude.Files() {
		p, err := goja.Compile(f.Name, f.Source, true)
		if err != nil {
			return nil, fmt.Errorf("compiling prelude %s: %w", f.Name, err)
		}
		e.prelude = append(e.prelude, p)
	}
	return e, nil
})

// prepareFunc returns a fresh runtime for a run with these namespaces:
// one prepared ahead, or one built now.
type prepareFunc func(eng *engine, namespaces []Namespace) (*run, error)

// execute runs one attempt on a fresh runtime, on the calling goroutine.
// The runtime comes from prepared (nil: it is built here); it is taken only
// once the code compiles, so a rejected request leaves it unused.
func execute(ctx context.Context, req Request, prepared prepareFunc) Outcome {
	eng, err := loadEngine()
	if err != nil {
		return failed(newError(CodeInternal, "%v", err))
	}
	limits := DefaultLimits().Lower(req.Limits)
	if req.Host == nil {
		return failed(newError(CodeInvalidRequest, "the request has no host"))
	}
	if err := checkNamespaces(req.Namespaces); err != nil {
		return failed(err)
	}
	if n := codeBytes(req.Code, limits); n > limits.CodeBytes {
		return failed(newError(CodeCodeTooLarge, "the code is %d bytes, above the limit of %d", n, limits.CodeBytes))
	}
	if depth, line := nestingDepth(req.Code); depth > maxNesting {
		return failed(newError(CodeTooDeeplyNested, "brackets nest %d levels deep at line %d, above the limit of %d", depth, line, maxNesting))
	}
	prog, err := compileGuest(req.Code)
	if err != nil {
		return failed(syntaxError(err, req.Code))
	}
	if ctx.Err() != nil {
		return failed(newError(CodeCancelled, "the run was cancelled before it started"))
	}
	if prepared == nil {
		prepared = newShell
	}
	r, err := prepared(eng, req.Namespaces)
	if err != nil {
		return failed(newError(CodeInternal, "setting up the sandbox: %v", err))
	}
	r.begin(ctx, req, limits)
	defer r.stop()
	if err := r.adapt(); err != nil {
		return failed(newError(CodeInternal, "setting up the sandbox: %v", err))
	}
	return r.run(prog)
}

func checkNamespaces(nss []Namespace) *Error {
	seen := map[string]bool{}
	for _, ns := range nss {
		if err := CheckNamespace(ns.Name); err != nil || seen[ns.Name] {
			return newError(CodeInvalidRequest, "namespace name %q is not a free JavaScript identifier", ns.Name)
		}
		seen[ns.Name] = true
		tools := map[string]bool{}
		for _, t := range ns.Tools {
			if CheckTool(t) != nil || tools[t] {
				return newError(CodeInvalidRequest, "tool name %q in namespace %s is not a distinct JavaScript identifier", t, ns.Name)
			}
			tools[t] = true
		}
	}
	return nil
}

// run is one attempt. Its runtime and every field without a comment saying
// otherwise belong to the loop goroutine (the one calling run.run).
type run struct {
	parent     context.Context // the caller's context: done means cancelled
	ctx        context.Context // parent plus the wall limit
	cancel     context.CancelFunc
	limits     Limits
	host       Host
	namespaces []Namespace
	rt         *goja.Runtime
	rng        xoshiro
	now        time.Time // the logical clock
	replay     int       // Request.Replay
	baseline   uint64    // the live heap when the run started; set before the memory watcher starts
	allocated  int64     // bytes of typed arrays and buffers since the last checkMemory

	failure atomic.Pointer[Error] // first failure wins; set from any goroutine

	// Host operations: tool calls, search and describe. Each gets an op
	// number in issue order and results reach the guest in that order.
	// Ops wait in queue, in issue order, for one of at most MaxConcurrent
	// worker goroutines, started as needed and kept until the run stops:
	// a goroutine per op cost a start and a stack growth on every call.
	queue       opQueue
	done        chan completion // workers -> loop
	finished    chan struct{}   // closed when the loop stops reading done
	wg          sync.WaitGroup  // workers and the memory watcher
	ops         map[int]*pending
	ready       map[int]completion
	nextOp      int
	nextDeliver int
	inflight    int
	seq         int
	suspends    []*Suspend
	addresses   map[string]bool

	// Planning: the seqs whose placeholder the code received, and where
	// planning stopped. stopErr is the failure that stops the run then;
	// the outcome tells it from a real one.
	planned  []int
	planStop *PlanStop
	stopErr  *Error

	timers   timerQueue
	timerFns map[int]goja.Callable
	timerSeq int
	record   []Early // Request.Fired: where earlier attempts fired timers early
	nextRec  int     // the first entry of record not yet replayed in full
	fired    []Early // where this attempt fired timers early, in order

	logs      []string
	logBytes  int
	truncLogs bool

	compute      time.Duration
	computeTimer *time.Timer // armed for the remaining compute time during each turn
	main         *goja.Promise
	rejections   []*goja.Promise

	parse, stringify, makeToolError, describe goja.Callable
	toolErrorOf                               goja.Callable // [code, hint] of a ToolError, else undefined
	placeholder, symbolic                     goja.Callable // planning's: see 15_plan.js
	nativeParse                               goja.Callable // JSON.parse before the prelude wrapped it
	configure, installNamespaces              goja.Callable
	installed                                 []Namespace // by install, at most once
	maxArray                                  int64       // the array length cap of the native guards
}

type pending struct {
	resolve, reject func(any) error
	what            string // address, or hub.search / hub.describe / hub.read
	seq             int    // a call's or a read's; 0 for search and describe
	raw             bool   // the completion is JSON (a call or a read), not text
	bytes           int    // a call's arguments, held until it returns (opQueue)
}

type completion struct {
	op      int
	raw     json.RawMessage // a tool call's result, or a read's value
	text    string          // search or describe
	err     error
	planned bool // the host planned the call: the guest gets a placeholder
}

// newShell prepares a run before its request is known: a fresh runtime
// with the prelude and the namespaces it expects installed, which is most
// of the cost of a run that makes few calls. The prelude's natives and the
// runtime's clock and random source read the run's fields when called, so
// begin fills them in later. A shell starts no goroutine: an unused one is
// simply dropped.
func newShell(eng *engine, namespaces []Namespace) (*run, error) {
	r := &run{
		done:      make(chan completion),
		finished:  make(chan struct{}),
		ops:       map[int]*pending{},
		ready:     map[int]completion{},
		addresses: map[string]bool{},
		timerFns:  map[int]goja.Callable{},
	}
	r.rt = goja.New()
	r.rt.SetRandSource(func() float64 { return r.rng.float64() })
	r.rt.SetTimeSource(func() time.Time { return r.now })
	r.rt.SetPromiseRejectionTracker(r.trackRejection)
	err := protect(func() error {
		if err := r.setup(eng); err != nil {
			return err
		}
		return r.install(namespaces)
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// fits reports whether the shell was prepared for these namespaces.
func (r *run) fits(namespaces []Namespace) bool { return sameNamespaces(r.installed, namespaces) }

func sameNamespaces(a, b []Namespace) bool {
	return slices.EqualFunc(a, b, func(x, y Namespace) bool {
		return x.Name == y.Name && x.Open == y.Open && slices.Equal(x.Tools, y.Tools)
	})
}

// expectedNamespaces remembers the last run's namespaces, which the next
// runs will likely have: runtimes are prepared for them. A hub's change
// only when its catalog does. Safe for concurrent use.
type expectedNamespaces struct{ p atomic.Pointer[[]Namespace] }

// note records nss when they differ from what is remembered.
func (e *expectedNamespaces) note(nss []Namespace) {
	if p := e.p.Load(); p == nil || !sameNamespaces(*p, nss) {
		c := cloneNamespaces(nss)
		e.p.Store(&c)
	}
}

// get returns the remembered namespaces, nil before the first run.
func (e *expectedNamespaces) get() []Namespace {
	if p := e.p.Load(); p != nil {
		return *p
	}
	return nil
}

// cloneNamespaces copies namespaces deeply: the caller's slices may change.
func cloneNamespaces(nss []Namespace) []Namespace {
	out := make([]Namespace, len(nss))
	for i, ns := range nss {
		out[i] = Namespace{Name: ns.Name, Tools: slices.Clone(ns.Tools), Open: ns.Open}
	}
	return out
}

// install defines the namespaces as globals; a runtime gets them once.
func (r *run) install(namespaces []Namespace) error {
	rt := r.rt
	nss := make([]any, len(namespaces))
	for i, ns := range namespaces {
		tools := make([]any, len(ns.Tools))
		for j, t := range ns.Tools {
			tools[j] = t
		}
		o := rt.NewObject()
		if err := o.Set("name", ns.Name); err != nil {
			return err
		}
		if err := o.Set("tools", rt.NewArray(tools...)); err != nil {
			return err
		}
		if err := o.Set("open", ns.Open); err != nil {
			return err
		}
		nss[i] = o
	}
	if _, err := r.installNamespaces(goja.Undefined(), rt.NewArray(nss...)); err != nil {
		return err
	}
	r.installed = cloneNamespaces(namespaces)
	return nil
}

// begin gives a shell its request. From here on the wall clock runs and
// stop must be called.
func (r *run) begin(ctx context.Context, req Request, limits Limits) {
	r.parent = ctx
	r.ctx, r.cancel = context.WithTimeout(ctx, limits.Wall)
	r.limits = limits
	r.host = req.Host
	r.namespaces = req.Namespaces
	r.rng = newXoshiro(req.Seed)
	r.now = req.Clock
	r.replay = req.Replay
	r.record = req.Fired
	r.stopErr = &Error{Code: codePlanStopped, Message: "planning stopped"}
	r.queue.max = limits.MaxConcurrent
	r.queue.maxBytes = argsInFlight * limits.ArgsBytes
	r.queue.cond.L = &r.queue.mu
	for _, ns := range req.Namespaces {
		for _, t := range ns.Tools {
			r.addresses[ns.Name+"."+t] = true
		}
		if ns.Open {
			// Any tool of it: the address is "name." and a tool name.
			r.addresses[ns.Name+"."] = true
		}
	}
	r.rt.SetMaxCallStackSize(limits.StackDepth)
}

// adapt hands the run's size caps to the prelude when they are not the
// defaults it was prepared with. The shell must fit the run's namespaces.
func (r *run) adapt() error {
	if !r.fits(r.namespaces) {
		return errors.New("the runtime was prepared for other namespaces")
	}
	if r.limits.MemoryBytes == DefaultLimits().MemoryBytes {
		return nil
	}
	rt := r.rt
	caps := sizeCaps(r.limits)
	r.maxArray = caps["maxArrayLength"]
	return protect(func() error {
		obj := rt.NewObject()
		for k, v := range caps {
			if err := obj.Set(k, v); err != nil {
				return err
			}
		}
		_, err := r.configure(goja.Undefined(), obj)
		return err
	})
}

// sizeCaps are the guards' caps for a memory limit.
func sizeCaps(l Limits) map[string]int64 {
	return map[string]int64{
		"maxStringLength": l.MemoryBytes / 4,
		"maxArrayLength":  l.MemoryBytes / 16,
		"maxBytes":        l.MemoryBytes,
	}
}

// stop ends the attempt's goroutines: it cancels in-flight host calls,
// releases their senders and waits for them.
func (r *run) stop() {
	r.cancel()
	close(r.finished)
	r.queue.close()
	r.wg.Wait()
}

// fail records the first failure and interrupts the runtime. Safe from any
// goroutine.
func (r *run) fail(e *Error) {
	if r.failure.CompareAndSwap(nil, e) {
		r.rt.Interrupt(e)
	}
}

func (r *run) ctxError() *Error {
	if r.parent.Err() != nil {
		return newError(CodeCancelled, "the run was cancelled")
	}
	return newError(CodeWallLimit, "the run exceeded its wall time of %s", r.limits.Wall)
}

func (r *run) run(prog *goja.Program) Outcome {
	stopWall := context.AfterFunc(r.ctx, func() { r.fail(r.ctxError()) })
	defer stopWall()
	r.wg.Add(1)
	r.baseline = heapLive()
	go r.watchMemory(r.baseline)

	var mainFn goja.Callable
	ok := r.turn(func() error {
		v, err := r.rt.RunProgram(prog)
		if err != nil {
			return err
		}
		fn, ok := goja.AssertFunction(v)
		if !ok {
			return errors.New("the guest wrapper is not a function")
		}
		mainFn = fn
		return nil
	})
	if ok {
		r.turn(func() error {
			v, err := mainFn(goja.Undefined())
			if err != nil {
				return err
			}
			p, ok := v.Export().(*goja.Promise)
			if !ok {
				return errors.New("the guest wrapper did not return a promise")
			}
			r.main = p
			return nil
		})
	}
	if r.failure.Load() == nil {
		r.loop()
	}
	return r.outcome()
}

// setup installs the bridge and runs the prelude with the default caps.
func (r *run) setup(eng *engine) error {
	rt := r.rt
	if err := r.guardRegexp(); err != nil {
		return err
	}
	bridge := rt.NewObject()
	natives := map[string]func(goja.FunctionCall) goja.Value{
		"call":       r.jsCall,
		"search":     r.jsSearch,
		"describe":   r.jsDescribe,
		"read":       r.jsRead,
		"log":        r.jsLog,
		"setTimer":   r.jsSetTimer,
		"clearTimer": r.jsClearTimer,
		"randomU32":  r.jsRandomU32,
		"limit":      r.jsLimit,
		"jsonDepth":  r.jsJSONDepth,
		"utf8Encode": r.jsUTF8Encode,
		"utf8Decode": r.jsUTF8Decode,
		"atob":       r.jsAtob,
		"allocated":  r.jsAllocated,
		"btoa":       r.jsBtoa,
		"planStop":   r.jsPlanStop,

		"guardLengths": r.jsGuardLengths,
	}
	for name, fn := range natives {
		if err := bridge.Set(name, named(rt, name, 0, fn)); err != nil {
			return err
		}
	}
	cfgValue := rt.NewObject()
	cfg := sizeCaps(DefaultLimits())
	r.maxArray = cfg["maxArrayLength"]
	cfg["maxJSONDepth"] = maxJSONDepth
	cfg["maxTimerDelay"] = maxTimerDelay
	for k, v := range cfg {
		if err := cfgValue.Set(k, v); err != nil {
			return err
		}
	}
	nativeParse, ok := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	if !ok {
		return errors.New("JSON.parse is not a function")
	}
	r.nativeParse = nativeParse
	internal := rt.NewObject()
	for _, p := range eng.prelude {
		v, err := rt.RunProgram(p)
		if err != nil {
			return err
		}
		fn, ok := goja.AssertFunction(v)
		if !ok {
			return errors.New("a prelude file is not a function expression")
		}
		if _, err := fn(goja.Undefined(), bridge, cfgValue, internal); err != nil {
			return err
		}
	}
	for name, dst := range map[string]*goja.Callable{"parse": &r.parse, "stringify": &r.stringify, "makeToolError": &r.makeToolError, "describe": &r.describe, "toolErrorOf": &r.toolErrorOf,
		"configure": &r.configure, "installNamespaces": &r.installNamespaces, "placeholder": &r.placeholder, "symbolic": &r.symbolic} {
		fn, ok := goja.AssertFunction(internal.Get(name))
		if !ok {
			return fmt.Errorf("the prelude did not provide internal.%s", name)
		}
		*dst = fn
	}
	return nil
}
