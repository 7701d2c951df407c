package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// PoolOptions configures NewPool.
type PoolOptions struct {
	// Command is the argv that starts a worker: normally this binary with
	// its hidden worker subcommand, which calls ServeWorker.
	Command []string
	// Size is the number of workers kept started; 0 means 2.
	Size int
	// MaxSize bounds the workers at once, busy or idle; 0 means
	// DefaultMaxWorkers, and it is never below Size. Runs waiting on tool
	// calls or timers hold their workers: a run that starts waiting on a
	// tool call while every worker is held starts a spare one for the
	// next run, and a run that finds none free for growAfter starts
	// another, up to MaxSize. Workers beyond Size retire once they are
	// idle and Size others are too. Each worker has its own memory limits.
	MaxSize int
	// Env is the workers' whole environment besides TZ=UTC. Workers do not
	// inherit the parent's environment.
	Env []string
	// RunsPerWorker is how many runs one worker serves before it is
	// replaced; 0 means DefaultRunsPerWorker, 1 a fresh process for every
	// run. Each run gets a fresh runtime whatever the worker. A worker is
	// replaced early after any run that did not complete, fail with a
	// guest-level error or suspend (a limit, a crash, a cancellation).
	RunsPerWorker int
	// HardMemoryBytes is the data segment limit (RLIMIT_DATA, Linux only)
	// set on each worker; 0 means 8 × DefaultLimits().MemoryBytes.
	HardMemoryBytes int64
}

// DefaultMaxWorkers is the default bound on worker processes at once.
// A worker waiting on a tool call costs its memory (tens of megabytes)
// and no CPU.
const DefaultMaxWorkers = 16

// DefaultRunsPerWorker is how many runs a worker serves by default.
// Starting a worker process takes about 25 ms, ten times a short run: a
// worker per run would make runs that come in quick succession (several
// clients, a model retrying) wait for processes. Runs share nothing in a
// worker but the process: each has a runtime of its own, prepared after
// the run before, and a worker that hit a limit or crashed is replaced.
// The bound retires a worker before whatever a long life leaves in a Go
// process (a fragmented heap, caches) adds up.
const DefaultRunsPerWorker = 100

const (
	// killGrace is how long past its wall limit a worker may take to report
	// before it is killed, and how long a cancelled run may take to stop.
	killGrace = 2 * time.Second
	// startTimeout bounds a worker's start, prelude compile included.
	startTimeout = 30 * time.Second
)

// NewPool starts opts.Size worker processes and returns a driver that runs
// each attempt in one of them. NewPool returns once every worker has
// reported ready, or with the first start error.
func NewPool(opts PoolOptions) (Driver, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("sandbox pool: no worker command")
	}
	if opts.Size <= 0 {
		opts.Size = 2
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxWorkers
	}
	if opts.MaxSize < opts.Size {
		opts.MaxSize = opts.Size
	}
	if opts.RunsPerWorker <= 0 {
		opts.RunsPerWorker = DefaultRunsPerWorker
	}
	if opts.HardMemoryBytes <= 0 {
		opts.HardMemoryBytes = 8 * DefaultLimits().MemoryBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &pool{opts: opts, ctx: ctx, cancel: cancel, idle: make(chan *worker, opts.MaxSize), live: opts.Size}
	errs := make(chan error, opts.Size)
	for range opts.Size {
		go func() {
			w, err := p.start()
			if err == nil {
				p.idle <- w
			}
			errs <- err
		}()
	}
	var first error
	for range opts.Size {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		p.Close()
		return nil, first
	}
	return p, nil
}

