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

// testHost answers tool calls with a function per address; calls without
// one echo their arguments.
type testHost struct {
	mu    sync.Mutex
	calls []Call
	reads []Read
	tools map[string]func(ctx context.Context, c Call) (json.RawMessage, error)
}

func (h *testHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
	if f, ok := h.tools[c.Address]; ok {
		return f(ctx, c)
	}
	return json.RawMessage(fmt.Sprintf(`{"address":%q,"args":%s,"connection":%q}`, c.Address, c.Args, c.Connection)), nil
}

func (h *testHost) Search(ctx context.Context, q string) (string, error) {
	return "results for " + q, nil
}

func (h *testHost) Describe(ctx context.Context, t string) (string, error) {
	if t == "missing" {
		return "", &ToolError{Code: "not_found", Message: "no such target"}
	}
	return "declare const " + t + ": {}", nil
}

// Read echoes the read as JSON; handle "h_missing" is unknown.
func (h *testHost) Read(ctx context.Context, rd Read) (json.RawMessage, error) {
	h.mu.Lock()
	h.reads = append(h.reads, rd)
	h.mu.Unlock()
	if rd.Handle == "h_missing" {
		return nil, &ToolError{Code: "unknown_handle", Message: "no handle h_missing", Address: ReadAddress}
	}
	return json.Marshal(rd)
}

func (h *testHost) recorded() []Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Call(nil), h.calls...)
}

var testNamespaces = []Namespace{
	{Name: "github", Tools: []string{"createIssue", "searchIssues", "getIssue"}},
	{Name: "slack", Tools: []string{"postMessage", "listChannels"}},
}

var testClock = time.Date(2026, 11, 6, 12, 0, 0, 0, time.UTC)

// drivers returns the drivers every behaviour test runs against.
func drivers(t testing.TB) map[string]Driver {
	t.Helper()
	in := NewInProcess()
	// Closing waits for the driver's background work (runtimes prepared
	// ahead, collections after a run), which would otherwise run into the
	// next test.
	t.Cleanup(func() { in.Close() })
	out := map[string]Driver{"inprocess": in}
	if p := testPool(t); p != nil {
		out["pool"] = p
	}
	return out
}

// request builds a request for code run through Prepare.
func request(t testing.TB, code string, host Host, limits Limits) Request {
	t.Helper()
	p, err := Prepare(code, limits)
	if err != nil {
		t.Fatalf("Prepare(%q): %v", code, err)
	}
	if host == nil {
		host = &testHost{}
	}
	return Request{Code: p.Code, Seed: 42, Clock: testClock, Namespaces: testNamespaces, Limits: limits, Host: host}
}

func runCode(t testing.TB, d Driver, code string, host Host, limits Limits) Outcome {
	t.Helper()
	return d.Run(context.Background(), request(t, code, host, limits))
}

func errCode(o Outcome) string {
	if o.Error == nil {
		return ""
	}
	return o.Error.Code
}

func describeOutcome(o Outcome) string {
	b, _ := json.Marshal(o)
	return strings.TrimSpace(string(b))
}

// waitUntil waits for cond through testwait, failing the test after a
// minute: long enough for any loaded machine, and never a margin a run
// relies on.
func waitUntil(t testing.TB, cond func() bool) {
	t.Helper()
	testwait.For(t, time.Minute, "the condition", cond)
}

// receive waits for a value on ch, failing the test after a minute.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: nothing within a minute", what)
	}
	var zero T
	return zero
}
