package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
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

// TestPoolFreshWorkerPerRun uses the default of one run per worker, with
// more concurrent runs than workers.
func TestPoolFreshWorkerPerRun(t *testing.T) {
	p, err := NewPool(workerOptions("serve", 2))
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
