package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreCompute drops the one Outcome field that depends on timing.
var ignoreCompute = cmpopts.IgnoreFields(Outcome{}, "Compute")

func TestGuestSurface(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		limits Limits
		want   Outcome
	}{
		{"return a number", "return 1", Limits{}, Outcome{Status: StatusCompleted, Result: json.RawMessage(`1`)}},
		{"final expression", "1 + 1", Limits{}, Outcome{Status: StatusCompleted, Result: json.RawMessage(`2`)}},
		{"undefined result", "const x = 1;", Limits{}, Outcome{Status: StatusCompleted}},
		{"export default anonymous function", "export default async function () {\n  return await github.getIssue({ n: 1 })\n}", Limits{},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`{"n":1}`)}},
		{"export default value", "const n = 2;\nexport default { n, list: [n] }", Limits{}, Outcome{Status: StatusCompleted, Result: json.RawMessage(`{"n":2,"list":[2]}`)}},
		{"tool call", `return await github.createIssue({ title: "t" }, { connection: "work" })`, Limits{},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`{"address":"github.createIssue","args":{"title":"t"},"connection":"work"}`)}},
		{"tool call without args", `return (await slack.listChannels()).args`, Limits{},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`{}`)}},
		{"bad option", `try { await github.getIssue({}, { conn: "x" }) } catch (e) { return e.name + ": " + e.message }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`"TypeError: github.getIssue: unknown option \"conn\"; the only option is connection"`)}},
		{"bad connection type", `try { await github.getIssue({}, { connection: 1 }) } catch (e) { return e.message }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`"github.getIssue: connection must be a string"`)}},
		{"unknown tool names the closest", `try { github.creatIssue({}) } catch (e) { return [e instanceof TypeError, e.message] }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[true,"github.creatIssue is not a function: github has no tool named \"creatIssue\". Closest: github.createIssue, github.getIssue. Use hub.search to find tools."]`)}},
		{"unknown tool found in another namespace", `try { github.postMessage({}) } catch (e) { return e.message }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`"github.postMessage is not a function: github has no tool named \"postMessage\". Closest: slack.postMessage. Use hub.search to find tools."`)}},
		{"namespaces are frozen", `
			const r = [Object.isFrozen(github), Object.keys(github)];
			try { github.createIssue = 1 } catch (e) { r.push(e.name) }
			try { github = 1 } catch (e) { r.push(e.name) }
			try { delete globalThis.github } catch (e) { r.push(e.name) }
			return r`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[true,["createIssue","searchIssues","getIssue"],"TypeError","TypeError","TypeError"]`)}},
		{"hub lookups", `return [await hub.search("create issue"), await hub.describe("github")]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`["results for create issue","declare const github: {}"]`)}},
		{"hub lookup failure", `try { await hub.describe("missing") } catch (e) { return [e.name, e.code, e.address, e.message] }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`["ToolError","not_found","hub.describe","no such target"]`)}},
		{"tool error fields", `try { await github.getIssue({ n: 404 }) } catch (e) {
				return [e instanceof ToolError, e instanceof Error, e.name, e.code, e.address, e.status, e.hint, e.retryable, e.message] }`, Limits{},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`[true,true,"ToolError","not_found","github.getIssue",404,"check the number",true,"no issue 404"]`)}},
		{"host error", `try { await github.searchIssues({}) } catch (e) { return [e.code, e.message] }`, Limits{},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`["host_error","upstream unreachable"]`)}},
		{"uncaught tool error keeps its code and hint", `await github.getIssue({ n: 404 })`, Limits{},
			Outcome{Status: StatusFailed, Calls: 1, Error: &Error{Code: "not_found", Message: "Uncaught ToolError: no issue 404 [code: not_found, address: github.getIssue]", Hint: "check the number"}}},
		{"uncaught host error", `await github.searchIssues({})`, Limits{},
			Outcome{Status: StatusFailed, Calls: 1, Error: &Error{Code: CodeHostError, Message: "Uncaught ToolError: upstream unreachable [code: host_error, address: github.searchIssues]", Hint: hints[CodeHostError]}}},
		{"uncaught tool error thrown from a timer", `setTimeout(() => { throw new ToolError("late", { code: "gone", hint: "h" }) }, 1); await new Promise(r => setTimeout(r, 2))`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: "gone", Message: "Uncaught ToolError: late [code: gone]\n    at line 1:26", Hint: "h"}}},
		{"a tool error cannot pass for a limit", `throw new ToolError("x", { code: "compute_limit" })`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeRuntimeError, Message: "Uncaught ToolError: x [code: compute_limit]\n    at line 1:7", Hint: hints[CodeRuntimeError]}}},
		{"a tool error code must be plain", `throw new ToolError("x", { code: "Not Found" })`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeRuntimeError, Message: "Uncaught ToolError: x [code: Not Found]\n    at line 1:7", Hint: hints[CodeRuntimeError]}}},
		{"console", `console.log("a", 1, { b: [1, "x", null], "c-d": undefined }); console.warn(new Map([[1, 2]])); console.error([1, [2, [3, [4]]]]); console.info(new Set([1])); console.debug(() => 1)`, Limits{},
			Outcome{Status: StatusCompleted, Logs: []string{"a 1 { b: [ 1, 'x', null ], 'c-d': undefined }", "warn: Map(1) { 1 => 2 }", "error: [ 1, [ 2, [ 3, [Array] ] ] ]", "Set(1) { 1 }", "[Function (anonymous)]"}}},
		{"logical clock", `const a = Date.now(); await new Promise(r => setTimeout(r, 1500)); return [a, Date.now() - a, new Date().toISOString(), new Date(2024, 0, 2).getHours(), new Date("2024-01-02T03:04:05").toISOString()]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[1793966400000,1500,"2026-11-06T12:00:01.500Z",0,"2024-01-02T03:04:05.000Z"]`)}},
		{"timer order", `const out = []; setTimeout(() => out.push("b"), 10); setTimeout(() => out.push("a"), 5); setTimeout(() => out.push("c"), 10);
			const t = setTimeout(() => out.push("never"), 1); clearTimeout(t);
			await new Promise(r => setTimeout(r, 20)); return out`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`["a","b","c"]`)}},
		{"timer too long", `setTimeout(() => {}, 30001)`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeTimerLimit, Message: "setTimeout delay of 30001 ms is above the maximum of 30000 ms", Hint: hints[CodeTimerLimit]}}},
		{"seeded random", `return [Math.random(), crypto.randomUUID(), Array.from(crypto.getRandomValues(new Uint8Array(4)))]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[0.08386297105988216,"86d90461-3253-47ae-87ad-b8ec7fdce6fd",[49,165,13,197]]`)}},
		{"encoding", `const b = new TextEncoder().encode("h\u00e9"); return [Array.from(b), new TextDecoder().decode(b), btoa("hi"), atob("aGk"), new TextDecoder().decode(new Uint8Array([0xff]))]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[[104,195,169],"hé","aGk=","hi","�"]`)}},
		{"structuredClone", `const o = { d: new Date(0), m: new Map([["k", [1]]]), s: new Set([1]) }; o.self = o; const c = structuredClone(o);
			return [c !== o, c.self === c, c.d.toISOString(), c.m.get("k"), c.s.has(1)]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[true,true,"1970-01-01T00:00:00.000Z",[1],true]`)}},
		{"structuredClone rejects functions", `try { structuredClone({ f() {} }) } catch (e) { return e.name }`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`"DataCloneError"`)}},
		{"absent globals", `return [typeof fetch, typeof require, typeof process, typeof Buffer, typeof URL, typeof URLSearchParams, typeof GoError, typeof setInterval, typeof module]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined"]`)}},
		{"eval and Function", `const r = []; for (const f of [() => eval("1"), () => Function("return 1"), () => new Function("return 1"), () => (async () => {}).constructor("return 1")]) { try { f(); r.push("ran") } catch (e) { r.push(e.message) } } return r`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`["eval is not available in the sandbox","the Function constructor is not available in the sandbox","the Function constructor is not available in the sandbox","the Function constructor is not available in the sandbox"]`)}},
		{"typed arrays under their guards", `class Bytes extends Uint8Array {}
			const b = new Bytes(2), u = new Uint8Array(2), e = new TextEncoder().encode("x");
			return [u instanceof Uint8Array, b instanceof Bytes, b instanceof Uint8Array, u instanceof Bytes, e instanceof Uint8Array, e.constructor === Uint8Array,
				new ArrayBuffer(8) instanceof ArrayBuffer, u.buffer.constructor === ArrayBuffer, b.length, new Float64Array([1.5])[0], Int16Array.BYTES_PER_ELEMENT]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[true,true,true,false,true,true,true,true,2,1.5,2]`)}},
		{"guarded built-ins keep their property attributes", `const r = []; for (const k in /x/) r.push(k); for (const k in [1]) r.push(k);
			const d = (o, k) => { const x = Object.getOwnPropertyDescriptor(o, k); return [x.writable, x.enumerable, x.configurable] };
			return [r, Object.keys(RegExp.prototype), Object.keys(Array.prototype), d(RegExp.prototype, "exec"), d(Array.prototype, "map"), d(Array.prototype, "sort"), d(/x/.exec, "name"), /b/.exec("abc").index, [1, 2].map(x => x * 2)]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[["0"],[],[],[true,false,true],[true,false,true],[true,false,true],[false,false,true],1,[2,4]]`)}},
		{"instanceof Function still works", `return [(() => 1) instanceof Function, typeof Function]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[true,"function"]`)}},
		{"runtime error with line", "const a = 1;\nnotDefined.x;\nreturn a", Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeRuntimeError, Message: "Uncaught ReferenceError: notDefined is not defined\n    at line 2:1", Hint: hints[CodeRuntimeError]}}},
		{"unhandled rejection", `Promise.reject(new Error("lost")); await null; return 1`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeUnhandledRejection, Message: "a promise was rejected and not handled: Error: lost\n    at line 1:16", Hint: hints[CodeUnhandledRejection]}}},
		{"unsettled", `await new Promise(() => {})`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeUnsettled, Message: "the code awaits a promise that nothing will settle: no tool call or timer is pending", Hint: hints[CodeUnsettled]}}},
		{"result not JSON", `const a = {}; a.self = a; return a`, Limits{},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeResultNotJSON, Message: "the returned value cannot be turned into JSON: TypeError: Converting circular structure to JSON", Hint: hints[CodeResultNotJSON]}}},
		{"BigInt results are exact JSON integers", `let e; try { JSON.stringify(1n) } catch (x) { e = x.message } return [10n, -9007199254740993n, JSON.rawJSON("9007199254740995"), e]`, Limits{},
			Outcome{Status: StatusCompleted, Result: json.RawMessage(`[10,-9007199254740993,9007199254740995,"Do not know how to serialize a BigInt"]`)}},
		{"max calls", `for (let i = 0; i < 5; i++) await github.getIssue({ i })`, Limits{MaxCalls: 3},
			Outcome{Status: StatusFailed, Calls: 3, Error: &Error{Code: CodeMaxCalls, Message: "call 4 (github.getIssue) is above the limit of 3 tool calls per run", Hint: hints[CodeMaxCalls]}}},
		{"arguments over the limit are refused unsent", `let e; try { await github.createIssue({ body: "x".repeat(100) }) } catch (x) { e = [x.name, x.code, x.address, x.message] }
			const ok = await slack.listChannels({ n: 1 }); return [e, ok.args]`, Limits{ArgsBytes: 64},
			Outcome{Status: StatusCompleted, Calls: 1, Result: json.RawMessage(`[["ToolError","arguments_too_large","github.createIssue","the arguments are 111 bytes as JSON, above the limit of 64 for one call"],{"n":1}]`)}},
		{"arguments over the limit, uncaught", `await github.createIssue({ body: "x".repeat(100) })`, Limits{ArgsBytes: 64},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeArgsTooLarge, Message: "Uncaught ToolError: the arguments are 111 bytes as JSON, above the limit of 64 for one call [code: arguments_too_large, address: github.createIssue]\n    at line 1:32", Hint: hints[CodeArgsTooLarge]}}},
		{"stack limit", `function f(n) { return f(n + 1) + 1 } f(0)`, Limits{StackDepth: 200},
			Outcome{Status: StatusFailed, Error: &Error{Code: CodeStackLimit, Message: "the call stack exceeded 200 frames", Hint: hints[CodeStackLimit]}}},
		// Each byte costs 2, once in the envelope and once in its text line;
		// quotes 3 (1 + 2), and a log line's separator 2: the preview is 357
		// x's (3 + 714 + 30 for the marker + 3 = 750, 3/4 of the budget).
		{"result truncated", `return "x".repeat(5000)`, Limits{InlineResultBytes: 1000},
			Outcome{Status: StatusCompleted, Truncated: Truncated{Result: true}, Result: json.RawMessage(`"` + strings.Repeat("x", 357) + `… (truncated)"`),
				Whole: json.RawMessage(`"` + strings.Repeat("x", 5000) + `"`)}},
		// A line of 47 bytes costs 102; the second gets the 98 left.
		{"logs truncated", `for (let i = 0; i < 100; i++) console.log("line " + i + " " + "y".repeat(40))`, Limits{InlineResultBytes: 200},
			Outcome{Status: StatusCompleted, Truncated: Truncated{Logs: true}, Logs: []string{"line 0 " + strings.Repeat("y", 40), "line 1 " + strings.Repeat("y", 35) + "…"}}},
		{"empty log lines count", `for (let i = 0; i < 20000; i++) console.log('')`, Limits{InlineResultBytes: 800},
			Outcome{Status: StatusCompleted, Truncated: Truncated{Logs: true}, Logs: make([]string, 100)}},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					host := &testHost{tools: map[string]func(context.Context, Call) (json.RawMessage, error){
						"github.getIssue": func(_ context.Context, c Call) (json.RawMessage, error) {
							if string(c.Args) == `{"n":404}` {
								return nil, &ToolError{Code: "not_found", Message: "no issue 404", Hint: "check the number", Status: 404, Retryable: true}
							}
							return c.Args, nil
						},
						"github.searchIssues": func(context.Context, Call) (json.RawMessage, error) {
							return nil, errors.New("upstream unreachable")
						},
					}}
					got := runCode(t, d, tt.code, host, tt.limits)
					if diff := cmp.Diff(tt.want, got, ignoreCompute); diff != "" {
						t.Errorf("outcome mismatch (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

// TestCallsRecorded checks what the host receives.
func TestCallsRecorded(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			host := &testHost{}
			o := runCode(t, d, `await github.createIssue({ title: "a" }); await slack.postMessage({ text: "b" }, { connection: "work" }); await github.getIssue()`, host, Limits{})
			if o.Status != StatusCompleted {
				t.Fatalf("status %s: %v", o.Status, o.Error)
			}
			want := []Call{
				{Seq: 1, Address: "github.createIssue", Args: json.RawMessage(`{"title":"a"}`)},
				{Seq: 2, Address: "slack.postMessage", Args: json.RawMessage(`{"text":"b"}`), Connection: "work"},
				{Seq: 3, Address: "github.getIssue", Args: json.RawMessage(`{}`)},
			}
			if diff := cmp.Diff(want, host.recorded()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// gatedHost finishes calls in reverse order of issue: call n returns only
// after call n+1 has returned, the last one first.
type gatedHost struct {
	testHost
	n     int
	gates []chan struct{}
}

func newGatedHost(n int) *gatedHost {
	h := &gatedHost{n: n}
	for range n + 1 {
		h.gates = append(h.gates, make(chan struct{}))
	}
	close(h.gates[n])
	return h
}

func (h *gatedHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	i := c.Seq - 1
	select {
	case <-h.gates[i+1]:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer close(h.gates[i])
	return json.RawMessage(`{"seq":` + string(rune('0'+c.Seq)) + `}`), nil
}

func TestResultsDeliveredInSeqOrder(t *testing.T) {
	code := `const order = [];
		await Promise.all([1, 2, 3, 4].map(async (n) => { const r = await github.getIssue({ n }); order.push(r.seq); }));
		return order`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, newGatedHost(4), Limits{})
			if diff := cmp.Diff(`[1,2,3,4]`, string(o.Result)); diff != "" {
				t.Errorf("delivery order (-want +got):\n%s\n%s", diff, describeOutcome(o))
			}
		})
	}
}

// concurrencyHost records the most calls in flight at once; each call
// waits until limit calls are in flight together once.
type concurrencyHost struct {
	testHost
	limit    int32
	inflight atomic.Int32
	max      atomic.Int32
	once     sync.Once
	full     chan struct{}
}

func (h *concurrencyHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	n := h.inflight.Add(1)
	defer h.inflight.Add(-1)
	for {
		m := h.max.Load()
		if n <= m || h.max.CompareAndSwap(m, n) {
			break
		}
	}
	if n >= h.limit {
		h.once.Do(func() { close(h.full) })
	}
	select {
	case <-h.full:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return json.RawMessage(`1`), nil
}

func TestMaxConcurrentWaits(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			h := &concurrencyHost{limit: 3, full: make(chan struct{})}
			o := runCode(t, d, `return (await Promise.all(Array.from({ length: 12 }, () => github.getIssue({})))).length`, h, Limits{MaxConcurrent: 3})
			if string(o.Result) != "12" || o.Calls != 12 {
				t.Fatalf("outcome: %s", describeOutcome(o))
			}
			if got := h.max.Load(); got != 3 {
				t.Errorf("most calls in flight = %d, want 3", got)
			}
		})
	}
}

