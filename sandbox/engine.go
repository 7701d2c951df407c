package sandbox

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
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
	if len(req.Code) > limits.CodeBytes {
		return failed(newError(CodeCodeTooLarge, "the code is %d bytes, above the limit of %d", len(req.Code), limits.CodeBytes))
	}
	if depth, line := nestingDepth(req.Code); depth > maxNesting {
		return failed(newError(CodeTooDeeplyNested, "brackets nest %d levels deep at line %d, above the limit of %d", depth, line, maxNesting))
	}
	prog, err := goja.Compile(guestFile, wrapGuest(req.Code), true)
	if err != nil {
		return failed(syntaxError(err))
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

// reserved names cannot be namespaces: they are the sandbox's own globals
// or JavaScript's.
var reserved = map[string]bool{
	"hub": true, "console": true, "ToolError": true, "crypto": true, "Date": true, "Math": true, "JSON": true,
	"Object": true, "Array": true, "String": true, "Number": true, "Boolean": true, "Symbol": true, "Promise": true,
	"Error": true, "TypeError": true, "RangeError": true, "Reflect": true, "Proxy": true, "Map": true, "Set": true,
	"WeakMap": true, "WeakSet": true, "RegExp": true, "BigInt": true, "globalThis": true, "Function": true, "eval": true,
	"undefined": true, "NaN": true, "Infinity": true, "setTimeout": true, "clearTimeout": true, "structuredClone": true,
	"TextEncoder": true, "TextDecoder": true, "atob": true, "btoa": true, "arguments": true,
}

var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func checkNamespaces(nss []Namespace) *Error {
	seen := map[string]bool{}
	for _, ns := range nss {
		if !identRe.MatchString(ns.Name) || reserved[ns.Name] || seen[ns.Name] {
			return newError(CodeInvalidRequest, "namespace name %q is not a free JavaScript identifier", ns.Name)
		}
		seen[ns.Name] = true
		tools := map[string]bool{}
		for _, t := range ns.Tools {
			if !identRe.MatchString(t) || tools[t] {
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

	timers   timerQueue
	timerFns map[int]goja.Callable
	timerSeq int

	logs      []string
	logBytes  int
	truncLogs bool

	compute      time.Duration
	computeTimer *time.Timer // armed for the remaining compute time during each turn
	main         *goja.Promise
	rejections   []*goja.Promise

	parse, stringify, makeToolError, describe goja.Callable
	nativeParse                               goja.Callable // JSON.parse before the prelude wrapped it
	configure, installNamespaces              goja.Callable
	installed                                 []Namespace // by install, at most once
	maxArray                                  int64       // the array length cap of the native guards
}

type pending struct {
	resolve, reject func(any) error
	call            *Call  // nil for search and describe
	what            string // address, or hub.search / hub.describe
}

type completion struct {
	op   int
	raw  json.RawMessage // a tool call's result
	text string          // search or describe
	err  error
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
	return slices.EqualFunc(a, b, func(x, y Namespace) bool { return x.Name == y.Name && slices.Equal(x.Tools, y.Tools) })
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
		out[i] = Namespace{Name: ns.Name, Tools: slices.Clone(ns.Tools)}
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
	r.queue.max = limits.MaxConcurrent
	r.queue.cond.L = &r.queue.mu
	for _, ns := range req.Namespaces {
		for _, t := range ns.Tools {
			r.addresses[ns.Name+"."+t] = true
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
	go r.watchMemory(heapLive())

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
		"log":        r.jsLog,
		"setTimer":   r.jsSetTimer,
		"clearTimer": r.jsClearTimer,
		"randomU32":  r.jsRandomU32,
		"limit":      r.jsLimit,
		"jsonDepth":  r.jsJSONDepth,
		"utf8Encode": r.jsUTF8Encode,
		"utf8Decode": r.jsUTF8Decode,
		"atob":       r.jsAtob,
		"btoa":       r.jsBtoa,

		"guardLengths": r.jsGuardLengths,
	}
	for name, fn := range natives {
		if err := bridge.Set(name, fn); err != nil {
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
	for name, dst := range map[string]*goja.Callable{"parse": &r.parse, "stringify": &r.stringify, "makeToolError": &r.makeToolError, "describe": &r.describe,
		"configure": &r.configure, "installNamespaces": &r.installNamespaces} {
		fn, ok := goja.AssertFunction(internal.Get(name))
		if !ok {
			return fmt.Errorf("the prelude did not provide internal.%s", name)
		}
		*dst = fn
	}
	return nil
}

// jsGuardLengths(proto, names) replaces each named method of proto with
// a native guard that fails the run with memory_limit when the receiver's
// length is above the array cap, and calls the method otherwise. It is the
// prelude's guard for the Array methods that need nothing more; a native
// costs a prepared runtime a fraction of what a JavaScript closure does,
// and a call through it less too.
func (r *run) jsGuardLengths(c goja.FunctionCall) goja.Value {
	rt := r.rt
	proto := c.Argument(0).ToObject(rt)
	var names []string
	if err := rt.ExportTo(c.Argument(1), &names); err != nil {
		panic(rt.NewTypeError("guardLengths: the names must be strings"))
	}
	for _, name := range names {
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			panic(rt.NewTypeError("guardLengths: %s is not a function", name))
		}
		what := "Array.prototype." + name
		guard := rt.ToValue(func(c goja.FunctionCall) goja.Value {
			if n := r.lengthOf(c.This); n > r.maxArray {
				r.fail(newError(CodeMemoryLimit, "%s would hold %d elements, above the sandbox cap of %d", what, n, r.maxArray))
				return goja.Undefined() // the interrupt stops the guest before it reads this
			}
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
		if err := proto.DefineDataProperty(name, guard, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			panic(err)
		}
	}
	return goja.Undefined()
}

// lengthOf is ToLength(v.length), 0 for undefined and null, as the guards
// read it.
func (r *run) lengthOf(v goja.Value) int64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	n := v.ToObject(r.rt).Get("length")
	if n == nil {
		return 0
	}
	f := n.ToFloat()
	switch {
	case f != f || f <= 0:
		return 0
	case f >= 1<<53-1:
		return 1<<53 - 1
	}
	return int64(f)
}

// guardRegexp wraps RegExp.prototype.exec and test so that a backtracking
// match stopped by regexp2's timeout fails the run with regexp_timeout
// instead of reading as "no match". Once exec is replaced, goja routes
// match, matchAll, replace, search and split through it; test reads the
// pattern directly, so it is wrapped too.
func (r *run) guardRegexp() error {
	rt := r.rt
	proto := rt.Get("RegExp").ToObject(rt).Get("prototype").ToObject(rt)
	for _, name := range []string{"exec", "test"} {
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			return fmt.Errorf("RegExp.prototype.%s is not a function", name)
		}
		fn := rt.ToValue(func(c goja.FunctionCall) goja.Value {
			start := time.Now()
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			if (goja.IsNull(v) || v == goja.Value(rt.ToValue(false))) && time.Since(start) >= regexpTimeout*9/10 {
				// More specific than the compute limit that may have fired
				// while the match ran.
				e := newError(CodeRegexpTimeout, "a regular expression match ran past %s", regexpTimeout)
				if cur := r.failure.Load(); cur != nil && cur.Code == CodeComputeLimit {
					r.failure.CompareAndSwap(cur, e)
				}
				r.fail(e)
			}
			return v
		}).ToObject(rt)
		// The flags are writable, configurable, enumerable, in that order.
		if err := fn.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if err := fn.DefineDataProperty("length", rt.ToValue(1), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if err := proto.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

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

// enginePanic is a Go panic out of the runtime; the runtime is discarded.
type enginePanic struct{ value any }

func (p *enginePanic) Error() string { return fmt.Sprintf("engine panic: %v", p.value) }

// protect calls f, turning panics out of goja into errors.
func protect(f func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			switch v := x.(type) {
			case *goja.InterruptedError:
				err = v
			case *goja.StackOverflowError:
				err = v
			case *goja.Exception:
				err = v
			default:
				err = &enginePanic{value: x}
			}
		}
	}()
	return f()
}

// failFrom records the failure behind an error out of the runtime.
func (r *run) failFrom(err error) {
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var ex *goja.Exception
	var panicked *enginePanic
	switch {
	case errors.As(err, &interrupted):
		if e, ok := interrupted.Value().(*Error); ok {
			r.fail(e)
		} else {
			r.fail(newError(CodeInternal, "the runtime was interrupted: %v", interrupted.Value()))
		}
	case errors.As(err, &overflow):
		r.fail(newError(CodeStackLimit, "the call stack exceeded %d frames", r.limits.StackDepth))
	case errors.As(err, &ex) && r.describe == nil:
		// The prelude itself failed.
		r.fail(newError(CodeInternal, "setting up the sandbox: %s", ex.Error()))
	case errors.As(err, &ex):
		r.fail(newError(CodeRuntimeError, "Uncaught %s", r.describeValue(ex.Value())))
	case errors.As(err, &panicked):
		r.fail(newError(CodeInternal, "the engine failed on this code (%v)", panicked.value))
	default:
		r.fail(newError(CodeInternal, "%v", err))
	}
}

// describeValue formats a thrown value with its guest stack frames. It runs
// guest code (getters, toString), so it runs timed.
func (r *run) describeValue(v goja.Value) string {
	var text string
	err := r.timed(func() error {
		s, err := r.describe(goja.Undefined(), v)
		if err != nil {
			return err
		}
		text = s.String()
		return nil
	})
	if err != nil || text == "" {
		return "exception (it could not be formatted)"
	}
	return cleanStack(text)
}

var frameRe = regexp.MustCompile(`^\s*at (?:(.*?) \()?` + regexp.QuoteMeta(guestFile) + `:(\d+):(\d+)(?:\(\d+\))?\)?$`)

// cleanStack keeps the message and the guest's own frames, with lines
// counted in the person's code.
func cleanStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	frames := 0
	inStack := false
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "at ") {
			inStack = true
			m := frameRe.FindStringSubmatch(l)
			if m == nil || frames >= 5 {
				continue
			}
			line, _ := strconv.Atoi(m[2])
			name := m[1]
			if name == "" || name == "<anonymous>" {
				out = append(out, fmt.Sprintf("    at line %d:%s", guestLine(line), m[3]))
			} else {
				out = append(out, fmt.Sprintf("    at %s (line %d:%s)", name, guestLine(line), m[3]))
			}
			frames++
			continue
		}
		if inStack {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
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
// is over: the main promise settled (or a call suspended) and no host
// operation is in flight.
func (r *run) loop() {
	for r.failure.Load() == nil {
		if c, ok := r.ready[r.nextDeliver]; ok {
			delete(r.ready, r.nextDeliver)
			r.nextDeliver++
			r.deliver(c)
			continue
		}
		if r.inflight > 0 {
			select {
			case c := <-r.done:
				r.arrive(c)
			case <-r.ctx.Done():
				r.fail(r.ctxError())
			}
			continue
		}
		if len(r.suspends) > 0 || r.main.State() != goja.PromiseStatePending {
			return
		}
		if t, ok := r.popTimer(); ok {
			fn := r.timerFns[t.id]
			delete(r.timerFns, t.id)
			if t.due.After(r.now) {
				r.now = t.due
			}
			r.turn(func() error {
				_, err := fn(goja.Undefined())
				return err
			})
			continue
		}
		r.fail(newError(CodeUnsettled, "the code awaits a promise that nothing will settle: no tool call or timer is pending"))
	}
}

// arrive records a finished host operation.
func (r *run) arrive(c completion) {
	r.inflight--
	var s *Suspend
	if errors.As(c.err, &s) {
		p := r.ops[c.op]
		if p != nil && p.call != nil {
			if s.Seq == 0 {
				s.Seq = p.call.Seq
			}
			if s.Address == "" {
				s.Address = p.call.Address
			}
			// The op never becomes ready, so nothing after it is delivered.
			r.suspends = append(r.suspends, s)
			return
		}
		c.err = fmt.Errorf("lookup suspended: %w", c.err)
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
		if p.call == nil {
			return p.resolve(r.rt.ToValue(c.text))
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

// startOp issues a host operation and returns the guest's promise for it.
// The operation runs on a worker goroutine once one is free; its result
// goes back to the loop through r.done.
func (r *run) startOp(what string, call *Call, do func(ctx context.Context) completion) goja.Value {
	promise, resolve, reject := r.rt.NewPromise()
	id := r.nextOp
	r.nextOp++
	r.ops[id] = &pending{resolve: resolve, reject: reject, call: call, what: what}
	r.inflight++
	if r.queue.push(queuedOp{id: id, do: do}) {
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
		select {
		case r.done <- c:
		case <-r.finished:
		}
	}
}

type queuedOp struct {
	id int
	do func(ctx context.Context) completion
}

// opQueue holds operations waiting for a worker, oldest first.
type opQueue struct {
	mu      sync.Mutex
	cond    sync.Cond // L is mu; signalled when an op is pushed or the queue closes
	ops     []queuedOp
	max     int // workers at most
	workers int // started
	idle    int // waiting in pop
	closed  bool
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
	for len(q.ops) == 0 && !q.closed {
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
	return op, true
}

// close wakes every waiting worker; they drain what is left and exit.
func (q *opQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// safeDo turns a panic in the host into a host error.
func safeDo(ctx context.Context, do func(context.Context) completion) (c completion) {
	defer func() {
		if x := recover(); x != nil {
			c = completion{err: fmt.Errorf("the host panicked: %v", x)}
		}
	}()
	return do(ctx)
}

func argString(c goja.FunctionCall, i int) (string, bool) {
	s, ok := c.Argument(i).Export().(string)
	return s, ok
}

func (r *run) jsCall(c goja.FunctionCall) goja.Value {
	address, ok1 := argString(c, 0)
	args, ok2 := argString(c, 1)
	connection, ok3 := argString(c, 2)
	if !ok1 || !ok2 || !ok3 || !r.addresses[address] || !json.Valid([]byte(args)) {
		panic(r.rt.NewTypeError("invalid tool call"))
	}
	if r.seq >= r.limits.MaxCalls {
		r.fail(newError(CodeMaxCalls, "call %d (%s) is above the limit of %d tool calls per run", r.seq+1, address, r.limits.MaxCalls))
		return goja.Undefined()
	}
	r.seq++
	call := &Call{Seq: r.seq, Address: address, Args: json.RawMessage(args), Connection: connection}
	host := r.host
	return r.startOp(address, call, func(ctx context.Context) completion {
		raw, err := host.Call(ctx, *call)
		if err == nil && !json.Valid(raw) {
			err = &ToolError{Code: CodeHostError, Message: "the tool returned a result that is not JSON", Address: call.Address}
		}
		return completion{raw: raw, err: err}
	})
}

func (r *run) jsSearch(c goja.FunctionCall) goja.Value {
	return r.textOp(c, "hub.search", "the query", Host.Search)
}

func (r *run) jsDescribe(c goja.FunctionCall) goja.Value {
	return r.textOp(c, "hub.describe", "the target", Host.Describe)
}

// textOp starts hub.search or hub.describe: one string argument, plain
// text back.
func (r *run) textOp(c goja.FunctionCall, what, arg string, do func(Host, context.Context, string) (string, error)) goja.Value {
	s, ok := argString(c, 0)
	if !ok {
		panic(r.rt.NewTypeError(what + ": " + arg + " must be a string"))
	}
	host := r.host
	return r.startOp(what, nil, func(ctx context.Context) completion {
		text, err := do(host, ctx, s)
		return completion{text: text, err: err}
	})
}

func (r *run) jsLog(c goja.FunctionCall) goja.Value {
	level, _ := argString(c, 0)
	text, _ := argString(c, 1)
	switch level {
	case "warn", "error":
		text = level + ": " + text
	}
	r.addLog(text)
	return goja.Undefined()
}

// addLog keeps log lines while they fit the inline budget.
func (r *run) addLog(text string) {
	budget := r.limits.InlineResultBytes
	if r.truncLogs {
		return
	}
	if r.logBytes+len(text) > budget {
		r.truncLogs = true
		if room := budget - r.logBytes; room > 64 {
			text = cutUTF8(text, room-len("…")) + "…"
			r.logs = append(r.logs, text)
			r.logBytes += len(text)
		}
		return
	}
	r.logs = append(r.logs, text)
	r.logBytes += len(text)
}

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

func (r *run) jsRandomU32(goja.FunctionCall) goja.Value {
	return r.rt.ToValue(uint32(r.rng.next() >> 32))
}

func (r *run) jsLimit(c goja.FunctionCall) goja.Value {
	code, _ := argString(c, 0)
	msg, _ := argString(c, 1)
	switch code {
	case CodeMemoryLimit, CodeTimerLimit:
		r.fail(newError(code, "%s", msg))
	default:
		panic(r.rt.NewTypeError("invalid limit"))
	}
	return goja.Undefined()
}

func (r *run) jsJSONDepth(c goja.FunctionCall) goja.Value {
	s, _ := argString(c, 0)
	return r.rt.ToValue(jsonDepth(s))
}

// jsonDepth returns the deepest nesting of [ and { in JSON text, outside
// strings.
func jsonDepth[T ~string | ~[]byte](s T) int {
	depth, maxDepth := 0, 0
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ']', '}':
			depth--
		}
	}
	return maxDepth
}

// outcome builds the Outcome once the loop is over.
func (r *run) outcome() Outcome {
	out := Outcome{Calls: r.seq}
	var result json.RawMessage
	failure := r.failure.Load()
	switch {
	case failure != nil:
	case len(r.suspends) > 0:
	case r.main.State() == goja.PromiseStateRejected:
		r.fail(newError(CodeRuntimeError, "Uncaught %s", r.describeValue(r.main.Result())))
	default:
		v := r.main.Result()
		if !goja.IsUndefined(v) {
			err := r.timed(func() error {
				s, err := r.stringify(goja.Undefined(), v)
				if err != nil {
					return err
				}
				if !goja.IsUndefined(s) {
					result = json.RawMessage(s.String())
				}
				return nil
			})
			if err != nil {
				var ex *goja.Exception
				if errors.As(err, &ex) {
					r.fail(newError(CodeResultNotJSON, "the returned value cannot be turned into JSON: %s", r.describeValue(ex.Value())))
				} else {
					r.failFrom(err)
				}
			}
		}
	}
	out.Compute = r.compute
	failure = r.failure.Load()
	switch {
	case failure != nil:
		out.Status = StatusFailed
		if failure.Code == CodeCancelled {
			out.Status = StatusCancelled
		}
		out.Error = failure
		result = nil
	case len(r.suspends) > 0:
		out.Status = StatusSuspended
		out.Suspends = sortSuspends(r.suspends)
		result = nil
	default:
		out.Status = StatusCompleted
	}
	out.Result, out.Logs, out.Truncated = fitBudget(result, r.logs, r.limits.InlineResultBytes)
	out.Truncated.Logs = out.Truncated.Logs || r.truncLogs
	return out
}

func sortSuspends(s []*Suspend) []*Suspend {
	out := append([]*Suspend(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Seq < out[j-1].Seq; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// fitBudget keeps the result and the logs within budget bytes together.
// The result comes first; a result too large on its own becomes a JSON
// string holding the start of its JSON text.
func fitBudget(result json.RawMessage, logs []string, budget int) (json.RawMessage, []string, Truncated) {
	var tr Truncated
	if len(result) > budget {
		tr.Result = true
		result = preview(result, budget*3/4)
	}
	room := budget - len(result)
	var kept []string
	for i, l := range logs {
		if len(l) > room {
			tr.Logs = true
			if room > 64 {
				kept = append(kept, cutUTF8(l, room-len("…"))+"…")
			}
			_ = i
			break
		}
		kept = append(kept, l)
		room -= len(l)
	}
	return result, kept, tr
}

// preview returns a JSON string of at most max bytes holding the start of
// raw (of the string itself when raw is a JSON string) and a marker.
func preview(raw json.RawMessage, max int) json.RawMessage {
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	}
	const marker = "… (truncated)"
	n := max - len(marker) - 2
	for n > 0 {
		b, _ := json.Marshal(cutUTF8(text, n) + marker)
		if len(b) <= max {
			return b
		}
		n -= len(b) - max
	}
	b, _ := json.Marshal("… (truncated)")
	return b
}

// cutUTF8 returns at most n bytes of s, not splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n < 0 {
		return ""
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
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

// xoshiro is xoshiro256**, seeded through splitmix64.
type xoshiro struct{ s [4]uint64 }

func newXoshiro(seed uint64) xoshiro {
	var x xoshiro
	for i := range x.s {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		x.s[i] = z ^ (z >> 31)
	}
	return x
}

func rotl(x uint64, k uint) uint64 { return (x << k) | (x >> (64 - k)) }

func (x *xoshiro) next() uint64 {
	s := &x.s
	result := rotl(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = rotl(s[3], 45)
	return result
}

func (x *xoshiro) float64() float64 { return float64(x.next()>>11) / (1 << 53) }
