package sandbox

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCallCodeCountsItsArgumentsAsACall: the code CallCode writes for a
// client's call of one tool runs with arguments past the code's limit, as
// large as one call may send, and reaches the host as sent; code of any
// other shape counts whole, and so does a literal longer than arguments
// of the call's limit can quote to.
func TestCallCodeCountsItsArgumentsAsACall(t *testing.T) {
	limits := Limits{CodeBytes: 1000, ArgsBytes: 4000}
	args := func(n int) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"__proto__": "data", "body": strings.Repeat("<\"é", n)})
		return b
	}
	small := args(300) // 2.7 KB as JSON, more once quoted: over the code's limit
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			host := &testHost{}
			o := runCode(t, d, CallCode("github", "createIssue", small, "work"), host, limits)
			calls := host.recorded()
			if o.Status != StatusCompleted || len(calls) != 1 || !sameJSON(calls[0].Args, small) || calls[0].Connection != "work" {
				t.Fatalf("outcome %.300s, %d calls", describeOutcome(o), len(calls))
			}
			// Within the call's limit as the code writes it (3.9 KB), seven
			// times that as the literal holds it (each < as \\u003c).
			lt, _ := json.Marshal(map[string]string{"b": strings.Repeat("<", 3900)})
			host = &testHost{}
			if o := runCode(t, d, CallCode("github", "createIssue", lt, ""), host, limits); o.Status != StatusCompleted || len(host.recorded()) != 1 {
				t.Fatalf("3,900 times <: outcome %.300s", describeOutcome(o))
			}
			// Over the call's limit as the code writes it (5 KB): the call is
			// refused, unsent.
			host = &testHost{}
			o = runCode(t, d, CallCode("github", "createIssue", args(1000), ""), host, limits)
			if errCode(o) != CodeArgsTooLarge || len(host.recorded()) != 0 {
				t.Fatalf("outcome %.300s, %d calls", describeOutcome(o), len(host.recorded()))
			}
		})
	}
	in := NewInProcess()
	defer in.Close()
	for _, code := range []string{
		"// a model's code\n" + strings.TrimPrefix(CallCode("github", "createIssue", small, ""), CallMark),
		CallCode("github", "createIssue", small, "") + "\nreturn 1;",
		strings.Replace(CallCode("github", "createIssue", small, ""), "github[", "github.x[", 1),
		strings.Replace(CallCode("github", "createIssue", small, ""), "JSON.parse(", "eval(", 1),
		CallCode("github", "createIssue", args(3000), ""), // a literal no 4,000 bytes of arguments quote to
	} {
		if _, err := Prepare(code, limits); err == nil || err.(*Error).Code != CodeCodeTooLarge {
			t.Errorf("Prepare(%.80q...): %v, want %s", code, err, CodeCodeTooLarge)
		}
		o := in.Run(context.Background(), Request{Code: code, Namespaces: testNamespaces, Limits: limits, Host: &testHost{}})
		if errCode(o) != CodeCodeTooLarge {
			t.Errorf("Run(%.80q...): %.300s, want %s", code, describeOutcome(o), CodeCodeTooLarge)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestCallShown: code CallCode wrote reads with a comment in its
// arguments' place, whole or cut inside them; any other code as it is.
func TestCallShown(t *testing.T) {
	args := json.RawMessage(`{"text":"](JSON.parse(\"x\"));"}`)
	full := CallCode("fs", "write_file", args, "work")
	for _, tc := range []struct{ code, want string }{
		{full, CallMark + `return await fs["write_file"](JSON.parse(/* the call's arguments */), { connection: "work" });`},
		{CallCode("fs", `a"](JSON.parse(`, args, ""), CallMark + `return await fs["a\"](JSON.parse("](JSON.parse(/* the call's arguments */));`},
		{full[:len(full)-30], CallMark + `return await fs["write_file"](JSON.parse(/* the call's arguments */ …`},
		{strings.TrimPrefix(full, CallMark), strings.TrimPrefix(full, CallMark)},
		{"return 1", "return 1"},
	} {
		if got := CallShown(tc.code); got != tc.want {
			t.Errorf("CallShown(%q)\n = %q\nwant %q", tc.code, got, tc.want)
		}
	}
}