type suspendHost struct{ testHost }

type approvalDetail struct{ Reason string }

func (h *suspendHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	if c.Address == "slack.postMessage" {
		return nil, &Suspend{Seq: c.Seq, Address: c.Address, Kind: "approval", Detail: &approvalDetail{Reason: "posts publicly"}}
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func TestSuspend(t *testing.T) {
	code := `const a = await github.getIssue({});
		const [b, c] = await Promise.all([slack.postMessage({ text: "hi" }), github.createIssue({})]);
		return [a, b, c]`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &suspendHost{}, Limits{})
			want := Outcome{Status: StatusSuspended, Calls: 3, Suspends: []*Suspend{
				{Seq: 2, Address: "slack.postMessage", Kind: "approval", Detail: &approvalDetail{Reason: "posts publicly"}},
			}}
			if diff := cmp.Diff(want, o, ignoreCompute); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeterminism runs the same request on both drivers twice and wants
// identical outcomes.
func TestDeterminism(t *testing.T) {
	code := `const out = [Math.random(), crypto.randomUUID(), Date.now()];
		const rs = await Promise.all([github.getIssue({ a: 1 }), hub.search("x"), github.createIssue({ b: 2 })]);
		await new Promise((r) => setTimeout(r, 250));
		console.log("clock", new Date().toISOString(), rs.length);
		out.push(Date.now(), Math.random(), rs);
		return out`
	var first Outcome
	i := 0
	for name, d := range drivers(t) {
		for range 2 {
			o := runCode(t, d, code, newGatedHost(2), Limits{})
			if o.Status != StatusCompleted {
				t.Fatalf("%s: %s", name, describeOutcome(o))
			}
			if i == 0 {
				first = o
			} else if diff := cmp.Diff(first, o, ignoreCompute); diff != "" {
				t.Errorf("%s run differs (-first +this):\n%s", name, diff)
			}
			i++
		}
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		host   Host
		limits Limits
		want   string
	}{
		{"compute", "while (true) {}", nil, Limits{Compute: 300 * time.Millisecond}, CodeComputeLimit},
		{"memory", `const a = []; for (;;) a.push({ s: "abcdefghij".repeat(10) + a.length })`, nil, Limits{MemoryBytes: 32 << 20, Compute: 5 * time.Second}, CodeMemoryLimit},
		{"wall", `await github.getIssue({})`, &hangHost{}, Limits{Wall: 300 * time.Millisecond}, CodeWallLimit},
		{"max calls", `while (true) await github.getIssue({})`, nil, Limits{MaxCalls: 10}, CodeMaxCalls},
		{"stack", `const f = () => f(); f()`, nil, Limits{StackDepth: 100}, CodeStackLimit},
		{"code bytes", "return 1 // " + strings.Repeat("x", 200), nil, Limits{CodeBytes: 100}, CodeCodeTooLarge},
		{"timers", `for (let i = 0; i < 10000; i++) setTimeout(() => {}, 1)`, nil, Limits{}, CodeTimerLimit},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.name == "memory" && (testing.Short() || raceEnabled) {
						t.Skip("filling the heap is too slow under -short and -race")
					}
					t.Parallel()
					host := tt.host
					if host == nil {
						host = &testHost{}
					}
					// Run the raw code: Prepare would stop the code-size case first.
					o := d.Run(context.Background(), Request{Code: tt.code, Seed: 1, Clock: testClock, Namespaces: testNamespaces, Limits: tt.limits, Host: host})
					if errCode(o) != tt.want {
						t.Fatalf("error code = %q, want %q: %s", errCode(o), tt.want, describeOutcome(o))
					}
					if o.Error.Hint == "" || o.Error.Hint != Hint(tt.want) {
						t.Errorf("hint = %q, want the hint for %s", o.Error.Hint, tt.want)
					}
				})
			}
		})
	}
}

