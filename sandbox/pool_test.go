package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"capabilities.sh/capabilities/internal/testwait"
)

func TestPoolWorkerCrash(t *testing.T) {
	p, err := NewPool(workerOptions("crash-on-call", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	o := runCode(t, p, `return await github.getIssue({})`, nil, Limits{})
	if errCode(o) != CodeWorkerCrashed || !strings.Contains(o.Error.Message, "simulated crash") {
		t.Fatalf("outcome: %s", describeOutcome(o))
	}
	// The pool replaced the dead worker: code without calls still runs.
	if o := runCode(t, p, `return 2`, nil, Limits{}); string(o.Result) != "2" {
		t.Fatalf("after a crash: %s", describeOutcome(o))
	}
}

func TestPoolBrokenCommand(t *testing.T) {
	if _, err := NewPool(workerOptions("broken", 1)); err == nil || !strings.Contains(err.Error(), "refusing to start") {
		t.Fatalf("NewPool error = %v, want the worker's stderr", err)
	}
	if _, err := NewPool(PoolOptions{}); err == nil {
		t.Fatal("NewPool without a command succeeded")
	}
}

// TestPoolFreshWorkerPerRun uses one run per worker, with more concurrent
// runs than workers.
func TestPoolFreshWorkerPerRun(t *testing.T) {
	opts := workerOptions("serve", 2)
	opts.RunsPerWorker = 1
	p, err := NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]Outcome, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runCode(t, p, `globalThis.leak = (globalThis.leak || 0) + 1; return [globalThis.leak, await github.getIssue({})]`, nil, Limits{})
		}()
	}
	wg.Wait()
	for i, o := range results {
		if o.Status != StatusCompleted || !strings.HasPrefix(string(o.Result), "[1,") {
			t.Errorf("run %d: %s", i, describeOutcome(o))
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if o := runCode(t, p, `return 1`, nil, Limits{}); errCode(o) != CodeCancelled {
		t.Errorf("run after Close: %s", describeOutcome(o))
	}
}

// TestPoolReusesWorkers checks the default: a worker serves run after run,
// each on a fresh runtime, until a run hits a limit or it has served
// RunsPerWorker runs; then a new process takes its place.
func TestPoolReusesWorkers(t *testing.T) {
	opts := workerOptions("serve", 1)
	p, err := NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// pid waits until the pool's one worker is idle and returns its process id.
	pid := func() int {
		w := <-p.(*pool).idle
		defer func() { p.(*pool).idle <- w }()
		return w.cmd.Process.Pid
	}
	leak := `globalThis.leak = (globalThis.leak || 0) + 1; return globalThis.leak`
	first := pid()
	for i := range 3 {
		if o := runCode(t, p, leak, nil, Limits{}); string(o.Result) != "1" {
			t.Fatalf("run %d on a reused worker: %s", i, describeOutcome(o))
		}
	}
	if got := pid(); got != first {
		t.Fatalf("a worker that served 3 runs was replaced (pid %d, then %d)", first, got)
	}
	if o := runCode(t, p, `while (true) {}`, nil, Limits{Compute: 50 * time.Millisecond}); errCode(o) != CodeComputeLimit {
		t.Fatalf("busy loop: %s", describeOutcome(o))
	}
	after := pid()
	if after == first {
		t.Fatal("the worker that hit the compute limit is still in use")
	}

	opts.RunsPerWorker = 2
	q, err := NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var pids []int
	for range 3 {
		w := <-q.(*pool).idle
		pids = append(pids, w.cmd.Process.Pid)
		q.(*pool).idle <- w
		if o := runCode(t, q, leak, nil, Limits{}); string(o.Result) != "1" {
			t.Fatal(describeOutcome(o))
		}
	}
	if pids[0] != pids[1] || pids[1] == pids[2] {
		t.Fatalf("with 2 runs per worker, the runs had workers %v", pids)
	}
}

func TestPoolCloseCancelsRuns(t *testing.T) {
	p, err := NewPool(workerOptions("serve", 1))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	host := &blockingHost{started: started}
	done := make(chan Outcome)
	go func() { done <- p.Run(context.Background(), request(t, `await github.getIssue({})`, host, Limits{})) }()
	<-started
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.Status != StatusCancelled {
		t.Errorf("outcome: %s", describeOutcome(o))
	}
}

// blockingHost signals its first call and blocks until the run ends.
type blockingHost struct {
	testHost
	started chan struct{}
	once    sync.Once
}

func (h *blockingHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	h.once.Do(func() { close(h.started) })
	<-ctx.Done()
	return nil, ctx.Err()
}

// heldHost blocks every tool call until release is closed, and sends on
// started as each call begins.
type heldHost struct {
	testHost
	started chan struct{}
	release chan struct{}
}

func (h *heldHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
		return json.RawMessage(`"released"`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestPoolGrowsPastWaitingRuns holds more runs in tool calls than the pool
// keeps workers: a run from another client still completes while they wait,
// and at MaxSize a run waits for a worker to be free.
func TestPoolGrowsPastWaitingRuns(t *testing.T) {
	opts := workerOptions("serve", 2)
	opts.MaxSize = 5
	p, err := NewPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	host := &heldHost{started: make(chan struct{}), release: make(chan struct{})}
	const held = 4
	results := make(chan Outcome, held)
	for range held {
		go func() { results <- runCode(t, p, `return await github.getIssue({})`, host, Limits{}) }()
	}
	for i := range held {
		receive(t, host.started, fmt.Sprintf("tool call %d of %d held runs", i+1, held))
	}
	// Five workers at most: four wait on tools, the fifth serves this run.
	// Were it queued behind them it would wait until the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if o := p.Run(ctx, request(t, `return 1`, nil, Limits{})); string(o.Result) != "1" {
		t.Fatalf("a quick run while %d runs wait on tools: %s", held, describeOutcome(o))
	}
	// A fifth held run takes the last worker; a sixth run waits for one.
	go func() { results <- runCode(t, p, `return await github.getIssue({})`, host, Limits{}) }()
	receive(t, host.started, "the tool call of the fifth held run")
	queued := make(chan Outcome, 1)
	go func() { queued <- runCode(t, p, `return 2`, nil, Limits{}) }()
	pl := p.(*pool)
	waited := testwait.Until(time.Minute, func() bool {
		select {
		case o := <-queued:
			t.Fatalf("a run past MaxSize did not wait for a worker: %s", describeOutcome(o))
		default:
		}
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return pl.waiters == 1
	})
	if !waited {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		t.Fatalf("no run waited for a worker within a minute: %d waiting, %d held, %d live, %d idle", pl.waiters, pl.held, pl.live, len(pl.idle))
	}
	pl.mu.Lock()
	live := pl.live
	pl.mu.Unlock()
	if live != opts.MaxSize {
		t.Fatalf("%d workers while %d runs hold theirs and one waits, want %d", live, held+1, opts.MaxSize)
	}
	select {
	case o := <-queued:
		t.Fatalf("a run past MaxSize did not wait for a worker: %s", describeOutcome(o))
	default:
	}
	close(host.release)
	if o := <-queued; string(o.Result) != "2" {
		t.Fatalf("the queued run: %s", describeOutcome(o))
	}
	for range held + 1 {
		if o := <-results; o.Status != StatusCompleted || string(o.Result) != `"released"` {
			t.Fatalf("a held run: %s", describeOutcome(o))
		}
	}
	// Idle again, the pool retires the workers beyond its size.
	waitUntil(t, func() bool {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return pl.live == opts.Size && pl.held == 0
	})
}

// TestPoolGrowsPastRunsOnTimers: runs waiting on timers hold their workers
// too; a quick run still gets one.
func TestPoolGrowsPastRunsOnTimers(t *testing.T) {
	p, err := NewPool(workerOptions("serve", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	const waiting = 2
	results := make(chan Outcome, waiting)
	for range waiting {
		go func() {
			results <- p.Run(ctx, request(t, `await new Promise(r => setTimeout(r, 30000)); return 1`, nil, Limits{}))
		}()
	}
	pl := p.(*pool)
	waitUntil(t, func() bool {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return pl.held == waiting
	})
	quick, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	if o := p.Run(quick, request(t, `return 1`, nil, Limits{})); string(o.Result) != "1" {
		t.Fatalf("a quick run while %d runs wait on timers: %s", waiting, describeOutcome(o))
	}
	cancel()
	for range waiting {
		if o := <-results; o.Status != StatusCancelled {
			t.Errorf("a waiting run: %s", describeOutcome(o))
		}
	}
}
