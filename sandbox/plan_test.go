package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// planHost plans the calls that need consent (github.createIssue and
// slack.postMessage, or those plan picks), answers the calls in journal
// with their recorded results, and echoes the others' arguments.
type planHost struct {
	testHost
	plan    func(Call) bool
	journal map[int]json.RawMessage
}

func (h *planHost) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	if v, ok := h.journal[c.Seq]; ok {
		h.mu.Lock()
		h.calls = append(h.calls, c)
		h.mu.Unlock()
		return v, nil
	}
	plan := h.plan
	if plan == nil {
		plan = func(c Call) bool { return c.Address == "github.createIssue" || c.Address == "slack.postMessage" }
	}
	if plan(c) {
		h.mu.Lock()
		h.calls = append(h.calls, c)
		h.mu.Unlock()
		return nil, &Planned{}
	}
	return h.testHost.Call(ctx, c)
}

func TestPlanLoopOfFiveWrites(t *testing.T) {
	code := `const made = [];
		for (let i = 1; i <= 5; i++) made.push(await github.createIssue({ title: "issue " + i }));
		console.log("made", made[0].number);
		return made.map((m) => m.number)`
	var results []string
	for i := 1; i <= 5; i++ {
		results = append(results, symbolJSON(i, "number"))
	}
	want := Outcome{Status: StatusPlanned, Calls: 5, Planned: []int{1, 2, 3, 4, 5},
		Result: json.RawMessage("[" + strings.Join(results, ",") + "]"), Logs: []string{"made <result of call 1>.number"}}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			h := &planHost{}
			o := runCode(t, d, code, h, Limits{})
			if diff := cmp.Diff(want, o, ignoreCompute); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			calls := h.recorded()
			if len(calls) != 5 {
				t.Fatalf("%d calls reached the host, want 5: %+v", len(calls), calls)
			}
			for i, c := range calls {
				if c.Seq != i+1 || c.Symbolic || string(c.Args) != fmt.Sprintf(`{"title":"issue %d"}`, i+1) {
					t.Errorf("call %d: %+v", i+1, c)
				}
			}
		})
	}
}

// TestPlanSymbolicArguments plans a call whose arguments take pieces of an
// earlier planned call's result, then runs the same code with that result
// known: the planned arguments, resolved with the result, are the real
// run's arguments byte for byte.
func TestPlanSymbolicArguments(t *testing.T) {
	code := `const e = await github.createIssue({ title: "a" });
		await slack.postMessage({ text: "made", who: e.entities[0].name, ids: [e.id, 1], issue: e, missing: e.none });
		return "done"`
	result := json.RawMessage(`{"entities":[{"name":"Ada","$planned":0}],"id":7}`)
	wantArgs := `{"text":"made","who":` + symbolJSON(1, "entities", "0", "name") + `,"ids":[` + symbolJSON(1, "id") + `,1],"issue":` + symbolJSON(1) + `,"missing":` + symbolJSON(1, "none") + `}`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			h := &planHost{}
			o := runCode(t, d, code, h, Limits{})
			if o.Status != StatusPlanned || o.Stop != nil || string(o.Result) != `"done"` {
				t.Fatalf("outcome: %s", describeOutcome(o))
			}
			calls := h.recorded()
			if len(calls) != 2 {
				t.Fatalf("calls: %+v", calls)
			}
			planned := calls[1]
			if !planned.Symbolic || string(planned.Args) != wantArgs {
				t.Fatalf("planned call 2:\n got %s (symbolic %v)\nwant %s", planned.Args, planned.Symbolic, wantArgs)
			}
			syms, err := Symbols(planned.Args)
			if err != nil {
				t.Fatal(err)
			}
			wantSyms := []Symbol{{1, []string{"entities", "0", "name"}}, {1, []string{"id"}}, {1, []string{}}, {1, []string{"none"}}}
			if diff := cmp.Diff(wantSyms, syms); diff != "" {
				t.Errorf("symbols (-want +got):\n%s", diff)
			}
			resolved, err := Resolve(planned.Args, func(s Symbol) (json.RawMessage, bool) {
				if s.Call != 1 {
					return nil, false
				}
				return At(result, s.Path)
			})
			if err != nil {
				t.Fatal(err)
			}

			// The real run: call 1 ran and returned result.
			real := &planHost{journal: map[int]json.RawMessage{1: result}, plan: func(Call) bool { return false }}
			o = runCode(t, d, code, real, Limits{})
			if o.Status != StatusCompleted {
				t.Fatalf("real run: %s", describeOutcome(o))
			}
			got := real.recorded()
			if len(got) != 2 || got[1].Symbolic {
				t.Fatalf("real calls: %+v", got)
			}
			if string(resolved) != string(got[1].Args) {
				t.Errorf("resolved plan %s, real arguments %s", resolved, got[1].Args)
			}
		})
	}
}