// hangHost never answers until the run gives up.
type hangHost struct{ testHost }

func (*hangHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// slowHost answers after a delay, standing in for upstream latency.
type slowHost struct {
	testHost
	delay time.Duration
}

func (h *slowHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	t := time.NewTimer(h.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return json.RawMessage(`1`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestComputePausedDuringCalls(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, `await github.getIssue({}); await github.getIssue({}); return 1`, &slowHost{delay: 300 * time.Millisecond}, Limits{Compute: 200 * time.Millisecond})
			if o.Status != StatusCompleted {
				t.Fatalf("tool latency counted as compute: %s", describeOutcome(o))
			}
		})
	}
}

// cancelHost cancels the run's context from inside a tool call.
type cancelHost struct {
	testHost
	cancel context.CancelFunc
}

func (h *cancelHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	h.cancel()
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestCancel(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := request(t, `await github.getIssue({})`, &cancelHost{cancel: cancel}, Limits{})
			o := d.Run(ctx, req)
			if o.Status != StatusCancelled || errCode(o) != CodeCancelled {
				t.Fatalf("outcome: %s", describeOutcome(o))
			}
		})
	}
}

func TestLimitsLower(t *testing.T) {
	def := DefaultLimits()
	got := def.Lower(Limits{Compute: time.Second, Wall: time.Hour, MaxCalls: 10, MemoryBytes: -1})
	want := def
	want.Compute = time.Second
	want.MaxCalls = 10
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lower (-want +got):\n%s", diff)
	}
}

