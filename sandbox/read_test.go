package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRead checks what the host receives for each form of hub.read, that
// reads take their seq from the calls' sequence, and what the guest gets
// back.
func TestRead(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			host := &testHost{}
			o := runCode(t, d, `
				await github.getIssue({ n: 1 });
				const all = await hub.read("h_a");
				const slice = await hub.read("h_a", { offset: 10, length: 5 });
				const rest = await hub.read("h_a", { offset: 7 });
				const first = await hub.read("h_a", { length: 3 });
				const dotted = await hub.read("h_a", { path: "rows.4321.name" });
				const listed = await hub.read({ handle: "h_b", bytes: 1, kind: "json", preview: "" }, { path: ["a.b", 2] });
				const root = await hub.read("h_a", { path: "" });
				await github.getIssue({ n: 2 });
				return [all.seq, slice, rest.offset, first.length, dotted.path, listed.handle, listed.path, root.path];
			`, host, Limits{})
			if o.Status != StatusCompleted {
				t.Fatalf("%s", describeOutcome(o))
			}
			want := `[2,{"seq":3,"handle":"h_a","slice":true,"offset":10,"length":5},7,3,["rows","4321","name"],"h_b",["a.b","2"],null]`
			if string(o.Result) != want {
				t.Errorf("result\n got %s\nwant %s", o.Result, want)
			}
			if diff := cmp.Diff([]int{1, 9}, []int{host.recorded()[0].Seq, host.recorded()[1].Seq}); diff != "" {
				t.Errorf("call seqs (-want +got):\n%s", diff)
			}
			if o.Calls != 9 {
				t.Errorf("Calls = %d, want 9 (reads count)", o.Calls)
			}
		})
	}
}

// TestReadErrors checks that bad options are TypeErrors naming what is
// wrong, and that the host's ToolError reaches the guest.
func TestReadErrors(t *testing.T) {
	cases := []struct{ code, want string }{
		{`await hub.read(42)`, "TypeError: hub.read: the handle must be a string"},
		{`await hub.read("")`, "TypeError: hub.read: the handle must be a string"},
		{`await hub.read("h_a", { offset: 1, size: 2 })`, `TypeError: hub.read: unknown option "size"`},
		{`await hub.read("h_a", { path: "a", offset: 1 })`, "TypeError: hub.read: pass { path } or { offset, length }, not both"},
		{`await hub.read("h_a", { offset: -1 })`, "TypeError: hub.read: offset must be a whole number"},
		{`await hub.read("h_a", { offset: 1.5 })`, "TypeError: hub.read: offset must be a whole number"},
		{`await hub.read("h_a", { length: 0 })`, "TypeError: hub.read: length must be a whole number of bytes, above 0"},
		{`await hub.read("h_a", { path: [{}] })`, "TypeError: hub.read: path[0] must be a key or an array index"},
		{`await hub.read("h_a", { path: 3 })`, "TypeError: hub.read: path must be a string"},
		{`await hub.read("h_a", "rows.0")`, "TypeError: hub.read: the options are { offset, length }"},
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				host := &testHost{}
				o := runCode(t, d, `try { `+c.code+`; return "no error" } catch (e) { return String(e) }`, host, Limits{})
				var got string
				if o.Status != StatusCompleted || json.Unmarshal(o.Result, &got) != nil || !strings.HasPrefix(got, c.want) {
					t.Errorf("%s: %s, want %q", c.code, describeOutcome(o), c.want)
				}
				if len(host.reads) != 0 {
					t.Errorf("%s: the host got %+v", c.code, host.reads)
				}
			}
			o := runCode(t, d, `try { await hub.read("h_missing") } catch (e) { return [e instanceof ToolError, e.code, e.address, e.message] }`, nil, Limits{})
			if want := `[true,"unknown_handle","hub.read","no handle h_missing"]`; string(o.Result) != want {
				t.Errorf("unknown handle: %s, want %s", describeOutcome(o), want)
			}
			o = runCode(t, d, `await github.getIssue({}); await hub.read("h_a"); await hub.read("h_a")`, nil, Limits{MaxCalls: 2})
			if errCode(o) != CodeMaxCalls || !strings.Contains(o.Error.Message, "call 3 (hub.read)") {
				t.Errorf("max calls: %s", describeOutcome(o))
			}
		})
	}
}

// TestReadSuspends checks that a host may suspend a read like a call.
func TestReadSuspends(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := d.Run(context.Background(), request(t, `await github.getIssue({}); return await hub.read("h_a")`, suspendReads{&testHost{}}, Limits{}))
			if o.Status != StatusSuspended || len(o.Suspends) != 1 || o.Suspends[0].Seq != 2 || o.Suspends[0].Address != ReadAddress || o.Suspends[0].Kind != "diverged" {
				t.Errorf("%s", describeOutcome(o))
			}
		})
	}
}

type suspendReads struct{ *testHost }

func (suspendReads) Read(_ context.Context, rd Read) (json.RawMessage, error) {
	return nil, &Suspend{Kind: "diverged"}
}

// TestWholeResult checks that a result over the inline budget comes back
// whole beside its preview, and that the preview leaves the logs room.
func TestWholeResult(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			o := runCode(t, d, `for (let i = 0; i < 20; i++) console.log("line " + i); return { rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, name: "row " + i })) }`, nil, Limits{})
			if o.Status != StatusCompleted || !o.Truncated.Result || o.Truncated.Logs || len(o.Logs) != 20 {
				t.Fatalf("%.300s", describeOutcome(o))
			}
			var whole struct{ Rows []struct{ ID int } }
			if err := json.Unmarshal(o.Whole, &whole); err != nil || len(whole.Rows) != 5000 || whole.Rows[4999].ID != 4999 {
				t.Errorf("whole: %v, %d rows", err, len(whole.Rows))
			}
			if c := ResultCost(o.Result); c > maxPreviewCost || c < maxPreviewCost-64 {
				t.Errorf("the preview costs %d, want just under %d", c, maxPreviewCost)
			}
			o = runCode(t, d, `return "short"`, nil, Limits{})
			if o.Whole != nil {
				t.Errorf("a result within the budget has Whole %s", o.Whole)
			}
		})
	}
}