// pool keeps opts.Size workers, and up to opts.MaxSize while runs hold
// them: idle ones in idle, busy ones owned by the Run using them. A
// retired worker is replaced by a goroutine tracked in wg. Every worker
// not held by a run is idle or on its way there (starting, or preparing
// its next runtime), so a run waiting for a worker gets one of those,
// and a new one is started when there are more runs waiting than such
// workers.
type pool struct {
	opts    PoolOptions
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc
	idle    chan *worker
	expect  expectedNamespaces // for workers to prepare
	restock restock            // paces replacements and reuse
	wg      sync.WaitGroup     // runs and replacement starts
	mu      sync.Mutex
	closed  bool
	live    int // workers running or starting, at most opts.MaxSize
	held    int // workers taken by a Run
	waiters int // Runs waiting for a worker
}

// Run takes an idle worker, runs the attempt in it and returns, replaces
// or retires the worker. When every worker is held by a run it waits for
// one, and starts one more after growAfter, up to MaxSize. Safe for
// concurrent use.
func (p *pool) Run(ctx context.Context, req Request) Outcome {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return failed(newError(CodeCancelled, "the driver is closed"))
	}
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()

	// Checked here too: workers prepare runtimes for the namespaces noted,
	// and namespaces that cannot be installed would fail every start.
	if err := checkNamespaces(req.Namespaces); err != nil {
		return failed(err)
	}
	p.expect.note(req.Namespaces)
	p.restock.started()
	w, fail := p.take(ctx)
	if w == nil {
		return fail
	}
	ctx, stop := mergeCancel(ctx, p.ctx)
	defer stop()
	o, healthy := w.serve(ctx, req, p.spare)
	if ctx.Err() != nil && o.Status == StatusFailed {
		// The run was cancelled (or the pool closed) while it ran: whatever
		// the guest made of the calls that failed with it, the outcome is
		// the cancellation.
		calls := o.Calls
		o = failed(newError(CodeCancelled, "the run was cancelled"))
		o.Calls = calls
	}
	w.runs++
	p.mu.Lock()
	p.held--
	surplus := p.surplusLocked()
	p.mu.Unlock()
	switch {
	case surplus:
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w.kill()
		}()
	case healthy && w.runs < p.opts.RunsPerWorker && p.ctx.Err() == nil:
		p.reuse(w)
	default:
		p.retire(w)
	}
	return o
}

// growAfter is how long a run waits for a worker before the pool grows
// for it. Short runs free their worker within a few milliseconds, sooner
// than a new process starts (tens of milliseconds of CPU): a burst of them
// is served by the workers there are. A run still waiting after this is
// behind runs that wait on tools or timers, or compute for long.
const growAfter = 25 * time.Millisecond

// take returns an idle worker, held by the caller, or the Outcome of a run
// that could not have one. When none is idle it waits; after growAfter it
// starts another worker if more runs wait than there are workers on their
// way to idle, and goes on waiting.
func (p *pool) take(ctx context.Context) (*worker, Outcome) {
	select {
	case w := <-p.idle:
		p.mu.Lock()
		p.held++
		p.mu.Unlock()
		return w, Outcome{}
	default:
	}
	p.mu.Lock()
	p.waiters++
	p.mu.Unlock()
	grow := time.NewTimer(growAfter)
	defer grow.Stop()
	var w *worker
	var o Outcome
	for w == nil && o.Status == "" {
		select {
		case w = <-p.idle:
		case <-grow.C:
			p.mu.Lock()
			for p.waiters+p.held > p.live && p.growLocked() {
			}
			p.mu.Unlock()
		case <-ctx.Done():
			o = failed(newError(CodeCancelled, "the run was cancelled while waiting for a worker"))
		case <-p.ctx.Done():
			o = failed(newError(CodeCancelled, "the driver is closed"))
		}
	}
	p.mu.Lock()
	p.waiters--
	if w != nil {
		p.held++
	}
	p.mu.Unlock()
	return w, o
}

// spare is called when a run first waits on the host: a run waiting on a
// tool call holds its worker, so when every worker is held one more is
// started for the next run. Safe for concurrent use.
func (p *pool) spare() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+p.waiters >= p.live {
		p.growLocked()
	}
}