func TestHintsCoverEveryCode(t *testing.T) {
	for _, code := range []string{CodeComputeLimit, CodeWallLimit, CodeMemoryLimit, CodeMaxCalls, CodeStackLimit, CodeCodeTooLarge, CodeArgsTooLarge,
		CodeSyntaxError, CodeTooDeeplyNested, CodeTimerLimit, CodeRuntimeError, CodeUnhandledRejection, CodeUnsettled,
		CodeResultNotJSON, CodeRegexpTimeout, CodeWorkerCrashed, CodeHostError, CodeCancelled, CodeInvalidRequest, CodeInternal} {
		if Hint(code) == "" {
			t.Errorf("code %s has no hint", code)
		}
	}
}

func TestInvalidNamespaces(t *testing.T) {
	d := NewInProcess()
	defer d.Close()
	for _, ns := range [][]Namespace{
		{{Name: "hub", Tools: []string{"x"}}},
		{{Name: "a-b", Tools: []string{"x"}}},
		{{Name: "ok", Tools: []string{"x", "x"}}},
	} {
		o := d.Run(context.Background(), Request{Code: "return 1", Namespaces: ns, Host: &testHost{}})
		if errCode(o) != CodeInvalidRequest {
			t.Errorf("namespaces %v: %s", ns, describeOutcome(o))
		}
	}
}