// ignoreMessage leaves the stop's message to TestPlanStopMessage.
var ignoreMessage = cmpopts.IgnoreFields(PlanStop{}, "Message")

func TestPlanStops(t *testing.T) {
	const head = "const e = await github.createIssue({});\n"
	number := "uses it as a number (arithmetic or a comparison)"
	tests := []struct {
		name  string
		code  string
		calls int // calls issued
		want  PlanStop
	}{
		{"comparison", head + "if (e.count > 2) await slack.postMessage({});", 1, PlanStop{Seq: 1, Path: []string{"count"}, Line: 2, Reason: number}},
		{"arithmetic", head + "const n = e.total * 2;\nawait slack.postMessage({ n });", 1, PlanStop{Seq: 1, Path: []string{"total"}, Line: 2, Reason: number}},
		{"loose equality", head + "if (e.state == \"open\") {}", 1, PlanStop{Seq: 1, Path: []string{"state"}, Line: 2, Reason: "uses its value (+ or ==)"}},
		{"concatenation", head + "const s = \"#\" + e.id;", 1, PlanStop{Seq: 1, Path: []string{"id"}, Line: 2, Reason: "uses its value (+ or ==)"}},
		{"template", head + "\nconst s = `#${e.id}`;", 1, PlanStop{Seq: 1, Path: []string{"id"}, Line: 3, Reason: "converts it to a string"}},
		{"String", head + "String(e.labels[2])", 1, PlanStop{Seq: 1, Path: []string{"labels", "2"}, Line: 2, Reason: "converts it to a string"}},
		{"method of a value", head + "e.title.toUpperCase()", 1, PlanStop{Seq: 1, Path: []string{"title"}, Line: 2, Reason: "calls .toUpperCase() on it"}},
		{"map", head + "await Promise.all(e.items.map((i) => slack.postMessage({ i })))", 1, PlanStop{Seq: 1, Path: []string{"items"}, Line: 2, Reason: "calls .map() on it"}},
		{"for of", head + "for (const i of e.items) await slack.postMessage({ i })", 1, PlanStop{Seq: 1, Path: []string{"items"}, Line: 2, Reason: "iterates over it"}},
		{"spread", head + "const all = [...e.items]", 1, PlanStop{Seq: 1, Path: []string{"items"}, Line: 2, Reason: "iterates over it"}},
		{"Object.keys", head + "Object.keys(e)", 1, PlanStop{Seq: 1, Line: 2, Reason: "lists its keys"}},
		{"object spread", head + "const copy = { ...e.user }", 1, PlanStop{Seq: 1, Path: []string{"user"}, Line: 2, Reason: "lists its keys"}},
		{"JSON.stringify", head + "JSON.stringify({ e })", 1, PlanStop{Seq: 1, Line: 2, Reason: "turns it into JSON"}},
		{"in", head + "if (\"id\" in e) {}", 1, PlanStop{Seq: 1, Line: 2, Reason: "checks whether it has the key \"id\""}},
		{"assignment", head + "e.title = \"x\"", 1, PlanStop{Seq: 1, Line: 2, Reason: "changes it"}},
		{"hub.read", head + "await hub.read(e.handle)", 1, PlanStop{Seq: 1, Path: []string{"handle"}, Line: 2, Reason: "passes it to hub.read"}},
		{"hub.read envelope", head + "await hub.read({ handle: e.h })", 1, PlanStop{Seq: 1, Path: []string{"h"}, Line: 2, Reason: "passes it to hub.read"}},
		{"hub.read path", head + "await hub.read(\"h_1\", { path: [\"rows\", e.row] })", 1, PlanStop{Seq: 1, Path: []string{"row"}, Line: 2, Reason: "passes it to hub.read"}},
		{"hub.search", head + "await hub.search(e.query)", 1, PlanStop{Seq: 1, Path: []string{"query"}, Line: 2, Reason: "passes it to hub.search"}},
		{"hub.describe", head + "await hub.describe(e.tool)", 1, PlanStop{Seq: 1, Path: []string{"tool"}, Line: 2, Reason: "passes it to hub.describe"}},
		{"connection", head + "await github.getIssue({}, { connection: e.conn })", 1, PlanStop{Seq: 1, Path: []string{"conn"}, Line: 2, Reason: "passes it as a connection name"}},
		{"structuredClone", head + "structuredClone(e)", 1, PlanStop{Seq: 1, Line: 2, Reason: "clones it"}},
		{"in a helper", head + "function label(x) {\n  return x.name + \"!\"\n}\nawait slack.postMessage({ text: label(e) })", 1,
			PlanStop{Seq: 1, Path: []string{"name"}, Line: 3, Reason: "uses its value (+ or ==)"}},
		{"in a timer", head + "await new Promise((r) => setTimeout(() => r(e.n - 1), 10))", 1, PlanStop{Seq: 1, Path: []string{"n"}, Line: 2, Reason: number}},
		{"not caught", head + "try { e.n < 1 } catch (x) { await slack.postMessage({ x }) } finally { await slack.postMessage({}) }", 1,
			PlanStop{Seq: 1, Path: []string{"n"}, Line: 2, Reason: number}},
		{"a later call's result", head + "const b = await github.createIssue({ parent: e.id });\nawait github.getIssue({ n: 1 });\nreturn b.id + 1", 3,
			PlanStop{Seq: 2, Path: []string{"id"}, Line: 4, Reason: "uses its value (+ or ==)"}},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					h := &planHost{}
					o := runCode(t, d, tt.code, h, Limits{})
					if o.Status != StatusPlanned || o.Stop == nil || o.Result != nil || o.Error != nil {
						t.Fatalf("outcome: %s", describeOutcome(o))
					}
					if diff := cmp.Diff(tt.want, *o.Stop, ignoreMessage); diff != "" {
						t.Errorf("stop (-want +got):\n%s", diff)
					}
					if o.Calls != tt.calls || len(h.recorded()) != tt.calls {
						t.Errorf("%d calls issued, %d reached the host, want %d", o.Calls, len(h.recorded()), tt.calls)
					}
				})
			}
		})
	}
}