// growLocked starts one more worker in the background, unless the pool is
// at MaxSize or closed, and reports whether it did. A failed start gives
// its place back: the runs waiting take the next free worker instead. The
// caller holds mu.
func (p *pool) growLocked() bool {
	if p.closed || p.live >= p.opts.MaxSize {
		return false
	}
	p.live++
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w, err := p.start()
		if err != nil {
			p.mu.Lock()
			p.live--
			p.mu.Unlock()
			return
		}
		p.park(w)
	}()
	return true
}

// surplusLocked reports whether a worker no run holds should retire
// without a replacement, and then counts it as gone: the pool is above
// Size, Size workers are idle and no run waits. The caller holds mu.
func (p *pool) surplusLocked() bool {
	if p.live > p.opts.Size && len(p.idle) >= p.opts.Size && p.waiters == 0 {
		p.live--
		return true
	}
	return false
}

// park makes a ready worker idle, or kills it when it is surplus.
func (p *pool) park(w *worker) {
	p.mu.Lock()
	surplus := p.ctx.Err() != nil || p.surplusLocked()
	if !surplus {
		p.idle <- w // never blocks: idle holds MaxSize, more than live
	}
	p.mu.Unlock()
	if surplus {
		w.kill()
	}
}

// retire kills w and starts its replacement in the background: reaping a
// process takes milliseconds the run's caller need not wait for.
func (p *pool) retire(w *worker) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w.kill()
		p.replace()
	}()
}

// prepareMessage asks a worker to prepare a runtime for the namespaces of
// the last run, and to collect its garbage first when collect is set.
func (p *pool) prepareMessage(collect bool) message {
	return message{T: msgPrepare, Namespaces: p.expect.get(), Collect: collect}
}

// reuse asks w to prepare its next runtime and returns it to the idle
// workers once it is ready, so that an idle worker is always one that can
// start at once. The request is paced by restock like a replacement; the
// worker collects its garbage first only when the pool is quiet, as a
// collection is about a millisecond of CPU that runs in quick succession
// need for themselves (the Go runtime collects as it goes anyway).
func (p *pool) reuse(w *worker) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		quiet := p.restock.wait(p.ctx, func() int { return len(p.idle) })
		if err := w.conn.send(p.prepareMessage(quiet)); err != nil {
			w.kill()
			p.replace()
			return
		}
		timer := time.NewTimer(startTimeout)
		defer timer.Stop()
		select {
		case m, ok := <-w.msgs:
			if ok && m.T == msgReady {
				p.park(w)
				return
			}
		case <-timer.C:
		case <-p.ctx.Done():
		}
		w.kill()
		p.replace()
	}()
}

// replace starts a worker in the background to take a retired one's
// place, paced by restock while another worker is idle.
func (p *pool) replace() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.restock.wait(p.ctx, func() int { return len(p.idle) })
		for p.ctx.Err() == nil {
			w, err := p.start()
			if err == nil {
				p.park(w)
				return
			}
			// A failed start is retried after a pause, until Close.
			select {
			case <-time.After(time.Second):
			case <-p.ctx.Done():
			}
		}
	}()
}

// Close kills idle workers, cancels runs in progress and waits for them and
// for replacement starts to end.
func (p *pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	for {
		select {
		case w := <-p.idle:
			w.kill()
		default:
			return nil
		}
	}
}

// worker is one child process. Its reader goroutine owns stdout and ends
// when the process closes it.
type worker struct {
	cmd    *exec.Cmd
	conn   *conn
	stdin  io.Closer
	stderr *tailBuffer
	msgs   chan message  // from the reader goroutine; closed on EOF
	dead   chan struct{} // closed by kill
	exited chan struct{} // closed once the process is reaped
	runs   int
	once   sync.Once
}