// TestNoGoNamesReachTheGuest walks every function the guest can reach from
// globalThis, and the stacks of errors thrown by natives and guards: none
// may show a Go symbol.
func TestNoGoNamesReachTheGuest(t *testing.T) {
	code := `const seen = new Set(), found = [];
		const check = (what, s) => { if (/capabilities\.sh|sandbox\.|goja|\(\*|-fm\b|\.func\d|\.go\b/.test(String(s))) found.push(what + ": " + s) };
		const walk = (o, path, depth) => {
			if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o) || depth > 5) return;
			seen.add(o);
			if (typeof o === "function") { check(path + ".name", o.name); check(path + " source", Function.prototype.toString.call(o)) }
			for (const k of Reflect.ownKeys(o)) {
				let d;
				try { d = Object.getOwnPropertyDescriptor(o, k) } catch (e) { continue }
				for (const v of [d.value, d.get, d.set]) walk(v, path + "." + String(k), depth + 1);
			}
			walk(Object.getPrototypeOf(o), path + ".__proto__", depth + 1);
		};
		walk(globalThis, "globalThis", 0);
		for (const [what, f] of [["atob", () => atob("!!")], ["btoa", () => btoa("\u0100")], ["TextDecoder", () => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff]))],
			["reduce", () => [].reduce((a, b) => a)], ["map", () => Array.prototype.map.call([1], 1)], ["exec", () => RegExp.prototype.exec.call({}, "x")],
			["typed array", () => new Uint8Array(-1)], ["JSON.parse", () => JSON.parse("{")], ["sort", () => [2, 1].sort(1)]]) {
			try { f() } catch (e) { check(what + " stack", e.stack); check(what + " message", e.message) }
		}
		try { await github.getIssue({ n: 404 }) } catch (e) { check("tool error stack", e.stack) }
		try { await github.getIssue(1n) } catch (e) { check("tool arguments stack", e.stack) }
		try { await github.searchIssues({}) } catch (e) { check("host panic", e.message); if (e.message !== "the hub failed on this call") found.push("host panic: " + e.message) }
		return [seen.size > 500, found]`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			host := &testHost{tools: map[string]func(context.Context, Call) (json.RawMessage, error){
				"github.getIssue": func(context.Context, Call) (json.RawMessage, error) {
					return nil, &ToolError{Code: "not_found", Message: "no issue"}
				},
				"github.searchIssues": func(context.Context, Call) (json.RawMessage, error) {
					var m map[string]*Call
					return m["x"].Args, nil // a nil dereference: the hub's own bug
				},
			}}
			o := runCode(t, d, code, host, Limits{})
			if string(o.Result) != `[true,[]]` {
				t.Fatalf("Go names reach the guest: %s", describeOutcome(o))
			}
		})
	}
}