func TestPlanStopMessage(t *testing.T) {
	code := "const e = await github.createIssue({});\nconst r = await github.createIssue({ who: e.entities[0].name });\n\nconst s = `${r.entities[0][\"full name\"]}`"
	want := &PlanStop{Seq: 2, Path: []string{"entities", "0", "full name"}, Line: 4, Reason: "converts it to a string",
		Message: `what follows depends on the result of call 2, line 4: the code converts <result of call 2>.entities[0]["full name"] to a string`}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &planHost{}, Limits{})
			if diff := cmp.Diff(want, o.Stop); diff != "" {
				t.Errorf("stop (-want +got):\n%s\n%s", diff, describeOutcome(o))
			}
		})
	}
}

// TestPlanUnseen pins down what no trap sees: these go on as if the
// placeholder were a function, and planning completes.
func TestPlanUnseen(t *testing.T) {
	code := `const e = await github.createIssue({});
		const again = await e;
		const [first] = await Promise.all([e, 1]);
		const { id, user: { name } } = e;
		return [typeof e, e === e.self, e.a === e.a, e == null, again === e, first === e, id === e.id, name === e.user.name, Array.isArray(e), e instanceof Object, !e, e.then, e.toJSON]`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &planHost{}, Limits{})
			if o.Status != StatusPlanned || o.Stop != nil || string(o.Result) != `["function",false,true,false,true,true,true,true,false,true,false,null,null]` {
				t.Errorf("outcome: %s", describeOutcome(o))
			}
		})
	}
}

