package sandbox

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestWorkerCollectsBeforeRun drives ServeWorker in this process and
// counts forced collections: a worker collects its garbage before the next
// run when the parent asks, and also unasked when the run before left more
// than collectAbove of it (a run's memory limit counts from the live heap
// as of the last collection, which that garbage would inflate).
func TestWorkerCollectsBeforeRun(t *testing.T) {
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) }) // the worker sets it per run
	toWorker, fromParent := io.Pipe()
	fromWorker, toParent := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeWorker(ctx, toWorker, toParent) }()
	defer func() {
		cancel()
		fromParent.Close()
		fromWorker.Close()
		<-served
	}()
	c := newConn(fromWorker, fromParent)
	forced := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	prepare := func(collect bool) {
		t.Helper()
		if err := c.send(message{T: msgPrepare, Namespaces: testNamespaces, Collect: collect}); err != nil {
			t.Fatal(err)
		}
		if m, err := c.recv(); err != nil || m.T != msgReady {
			t.Fatalf("after prepare: %+v, %v", m, err)
		}
	}
	run := func(code, want string) {
		t.Helper()
		req := request(t, code, nil, Limits{})
		req.Host = nil
		req.Limits = DefaultLimits()
		if err := c.send(message{T: msgRun, Run: &req}); err != nil {
			t.Fatal(err)
		}
		m, err := c.recv()
		if err != nil || m.T != msgOutcome || string(m.Outcome.Result) != want {
			if err == nil && m.Outcome != nil && m.Outcome.Error != nil {
				t.Fatalf("after run: %s: %+v", m.Outcome.Status, *m.Outcome.Error)
			}
			t.Fatalf("after run: %+v, %v", m, err)
		}
	}

	before := forced()
	prepare(true)
	if got := forced() - before; got != 1 {
		t.Fatalf("asked to collect: %d forced collections, want 1", got)
	}
	run(`return 1`, "1")
	before = forced()
	prepare(false)
	if got := forced() - before; got != 0 {
		t.Fatalf("not asked, after a small run: %d forced collections, want 0", got)
	}
	// Buffers, not strings: a buffer is one zeroed allocation, where
	// building a megabyte string under the race detector on a loaded
	// machine took past the run's compute limit, which a host can lower
	// and never raise.
	run(fmt.Sprintf(`const keep = []; for (let i = 0; i < %d; i++) keep.push(new ArrayBuffer(1 << 20)); return keep.length`, 2*collectAbove>>20), fmt.Sprint(2*collectAbove>>20))
	before = forced()
	prepare(false)
	if got := forced() - before; got != 1 {
		t.Fatalf("not asked, after a run that left %d MB: %d forced collections, want 1", 2*collectAbove>>20, got)
	}
}