// TestSyntaxErrorLines runs code that only the engine's own parser and
// compiler refuse, on the drivers without Prepare: the line and column are
// the person's.
func TestSyntaxErrorLines(t *testing.T) {
	tests := []struct{ code, want string }{
		{"const a = 1;\nconst b = ;", "Unexpected token ; at line 2:11"},
		{"const a = 1;\n\nbreak;", "Illegal break statement at line 3:1"},
		{"const a = 1;\nlet a = 2;", "Identifier 'a' has already been declared at line 2:5"},
		{"const a = 1;\nreturn a +", "unexpected end of the code at line 2:11: an expression or a bracket is not closed"},
		{"if (x) {\n", "unexpected end of the code at line 2:1: an expression or a bracket is not closed"},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				o := d.Run(context.Background(), Request{Code: tt.code, Namespaces: testNamespaces, Host: &testHost{}})
				if errCode(o) != CodeSyntaxError || o.Error.Message != tt.want {
					t.Errorf("%q: %s, want %q", tt.code, describeOutcome(o), tt.want)
				}
			}
		})
	}
}

// TestTimersWaitInRealTime: a live run's setTimeout waits its delay in wall
// time, not compute, and Date moves by the delay; a resumed attempt does not
// wait again for the timers before the calls it replays (Request.Replay).
func TestTimersWaitInRealTime(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("live", func(t *testing.T) {
				t.Parallel()
				// The wait is well past the compute limit: counted as compute,
				// it would fail the run.
				start := time.Now()
				o := runCode(t, d, `const a = Date.now(); await new Promise(r => setTimeout(r, 1500)); return Date.now() - a`, nil, Limits{Compute: 500 * time.Millisecond})
				took := time.Since(start)
				if string(o.Result) != "1500" {
					t.Fatalf("outcome: %s", describeOutcome(o))
				}
				if took < 1500*time.Millisecond {
					t.Errorf("the run took %s, less than its 1500 ms timer", took)
				}
			})
			t.Run("replayed", func(t *testing.T) {
				t.Parallel()
				// Two calls issued before: the 30 s timer between them fired in
				// the first attempt and does not wait now (the wall limit would
				// end the run); the timer after the second call is live.
				code := `await github.getIssue({ n: 1 });
					const a = Date.now(); await new Promise(r => setTimeout(r, 30000)); const b = Date.now();
					await github.getIssue({ n: 2 });
					await new Promise(r => setTimeout(r, 300));
					return [b - a, Date.now() - b]`
				req := request(t, code, nil, Limits{Wall: 10 * time.Second})
				req.Replay = 2
				start := time.Now()
				o := d.Run(context.Background(), req)
				took := time.Since(start)
				if string(o.Result) != "[30000,300]" {
					t.Fatalf("outcome: %s", describeOutcome(o))
				}
				if took < 300*time.Millisecond {
					t.Errorf("the run took %s, less than its live 300 ms timer", took)
				}
			})
		})
	}
}