func TestPlanResultIsSymbolic(t *testing.T) {
	code := `const e = await github.createIssue({});
		return { issue: e, id: e.id, plain: 1, $planned: "mine", $$planned: [e.x] }`
	want := `{"issue":` + symbolJSON(1) + `,"id":` + symbolJSON(1, "id") + `,"plain":1,"$$planned":"mine","$$$planned":[` + symbolJSON(1, "x") + `]}`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &planHost{}, Limits{})
			if o.Status != StatusPlanned || string(o.Result) != want {
				t.Fatalf("outcome: %s\nwant result %s", describeOutcome(o), want)
			}
			resolved, err := Resolve(o.Result, func(s Symbol) (json.RawMessage, bool) { return json.RawMessage(`"v"`), true })
			if err != nil {
				t.Fatal(err)
			}
			if string(resolved) != `{"issue":"v","id":"v","plain":1,"$planned":"mine","$$planned":["v"]}` {
				t.Errorf("resolved %s", resolved)
			}
		})
	}
}

// TestPlanLookAlikes: values of the code's own that look like symbols
// never pass for one, whether the arguments hold a placeholder or not,
// whatever the code defines on the prototypes.
func TestPlanLookAlikes(t *testing.T) {
	fake := `{ $planned: { call: 1, path: ["x"] } }`
	tests := []struct {
		name, code string
		symbolic   bool   // the call with the look-alikes carries a placeholder
		want       string // its arguments, resolved with "P" for each placeholder
	}{
		{"without a placeholder", `await github.getIssue({ a: ` + fake + `, b: { $$planned: 2 }, c: [{ $planned: 3 }] })`, false,
			`{"a":{"$planned":{"call":1,"path":["x"]}},"b":{"$$planned":2},"c":[{"$planned":3}]}`},
		{"beside a placeholder", `await github.getIssue({ a: ` + fake + `, b: { $$planned: 2 }, p: e.x, q: { $planned: e.y } })`, true,
			`{"a":{"$planned":{"call":1,"path":["x"]}},"b":{"$$planned":2},"p":"P","q":{"$planned":"P"}}`},
		{"as the whole arguments", `await github.getIssue(` + fake + `)`, false, `{"$planned":{"call":1,"path":["x"]}}`},
		{"made by toJSON", `await github.getIssue({ a: { toJSON: () => (` + fake + `) }, p: e })`, true, `{"a":{"$planned":{"call":1,"path":["x"]}},"p":"P"}`},
		{"Object.prototype.toJSON", `Object.prototype.toJSON = function () { return this.forge ? ` + fake + ` : this };
			await github.getIssue({ a: { forge: 1 }, p: e.x })`, true, `{"a":{"$planned":{"call":1,"path":["x"]}},"p":"P"}`},
		{"Array.prototype.toJSON", `Array.prototype.toJSON = () => "array";
			await github.getIssue({ p: e.x, q: [1] })`, true, `{"p":"P","q":"array"}`},
		{"setters on the prototypes", `for (const k of ["$planned", "call", "path", "0", "1", "2", "3"]) { Object.defineProperty(Object.prototype, k, { set() { throw new Error("ran") }, configurable: true }); Object.defineProperty(Array.prototype, k, { set() { throw new Error("ran") }, configurable: true }) }
			await github.getIssue({ p: e.x.y })`, true, `{"p":"P"}`},
		{"a key with escapes", `await github.getIssue({ "\u0024planned": 1, p: e.x })`, true, `{"$planned":1,"p":"P"}`},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					h := &planHost{}
					code := "const e = await github.createIssue({});\n" + tt.code
					o := runCode(t, d, code, h, Limits{})
					calls := h.recorded()
					if o.Status != StatusPlanned || o.Stop != nil || len(calls) != 2 {
						t.Fatalf("outcome: %s", describeOutcome(o))
					}
					c := calls[1]
					if c.Symbolic != tt.symbolic {
						t.Errorf("Symbolic = %v, want %v: %s", c.Symbolic, tt.symbolic, c.Args)
					}
					got := c.Args
					if c.Symbolic {
						syms, err := Symbols(c.Args)
						if err != nil {
							t.Fatal(err)
						}
						for _, s := range syms {
							if s.Call != 1 || len(s.Path) > 2 || (len(s.Path) > 0 && s.Path[0] != "x" && s.Path[0] != "y") {
								t.Errorf("symbol %v is none of the code's placeholders", s)
							}
						}
						var err2 error
						if got, err2 = Resolve(c.Args, func(Symbol) (json.RawMessage, bool) { return json.RawMessage(`"P"`), true }); err2 != nil {
							t.Fatal(err2)
						}
					}
					if string(got) != tt.want {
						t.Errorf("arguments %s\nwant %s", got, tt.want)
					}
				})
			}
		})
	}
}