func (p *pool) start() (*worker, error) {
	cmd := exec.Command(p.opts.Command[0], p.opts.Command[1:]...)
	cmd.Env = append([]string{"TZ=UTC"}, p.opts.Env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, stderr: &tailBuffer{max: 4 << 10}, msgs: make(chan message, 16), dead: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting sandbox worker: %w", err)
	}
	if err := limitWorker(cmd.Process.Pid, p.opts.HardMemoryBytes); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("limiting sandbox worker: %w", err)
	}
	w.conn = newConn(stdout, stdin)
	// A new process has its start-up garbage to collect before its first run.
	if err := w.conn.send(p.prepareMessage(true)); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("starting sandbox worker: %w", err)
	}
	readerDone := make(chan struct{})
	go func() { // reader: exits when stdout ends or the worker is killed
		defer close(readerDone)
		defer close(w.msgs)
		for {
			m, err := w.conn.recv()
			if err != nil {
				return
			}
			select {
			case w.msgs <- m:
			case <-w.dead:
				return
			}
		}
	}()
	go func() { // reaper: exits once the process is reaped
		<-readerDone
		_ = cmd.Wait()
		close(w.exited)
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case m, ok := <-w.msgs:
		if ok && m.T == msgReady {
			return w, nil
		}
		w.kill()
		return nil, fmt.Errorf("sandbox worker did not start: %s", w.stderr.String())
	case <-timer.C:
		w.kill()
		return nil, errors.New("sandbox worker did not report ready in time")
	case <-p.ctx.Done():
		w.kill()
		return nil, p.ctx.Err()
	}
}

// kill ends the process and waits until it is reaped.
func (w *worker) kill() {
	w.once.Do(func() {
		_ = w.stdin.Close()
		_ = w.cmd.Process.Kill()
		close(w.dead)
	})
	<-w.exited
}

// serve runs one attempt in the worker. healthy reports whether the worker
// can take another run. waiting, when not nil, is called the first time
// the run waits on the host.
func (w *worker) serve(ctx context.Context, req Request, waiting func()) (Outcome, bool) {
	limits := DefaultLimits().Lower(req.Limits)
	host := req.Host
	wire := req
	wire.Host = nil
	wire.Limits = limits
	if host == nil {
		return failed(newError(CodeInvalidRequest, "the request has no host")), true
	}
	if err := w.conn.send(message{T: msgRun, Run: &wire}); err != nil {
		return w.crashed("sending the run"), false
	}

	hostCtx, cancelHost := context.WithCancel(ctx)
	var hostWG sync.WaitGroup
	defer func() {
		cancelHost()
		hostWG.Wait()
	}()
	var mu sync.Mutex
	suspends := map[int]*Suspend{}

	deadline := time.NewTimer(limits.Wall + killGrace)
	defer deadline.Stop()
	var cancelDeadline <-chan time.Time
	ctxDone := ctx.Done()
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				return w.crashed("running the code"), false
			}
			switch m.T {
			case msgOutcome:
				if m.Outcome == nil {
					return w.crashed("reading the outcome"), false
				}
				o := *m.Outcome
				mu.Lock()
				for i, s := range o.Suspends {
					if orig, ok := suspends[s.Seq]; ok {
						// As the in-process driver completes the host's own.
						if orig.Seq == 0 {
							orig.Seq = s.Seq
						}
						if orig.Address == "" {
							orig.Address = s.Address
						}
						o.Suspends[i] = orig
					}
				}
				mu.Unlock()
				return o, healthyAfter(o)
			case msgCall, msgSearch, msgDescribe, msgRead:
				if waiting != nil {
					waiting()
					waiting = nil // once per run
				}
				hostWG.Add(1)
				go func() {
					defer hostWG.Done()
					a := answer(hostCtx, host, m)
					if a.Err != nil && a.Err.Suspend != nil && (m.Call != nil || m.Read != nil) {
						seq := a.Err.Suspend.Seq
						if seq == 0 && m.Call != nil {
							seq = m.Call.Seq
						} else if seq == 0 {
							seq = m.Read.Seq
						}
						mu.Lock()
						suspends[seq] = a.suspend
						mu.Unlock()
					}
					_ = w.conn.send(a.message)
				}()
			}
		case <-ctxDone:
			ctxDone = nil
			_ = w.conn.send(message{T: msgCancel})
			t := time.NewTimer(killGrace)
			defer t.Stop()
			cancelDeadline = t.C
		case <-cancelDeadline:
			w.kill()
			return failed(newError(CodeCancelled, "the run was cancelled and its worker killed")), false
		case <-deadline.C:
			w.kill()
			return failed(newError(CodeWallLimit, "the run exceeded its wall time of %s and its worker was killed", limits.Wall)), false
		}
	}
}