// TestTimerFiresWhileACallIsInFlight: the timeout pattern, a race of a tool
// call against a timer, returns at its timer when the call is slow. The call
// answers only once the code has told the host which promise won, so the
// timer won because it fired while the call was in flight, not because the
// call happened to be slower. The attempt records where the timer fired
// (Outcome.Fired, and Call.Fired on the next call), and an attempt that
// replays the calls with that record takes the same path, however fast the
// journal answers now; without it, it would take the other.
func TestTimerFiresWhileACallIsInFlight(t *testing.T) {
	code := `const slow = github.getIssue({ n: 1 }).then(() => "call");
		const timeout = new Promise((r) => setTimeout(() => r("timer"), 20));
		const winner = await Promise.race([slow, timeout]);
		const at = Date.now() - ${start};
		await github.searchIssues({ winner });
		return [winner, await slow, at]`
	code = strings.ReplaceAll(code, "${start}", fmt.Sprint(testClock.UnixMilli()))
	want := `["timer","call",20]`
	instant := func(context.Context, Call) (json.RawMessage, error) { return json.RawMessage(`{"n":1}`), nil }
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			host := &testHost{tools: map[string]func(ctx context.Context, c Call) (json.RawMessage, error){
				"github.getIssue": func(ctx context.Context, c Call) (json.RawMessage, error) {
					select {
					case <-release:
						return json.RawMessage(`{"n":1}`), nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				},
				"github.searchIssues": func(ctx context.Context, c Call) (json.RawMessage, error) {
					close(release)
					return json.RawMessage(`[]`), nil
				},
			}}
			o := runCode(t, d, code, host, Limits{})
			if o.Status != StatusCompleted || string(o.Result) != want {
				t.Fatalf("%s; want the timer to win the race: %s", describeOutcome(o), want)
			}
			record := []Early{{After: 0, Timers: 1}}
			if !slices.Equal(o.Fired, record) {
				t.Errorf("Outcome.Fired %+v, want %+v", o.Fired, record)
			}
			calls := host.recorded()
			if len(calls) != 2 || calls[0].Fired != nil || !slices.Equal(calls[1].Fired, record) {
				t.Errorf("calls %+v; want the record on the second call only", calls)
			}

			// The resumed attempt: both calls answered from the journal at once.
			replay := &testHost{tools: map[string]func(ctx context.Context, c Call) (json.RawMessage, error){"github.getIssue": instant}}
			req := request(t, code, replay, Limits{})
			req.Replay, req.Fired = 2, o.Fired
			if again := d.Run(context.Background(), req); again.Status != StatusCompleted || string(again.Result) != want || !slices.Equal(again.Fired, record) {
				t.Errorf("replayed with the record: %s; want %s, fired %+v", describeOutcome(again), want, record)
			}
			req = request(t, code, replay, Limits{})
			req.Replay = 2
			if other := d.Run(context.Background(), req); other.Status != StatusCompleted || string(other.Result) != `["call","call",0]` {
				t.Errorf("replayed without the record: %s; want the call to win", describeOutcome(other))
			}
		})
	}
}