// FuzzPlanArguments passes any JSON value, parsed by the guest, in the
// arguments of a call beside a placeholder and in those of a call without
// one: the first resolves to the second byte for byte, and holds exactly
// the one symbol.
func FuzzPlanArguments(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	for _, s := range []string{`{"$planned":{"call":1,"path":[]}}`, `{"$$planned":1}`, `[{"$planned":null},{"a":{"$$$planned":{"$planned":2}}}]`,
		`{"$planned":1,"x":2}`, `{"$plannedx":1,"x$planned":2,"$":3,"planned":4}`, `{"\u0024planned":{"call":1,"path":["p"]}}`} {
		f.Add(s)
	}
	d := NewInProcess()
	f.Cleanup(func() { d.Close() })
	f.Fuzz(func(t *testing.T, data string) {
		if !json.Valid([]byte(data)) || jsonDepth([]byte(data)) > 64 || len(data) > 4096 {
			return
		}
		lit, _ := json.Marshal(data)
		code := "const e = await github.createIssue({});\nconst v = JSON.parse(" + string(lit) + ");\n" +
			"await github.getIssue({ v, p: e.x });\nawait github.getIssue({ v, p: 7 });\nawait github.getIssue({ v });\nawait github.getIssue({ s: JSON.stringify({ v }) })"
		h := &planHost{}
		o := d.Run(context.Background(), Request{Code: code, Seed: 1, Clock: testClock, Namespaces: testNamespaces, Host: h})
		calls := h.recorded()
		if o.Status == StatusFailed && len(calls) == 1 && strings.Contains(o.Error.Message, "SyntaxError") {
			return // JSON.parse refuses it (a number beyond float64)
		}
		if o.Status != StatusPlanned || len(calls) != 5 {
			t.Fatalf("outcome: %s", describeOutcome(o))
		}
		withP, plain, alone := calls[1], calls[2], calls[3]
		if !withP.Symbolic || plain.Symbolic || alone.Symbolic {
			t.Fatalf("symbolic flags: %v %v %v", withP.Symbolic, plain.Symbolic, alone.Symbolic)
		}
		syms, err := Symbols(withP.Args)
		if err != nil {
			t.Fatalf("Symbols(%s): %v", withP.Args, err)
		}
		if diff := cmp.Diff([]Symbol{{Call: 1, Path: []string{"x"}}}, syms); diff != "" {
			t.Fatalf("symbols of %s (-want +got):\n%s", withP.Args, diff)
		}
		got, err := Resolve(withP.Args, func(Symbol) (json.RawMessage, bool) { return json.RawMessage(`7`), true })
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(plain.Args) {
			t.Fatalf("resolved %s\n   plain %s", got, plain.Args)
		}
		// Without a placeholder the arguments are plain JSON, whatever
		// they hold: the guest's own JSON.stringify writes the same.
		var own struct{ S string }
		if err := json.Unmarshal(calls[4].Args, &own); err != nil || own.S != string(alone.Args) {
			t.Fatalf("arguments without a placeholder %s, JSON.stringify %s (%v)", alone.Args, own.S, err)
		}
	})
}

// TestPlanLogsShowPlaceholders: the guest's logs show a placeholder as the
// Go side does.
func TestPlanLogsShowPlaceholders(t *testing.T) {
	code := `const e = await github.createIssue({});
		console.log(e, { first: e.entities[0], odd: e["a b"]["01"].$x["q\""] });
		try { throw e.error } catch (x) { console.log("caught", x) }`
	want := []string{
		Symbol{Call: 1}.String() + " { first: " + Symbol{Call: 1, Path: []string{"entities", "0"}}.String() + ", odd: " + Symbol{Call: 1, Path: []string{"a b", "01", "$x", `q"`}}.String() + " }",
		"caught " + Symbol{Call: 1, Path: []string{"error"}}.String(),
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &planHost{}, Limits{})
			if diff := cmp.Diff(want, o.Logs); diff != "" || o.Status != StatusPlanned {
				t.Errorf("logs (-want +got):\n%s\n%s", diff, describeOutcome(o))
			}
		})
	}
}