// answered is a host answer ready to send, and the original Suspend when
// the host suspended the call.
type answered struct {
	message
	suspend *Suspend
}

func answer(ctx context.Context, host Host, m message) (a answered) {
	a.message = message{T: msgAnswer, ID: m.ID}
	defer func() {
		if x := recover(); x != nil {
			a.Err = &wireError{Message: errHostPanicked}
		}
	}()
	var err error
	switch m.T {
	case msgCall:
		if m.Call == nil {
			err = errors.New("call message without a call")
			break
		}
		a.Result, err = host.Call(ctx, *m.Call)
	case msgSearch:
		a.Text, err = host.Search(ctx, m.Text)
	case msgDescribe:
		a.Text, err = host.Describe(ctx, m.Text)
	case msgRead:
		if m.Read == nil {
			err = errors.New("read message without a read")
			break
		}
		a.Result, err = host.Read(ctx, *m.Read)
	}
	if err != nil {
		a.Result = nil
		a.Err = toWire(err)
		var s *Suspend
		if errors.As(err, &s) {
			a.suspend = s
			a.Err = &wireError{Suspend: &Suspend{Seq: s.Seq, Address: s.Address, Kind: s.Kind}}
		}
		var pl *Planned
		var te *ToolError
		switch {
		case a.Err.Suspend != nil:
		case errors.As(err, &pl):
			a.Err = &wireError{Planned: true}
		case errors.As(err, &te):
			a.Err = &wireError{Tool: te}
		}
	}
	return a
}

// healthyAfter reports whether a worker may serve again after o: only
// after runs that ended in the guest's own terms.
func healthyAfter(o Outcome) bool {
	if o.Error == nil || hints[o.Error.Code] == "" {
		return true // completed, or failed with a ToolError's code
	}
	switch o.Error.Code {
	case CodeRuntimeError, CodeUnhandledRejection, CodeUnsettled, CodeResultNotJSON, CodeSyntaxError, CodeHostError,
		CodeMaxCalls, CodeTimerLimit, CodeStackLimit, CodeCodeTooLarge, CodeTooDeeplyNested, CodeInvalidRequest:
		return true
	}
	return false
}

// crashed reports a worker that died or broke the protocol.
func (w *worker) crashed(during string) Outcome {
	w.kill()
	status := "it exited"
	if st := w.cmd.ProcessState; st != nil {
		status = st.String()
	}
	tail := strings.TrimSpace(w.stderr.String())
	if strings.Contains(tail, "out of memory") {
		// The hard memory cap stopped an allocation the heap watcher could
		// not see coming.
		return failed(newError(CodeMemoryLimit, "the code exhausted the sandbox worker's memory and the worker was killed (%s)", status))
	}
	msg := fmt.Sprintf("the sandbox worker died while %s (%s)", during, status)
	if tail != "" {
		msg += ": " + lastLines(tail, 3)
	}
	return failed(newError(CodeWorkerCrashed, "%s", msg))
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// tailBuffer keeps the first max bytes written to it: the start of a Go
// fatal error says what went wrong.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - len(t.b); room > 0 {
		if len(p) < room {
			room = len(p)
		}
		t.b = append(t.b, p[:room]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