// TestMissingGlobalHints: code that reaches for another host's global
// (fetch, require) is told what the sandbox offers instead, and a name one
// slip from a source is told the source; a local name of the code's own
// keeps the plain hint.
func TestMissingGlobalHints(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct{ code, want string }{
				{`return await fetch("https://example.com")`, `fetch does not exist here: the code has no network, files or modules besides the sources' functions (github, slack). Find a tool that does what you need with hub.search("what you need") and call it.`},
				{`const fs = require("fs"); return 1`, "require does not exist here"},
				{`return await githb.createIssue({})`, "There is no global githb. Did you mean the source github? The sources here are github, slack."},
				{`return await Slak.postMessage({})`, "Did you mean the source slack?"},
				{`const result = 1; return resutl`, hints[CodeRuntimeError]},
				{`return gh`, hints[CodeRuntimeError]},
			} {
				o := runCode(t, d, tc.code, nil, Limits{})
				if o.Status != StatusFailed || errCode(o) != CodeRuntimeError || !strings.Contains(o.Error.Hint, tc.want) {
					t.Errorf("%s: %s, want a hint with %q", tc.code, describeOutcome(o), tc.want)
				}
			}
		})
	}
}

// argsHost records the most argument bytes its calls held at once. A call
// waits until six are in flight, or, when short, 50 ms.
type argsHost struct {
	testHost
	mu      sync.Mutex
	cur     int
	max     int
	calls   int
	release chan struct{}
	once    sync.Once
	short   bool
}

func (h *argsHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	h.mu.Lock()
	h.cur += len(c.Args)
	h.max = max(h.max, h.cur)
	h.calls++
	if h.calls == 6 {
		h.once.Do(func() { close(h.release) })
	}
	h.mu.Unlock()
	var fallback <-chan time.Time
	if h.short {
		fallback = time.After(50 * time.Millisecond)
	}
	select {
	case <-h.release:
	case <-fallback:
	case <-ctx.Done():
	}
	h.mu.Lock()
	h.cur -= len(c.Args)
	h.mu.Unlock()
	return json.RawMessage(`1`), nil
}

// TestArgsInFlightAreBounded: a run's calls in flight hold at most two
// calls' worth of arguments (Limits.ArgsBytes) together; further calls
// wait for them, as for a slot. Six calls of 3 KB under a bound of 4 KB:
// two at a time (six at once before). Small calls go as many at once as
// Limits.MaxConcurrent lets them.
func TestArgsInFlightAreBounded(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			// {"s":"…"} is 8 bytes more than its string. The small calls
			// wait for all six to be in flight: a bound that held them
			// back would fail the run at its wall limit.
			for _, tc := range []struct {
				size, most int
				waits      bool
			}{{3000, 2 * 3008, true}, {10, 6 * 18, false}} {
				h := &argsHost{release: make(chan struct{}), short: tc.waits}
				code := fmt.Sprintf(`const s = "x".repeat(%d); return (await Promise.all(Array.from({ length: 6 }, () => github.getIssue({ s })))).length`, tc.size)
				o := runCode(t, d, code, h, Limits{ArgsBytes: 4000, Wall: 20 * time.Second})
				// Two big calls start together but may not overlap on a
				// busy machine; the small ones all wait for the six.
				if string(o.Result) != "6" || h.max > tc.most || !tc.waits && h.max != tc.most {
					t.Errorf("arguments of %d bytes: %d bytes in flight at most, want %d at most; outcome %s", tc.size, h.max, tc.most, describeOutcome(o))
				}
			}
		})
	}
}