// TestPlanReads: a read can be planned like a call; a lookup cannot.
func TestPlanReads(t *testing.T) {
	code := `const r = await hub.read("h_1", { path: "rows.0" });
		let e;
		try { await hub.search("x") } catch (x) { e = [x.code, x.message] }
		return [r.name, e]`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &plannedLookups{}, Limits{})
			want := Outcome{Status: StatusPlanned, Calls: 1, Planned: []int{1},
				Result: json.RawMessage(`[` + symbolJSON(1, "name") + `,["host_error","lookup planned: the call is planned, not run"]]`)}
			if diff := cmp.Diff(want, o, ignoreCompute); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// plannedLookups plans every read and every lookup.
type plannedLookups struct{ testHost }

func (*plannedLookups) Read(context.Context, Read) (json.RawMessage, error) { return nil, &Planned{} }
func (*plannedLookups) Search(context.Context, string) (string, error)      { return "", &Planned{} }

// TestPlanSuspendWins: a call that suspends while others are planned ends
// the run as suspended, with the planned calls listed.
func TestPlanSuspendWins(t *testing.T) {
	code := `const e = await github.createIssue({});
		await github.getIssue({ n: e.number });
		return 1`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			h := &planHost{}
			h.tools = map[string]func(context.Context, Call) (json.RawMessage, error){
				"github.getIssue": func(_ context.Context, c Call) (json.RawMessage, error) {
					return nil, &Suspend{Kind: "connection"}
				},
			}
			o := runCode(t, d, code, h, Limits{})
			want := Outcome{Status: StatusSuspended, Calls: 2, Planned: []int{1}, Suspends: []*Suspend{{Seq: 2, Address: "github.getIssue", Kind: "connection"}}}
			if diff := cmp.Diff(want, o, ignoreCompute); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanLimits: every limit holds while planning.
func TestPlanLimits(t *testing.T) {
	const head = "const e = await github.createIssue({});\n"
	tests := []struct {
		name   string
		code   string
		limits Limits
		want   string
	}{
		{"max calls", head + "for (;;) await slack.postMessage({ to: e.id })", Limits{MaxCalls: 4}, CodeMaxCalls},
		{"compute", head + "for (;;) e.x.y", Limits{Compute: 300 * time.Millisecond}, CodeComputeLimit},
		{"wall", head + "await github.getIssue({ n: e.n })", Limits{Wall: 300 * time.Millisecond}, CodeWallLimit},
		{"memory", head + "const a = []; for (let i = 0; ; i++) a.push(e[\"k\" + i])", Limits{MemoryBytes: 32 << 20, Compute: 20 * time.Second}, CodeMemoryLimit},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.name == "memory" && (testing.Short() || raceEnabled) {
						t.Skip("filling the heap is too slow under -short and -race")
					}
					t.Parallel()
					h := &planHost{}
					h.tools = map[string]func(context.Context, Call) (json.RawMessage, error){
						"github.getIssue": func(ctx context.Context, c Call) (json.RawMessage, error) {
							<-ctx.Done()
							return nil, ctx.Err()
						},
					}
					o := runCode(t, d, tt.code, h, tt.limits)
					if o.Status != StatusFailed || errCode(o) != tt.want || len(o.Planned) == 0 || o.Planned[0] != 1 {
						t.Fatalf("outcome: %s", describeOutcome(o))
					}
				})
			}
		})
	}
}

// TestPlanAfterReplayIsDeterministic replays two journaled calls, then
// (after a timer and the seeded random source) plans: every attempt on
// either driver ends the same, and stops at the same place. No timer races
// a call here: where such a race ends is the journal's record to replay
// (Request.Fired), as without planning.
func TestPlanAfterReplayIsDeterministic(t *testing.T) {
	code := `const a = await github.getIssue({ n: 1 });
		const b = await github.searchIssues({ q: a.title });
		await new Promise((r) => setTimeout(r, 5));
		const picks = [Math.random(), crypto.randomUUID(), Date.now()];
		const made = [];
		for (const item of b.items) made.push(await github.createIssue({ title: item, pick: picks[0], parent: made.length ? made[made.length - 1].id : null }));
		await new Promise((r) => setTimeout(r, 5));
		await slack.postMessage({ text: "made", ids: made.map((m) => m.id), at: Date.now() });
		return made[2].id > 0`
	journal := map[int]json.RawMessage{1: json.RawMessage(`{"title":"t"}`), 2: json.RawMessage(`{"items":["x","y","z"]}`)}
	var first Outcome
	var firstCalls []Call
	i := 0
	for name, d := range drivers(t) {
		for range 2 {
			h := &planHost{journal: journal}
			req := request(t, code, h, Limits{})
			req.Replay = 2
			o := d.Run(context.Background(), req)
			if o.Status != StatusPlanned || o.Stop == nil || o.Stop.Seq != 5 || o.Calls != 6 {
				t.Fatalf("%s: %s", name, describeOutcome(o))
			}
			calls := h.recorded()
			if i == 0 {
				first, firstCalls = o, calls
			} else {
				if diff := cmp.Diff(first, o, ignoreCompute); diff != "" {
					t.Errorf("%s outcome differs (-first +this):\n%s", name, diff)
				}
				if diff := cmp.Diff(firstCalls, calls); diff != "" {
					t.Errorf("%s calls differ (-first +this):\n%s", name, diff)
				}
			}
			i++
		}
	}
	if len(firstCalls) != 6 || !firstCalls[4].Symbolic || !firstCalls[5].Symbolic || firstCalls[2].Symbolic {
		t.Errorf("calls: %+v", firstCalls)
	}
}

// TestPlanKeepsGlobalsFrozen: placeholders reach nothing the guest could
// not, change nothing, and leave the frozen globals frozen.
func TestPlanKeepsGlobalsFrozen(t *testing.T) {
	code := `const e = await github.createIssue({});
		const r = [];
		const attempt = (f) => { try { r.push(String(f())) } catch (x) { r.push(x.name) } };
		attempt(() => Object.getPrototypeOf(e) === Function.prototype);
		attempt(() => Object.getPrototypeOf(e).constructor("return 1")());
		attempt(() => e[Symbol.toPrimitive].constructor("return 1")());
		attempt(() => e[Symbol.toPrimitive].call({}, "number"));
		attempt(() => Object.isFrozen(e[Symbol.toPrimitive]));
		attempt(() => Reflect.ownKeys(globalThis).filter((k) => /plan|placeholder|symbolic|bridge|internal/i.test(String(k))).length);
		for (const g of [hub, github, slack, console, crypto, ToolError]) attempt(() => Object.isFrozen(g));
		attempt(() => { github.createIssue = 1; return "assigned" });
		return r`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, code, &planHost{}, Limits{})
			want := `["true","TypeError","TypeError","TypeError","true","0","true","true","true","true","true","true","TypeError"]`
			if o.Status != StatusPlanned || string(o.Result) != want {
				t.Errorf("outcome: %s\nwant result %s", describeOutcome(o), want)
			}
		})
	}
}

// TestEscapeCorpusWhilePlanning runs the escape corpus with a placeholder
// made first and every call planned: planning opens no way out.
func TestEscapeCorpusWhilePlanning(t *testing.T) {
	attempts := loadCorpus(t, "testdata/escapes.txt")
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					t.Parallel()
					h := &planHost{plan: func(Call) bool { return true }}
					p, err := Prepare("const planned = await github.createIssue({});\n"+a.code, Limits{})
					if err != nil {
						return // refused before running, as in TestEscapeCorpus
					}
					o := d.Run(context.Background(), Request{Code: p.Code, Seed: 7, Clock: testClock, Namespaces: testNamespaces, Host: h, Limits: Limits{Compute: 2e9}})
					switch errCode(o) {
					case CodeInternal, CodeWorkerCrashed:
						t.Fatalf("engine failure: %s", describeOutcome(o))
					}
					if strings.Contains(string(o.Result), "escaped") || strings.Contains(strings.Join(o.Logs, "\n"), "escaped") {
						t.Fatalf("escaped: %s", describeOutcome(o))
					}
					for _, c := range h.recorded() {
						ok := json.Valid(c.Args)
						if c.Symbolic {
							_, err := Symbols(c.Args)
							ok = err == nil
						}
						if !ok || (c.Connection != "" && c.Connection != "work") {
							t.Errorf("malformed call reached the host: %+v", c)
						}
					}
				})
			}
		})
	}
}
