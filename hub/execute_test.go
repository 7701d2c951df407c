package hub

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/sandbox"
)

type e2eHub struct {
	*Hub
	home    string
	memFile string
}

// e2eNewHub starts a hub over the real everything and memory servers, with
// the in-process sandbox driver and the given options.
func e2eNewHub(t *testing.T, opts Options, extra map[string]*config.Source) *e2eHub {
	t.Helper()
	home := t.TempDir()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := &config.Config{Sources: map[string]*config.Source{
		"everything": {Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"}},
		"memory":     {Command: npmServer(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": memFile}},
	}, Policy: map[string]config.Mode{}}
	for k, v := range extra {
		cfg.Sources[k] = v
	}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	opts.Home = home
	if opts.ConfigPoll == 0 {
		opts.ConfigPoll = -1
	}
	ctx := context.Background()
	h, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(ctx); len(errs) > 0 {
		for src, err := range errs {
			if _, isExtra := extra[src]; !isExtra {
				t.Fatalf("refresh %s: %v", src, err)
			}
		}
	}
	return &e2eHub{Hub: h, home: home, memFile: memFile}
}

func (h *e2eHub) exec(t *testing.T, code string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: code, Client: "test"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return env
}

func (h *e2eHub) resumeRun(t *testing.T, id string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Resume: id, Client: "test"})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	return env
}

// entities counts the entities in the memory server's file: the side
// effect, counted on the upstream itself.
func (h *e2eHub) entities(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(h.memFile)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"type":"entity"`)
}

func TestExecuteReadOnlyCalls(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		const [sum, echo] = await Promise.all([everything.getSum({ a: 2, b: 3 }), everything.echo({ message: "hi" })]);
		return { sum, echo };`)
	if env.Status != StatusCompleted {
		t.Fatalf("envelope %s", env.Line())
	}
	if !strings.Contains(string(env.Result), "5") || !strings.Contains(string(env.Result), "hi") {
		t.Errorf("result %s", env.Result)
	}
	if len(env.Calls) != 2 || !env.Calls[0].OK || env.Calls[0].Address != "everything.getSum" || env.Calls[1].Address != "everything.echo" {
		t.Errorf("calls %+v", env.Calls)
	}
	// Resuming a finished run returns its final envelope and calls nothing.
	again := h.resumeRun(t, env.RunID)
	if again.Line() != env.Line() {
		t.Errorf("resume of a finished run:\n%s\nwant\n%s", again.Line(), env.Line())
	}
}

func TestApprovalThenResume(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	code := `
		const before = await memory.readGraph({});
		await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] });
		const after = await memory.readGraph({});
		return { before: before.entities.length, after: after.entities.length };`
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("envelope %s", env.Line())
	}
	p := env.Pending[0]
	if p.Kind != KindApproval || p.Address != "memory.createEntities" || !strings.Contains(p.Message, "capabilities hub approve "+env.RunID) {
		t.Errorf("pending %+v", p)
	}
	if strings.Contains(p.Message, "http") {
		t.Errorf("the model was handed a URL: %q", p.Message)
	}
	if h.entities(t) != 0 {
		t.Fatal("the call ran before approval")
	}
	// Until a person decides, resume returns the same pending envelope.
	if again := h.resumeRun(t, env.RunID); again.Line() != env.Line() {
		t.Fatalf("undecided resume:\n%s\nwant\n%s", again.Line(), env.Line())
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 1 || !strings.Contains(pend[0].Preview, `"name": "Ada"`) {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	if err := h.Decide(context.Background(), p.ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	if err := h.Decide(context.Background(), p.ID, DenyOnce, policy.ChannelCLI, "test"); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("second decision = %v, want ErrAlreadyDecided", err)
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `{"before":0,"after":1}` {
		t.Fatalf("after approval: %s", done.Line())
	}
	if len(done.Calls) != 3 {
		t.Errorf("calls %+v", done.Calls)
	}
	if n := h.entities(t); n != 1 {
		t.Fatalf("entities on the upstream = %d, want exactly 1", n)
	}
	h.resumeRun(t, env.RunID)
	if n := h.entities(t); n != 1 {
		t.Fatalf("resuming a finished run repeated the side effect: %d entities", n)
	}
	hist, _ := h.History(context.Background(), 10)
	if len(hist) == 0 || hist[0].Decision != "allow" || hist[0].Channel != policy.ChannelCLI {
		t.Errorf("audit %+v", hist)
	}
}

func TestDenyAndAlwaysAllow(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	code := `try { await memory.createEntities({ entities: [{ name: "X", entityType: "t", observations: [] }] }); return "made"; } catch (e) { return [e.name, e.code, e.retryable]; }`
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval {
		t.Fatal(env.Line())
	}
	h.Decide(context.Background(), env.Pending[0].ID, DenyOnce, policy.ChannelDialog, "test")
	done := h.resumeRun(t, env.RunID)
	if string(done.Result) != `["ToolError","denied",false]` {
		t.Fatalf("denied call: %s", done.Line())
	}
	if h.entities(t) != 0 {
		t.Fatal("a denied call reached the upstream")
	}
	// Always allow: the next run does not ask.
	env = h.exec(t, code)
	h.Decide(context.Background(), env.Pending[0].ID, AllowAlways, policy.ChannelDialog, "test")
	h.resumeRun(t, env.RunID)
	env = h.exec(t, code)
	if env.Status != StatusCompleted || string(env.Result) != `"made"` {
		t.Fatalf("after always allow: %s", env.Line())
	}
	rules, _ := h.PolicyRules(context.Background())
	if len(rules) != 1 || rules[0].Target != "memory.createEntities" || !rules[0].Remembered || rules[0].From != policy.ChannelDialog || rules[0].Mode != config.Allow {
		t.Errorf("rules %+v", rules)
	}
}

func TestPolicyDenyHidesAndThrows(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	if err := h.SetPolicy(context.Background(), "everything.echo", config.Deny); err != nil {
		t.Fatal(err)
	}
	out, err := h.Search(context.Background(), SearchRequest{Query: "echo a message back"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "everything.echo(") || !strings.Contains(out, "1 tool hidden by your policy") {
		t.Errorf("search shows a denied tool or no count:\n%s", out)
	}
	if _, err := h.Describe(context.Background(), DescribeRequest{Targets: []string{"everything.echo"}}); err == nil {
		t.Error("describe of a denied tool succeeded")
	}
	env := h.exec(t, `try { await everything.echo({ message: "x" }); } catch (e) { return e.code; }`)
	if string(env.Result) != `"denied"` {
		t.Fatalf("%s", env.Line())
	}
}

func TestInvalidArgumentsNameTheField(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `const out = [];
for (const args of [{ a: "one", b: 2 }, { a: 1, b: "two" }]) {
	try { await everything.getSum(args); out.push("called"); } catch (e) { out.push([e.code, e.message]); }
}
return out;`)
	var got [][2]string
	if err := json.Unmarshal(env.Result, &got); err != nil || len(got) != 2 {
		t.Fatalf("%s", env.Line())
	}
	for i, field := range []string{"a", "b"} {
		other := "/properties/" + map[string]string{"a": "b", "b": "a"}[field]
		if got[i][0] != CodeInvalidArgs || !strings.Contains(got[i][1], "/properties/"+field+":") || strings.Contains(got[i][1], other) || !strings.Contains(got[i][1], `want "number"`) {
			t.Errorf("getSum with a bad %s: %q; want %s naming /properties/%s and the type wanted", field, got[i], CodeInvalidArgs, field)
		}
	}
	if len(env.Calls) != 2 || env.Calls[0].OK || env.Calls[1].OK {
		t.Errorf("calls %+v", env.Calls)
	}
}

func TestReplayDiverged(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `await everything.echo({ message: "a" }); await memory.createEntities({ entities: [] }); return 1;`)
	if env.Status != StatusAwaitingApproval {
		t.Fatal(env.Line())
	}
	// Fault injection: the journal no longer matches what the code calls.
	if err := rawExec(t, h.db, `UPDATE journal SET args_hash = 'other' WHERE run_id = ? AND seq = 1`, env.RunID); err != nil {
		t.Fatal(err)
	}
	h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "")
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusFailed || done.Error.Code != CodeReplayDiverged || !strings.Contains(done.Error.Message, "call 1") {
		t.Fatalf("%s", done.Line())
	}
}

func TestInterruptedCallIsNotRepeated(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		const r = await Promise.allSettled([memory.createEntities({ entities: [{ name: "A", entityType: "t", observations: [] }] }), everything.echo({ message: "m" })]);
		return r.map(x => x.status === "fulfilled" ? "ok" : x.reason.code);`)
	if env.Status != StatusAwaitingApproval {
		t.Fatal(env.Line())
	}
	// As if the hub died with a non-idempotent call in flight.
	if err := rawExec(t, h.db, `UPDATE journal SET state = 'issued', outcome = NULL WHERE run_id = ? AND seq = 2`, env.RunID); err != nil {
		t.Fatal(err)
	}
	h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "")
	done := h.resumeRun(t, env.RunID)
	// echo is read-only and idempotent: it is repeated; createEntities ran once.
	if done.Status != StatusCompleted || string(done.Result) != `["ok","ok"]` {
		t.Fatalf("%s", done.Line())
	}
	if h.entities(t) != 1 {
		t.Fatalf("entities = %d", h.entities(t))
	}
	// A non-idempotent call found in flight fails as interrupted.
	env = h.exec(t, `try { await memory.addObservations({ observations: [{ entityName: "A", contents: ["x"] }] }); return "ran"; } catch (e) { return e.code; }`)
	if env.Status != StatusAwaitingApproval {
		t.Fatal(env.Line())
	}
	h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "")
	if err := rawExec(t, h.db, `UPDATE journal SET state = 'issued' WHERE run_id = ? AND seq = 1`, env.RunID); err != nil {
		t.Fatal(err)
	}
	done = h.resumeRun(t, env.RunID)
	if string(done.Result) != `"interrupted"` {
		t.Fatalf("%s", done.Line())
	}
}

func TestApprovalExpires(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixMilli())
	h := e2eNewHub(t, Options{ApprovalTTL: time.Minute, Now: func() time.Time { return time.UnixMilli(now.Load()) }}, nil)
	env := h.exec(t, `await memory.createEntities({ entities: [] }); return 1;`)
	if env.Status != StatusAwaitingApproval {
		t.Fatal(env.Line())
	}
	now.Add(int64(2 * time.Minute / time.Millisecond))
	if err := h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, ""); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("deciding an expired approval: %v", err)
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusFailed || done.Error.Code != CodeApprovalExpired {
		t.Fatalf("%s", done.Line())
	}
}

func TestAwaitingConnection(t *testing.T) {
	if _, err := keychain.New().Get("probe/hub-test"); errors.Is(err, keychain.ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("keychain must be reachable under CI: %v", err)
		}
		t.Skip("no keychain")
	}
	src := "sec" + strings.ToLower(newID(""))[:6]
	extra := map[string]*config.Source{src: {
		Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"},
		Connections: map[string]*config.Connection{"work": {Default: true, Env: map[string]string{"API_TOKEN": "${secret:API_TOKEN}"}}},
	}}
	t.Cleanup(func() { keychain.New().Delete(config.SecretKey(src, "work", "API_TOKEN")) })
	// The catalog lists the source's tools once, with the secret present.
	keychain.New().Set(config.SecretKey(src, "work", "API_TOKEN"), "first-secret-value")
	h := e2eNewHub(t, Options{Keychain: keychain.New()}, extra)
	keychain.New().Delete(config.SecretKey(src, "work", "API_TOKEN"))
	ns := naming.Namespace(src)
	env := h.exec(t, `return await `+ns+`.echo({ message: "hi" });`)
	if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 || env.Pending[0].Kind != KindConnection {
		t.Fatalf("%s", env.Line())
	}
	if !strings.Contains(env.Pending[0].Message, "capabilities connection add "+src+" work --secret API_TOKEN") {
		t.Errorf("message %q", env.Pending[0].Message)
	}
	if again := h.resumeRun(t, env.RunID); again.Status != StatusAwaitingConnection {
		t.Fatalf("%s", again.Line())
	}
	if err := h.SetSecret(context.Background(), src, "work", "second-secret-value"); err != nil {
		t.Fatal(err)
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || !strings.Contains(string(done.Result), "hi") {
		t.Fatalf("%s", done.Line())
	}
	db, _ := os.ReadFile(filepath.Join(h.home, "capabilities.db"))
	wal, _ := os.ReadFile(filepath.Join(h.home, "capabilities.db-wal"))
	for _, s := range []string{"first-secret-value", "second-secret-value"} {
		if strings.Contains(string(db)+string(wal), s) {
			t.Errorf("secret %q found in the database", s)
		}
	}
}

func TestLimitsThroughExecute(t *testing.T) {
	h := e2eNewHub(t, Options{Limits: sandbox.Limits{Compute: 300 * time.Millisecond, MaxCalls: 3, CodeBytes: 4096, InlineResultBytes: 2048}}, nil)
	for _, tc := range []struct {
		name, code, want string
	}{
		{"compute", `while (true) {}`, sandbox.CodeComputeLimit},
		{"max calls", `for (let i = 0; i < 5; i++) await everything.echo({ message: "m" + i }); return 1;`, sandbox.CodeMaxCalls},
		{"code bytes", "return 1;" + strings.Repeat(" ", 5000), sandbox.CodeCodeTooLarge},
		{"stack", `function f(n) { return f(n + 1) + 1; } return f(0);`, sandbox.CodeStackLimit},
		{"syntax", `return (;`, sandbox.CodeSyntaxError},
		{"timer", `await new Promise(r => setTimeout(r, 31000)); return 1;`, sandbox.CodeTimerLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := h.exec(t, tc.code)
			if env.Status != StatusFailed || env.Error == nil || env.Error.Code != tc.want || env.Error.Hint == "" {
				t.Fatalf("%s", env.Line())
			}
		})
	}
	env := h.exec(t, `console.log("x".repeat(3000)); return "y".repeat(3000);`)
	if env.Truncated == nil || !env.Truncated.Result {
		t.Errorf("truncation: %s", shortLine(env.Line()))
	}
	if n := len(env.Line()); n > 8000 {
		t.Errorf("envelope of %d bytes with a 2 KB inline budget", n)
	}
}

func shortLine(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestExecuteInputErrors(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	// The direct-mode mark is CallTool's alone: a model's code that starts
	// with it would get the upstream's raw result.
	for _, req := range []ExecuteRequest{{}, {Code: "1", Resume: "r_x"}, {Resume: "r_nope"}, {Code: sandbox.CallMark + "return 1;"}} {
		if _, err := h.Execute(context.Background(), req); err == nil {
			t.Errorf("%+v accepted", req)
		}
	}
	env := h.exec(t, "```js\nreturn 40 + 2\n```")
	if env.Status != StatusCompleted || string(env.Result) != "42" || len(env.Notices) != 1 {
		t.Errorf("%s", env.Line())
	}
	b, _ := json.Marshal(env)
	if !strings.Contains(string(b), `"calls":[]`) {
		t.Errorf("calls must always be present: %s", b)
	}
}

// TestChangedDefinitionAsksUntilAccepted: a tool whose accepted definition
// changed asks even though the policy allows it, until the person accepts
// the new definition (which changes no catalog snapshot).
func TestChangedDefinitionAsksUntilAccepted(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, nil)
	weather := func(desc string) {
		server.AddTool(&mcp.Tool{Name: "get_weather", Description: desc, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
			InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
			})
	}
	weather("Weather for a city.")
	h := hubOver(t, "live", server)
	exec := func() *Envelope {
		t.Helper()
		env, err := h.Execute(ctx, ExecuteRequest{Code: `return await live.getWeather({});`})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	if env := exec(); env.Status != StatusCompleted {
		t.Fatalf("a new read-only tool: %s", env.Line())
	}
	// The person knows this definition; then it changes.
	if _, err := h.AcceptDefinitions(ctx, "live.getWeather", policy.ChannelCLI); err != nil {
		t.Fatal(err)
	}
	weather("Weather for a city, in Celsius.")
	if errs := h.Refresh(ctx, "live"); len(errs) > 0 {
		t.Fatal(errs)
	}
	if env := exec(); env.Status != StatusAwaitingApproval || !strings.Contains(env.Pending[0].Summary, "changed tool definition") {
		t.Fatalf("a changed definition: %s", env.Line())
	}
	// The window lists the change and shows both definitions; the person
	// accepts what was shown, and only that: a definition that changed
	// again meanwhile is not accepted and keeps asking.
	changes, err := h.ToolChanges(ctx)
	if err != nil || len(changes) != 1 || changes[0].Address != "live.getWeather" || changes[0].Hash == "" {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	was, is, hash, err := h.ChangedDefinition(ctx, "live.getWeather")
	if err != nil || hash != changes[0].Hash || !strings.Contains(string(was), `"Weather for a city."`) || !strings.Contains(string(is), "in Celsius") {
		t.Fatalf("definitions: was %s, is %s, hash %s (listed %s), %v", was, is, hash, changes[0].Hash, err)
	}
	shown := []catalog.Shown{{Address: "live.getWeather", Hash: hash}}
	weather("Weather for a city, in Kelvin.")
	if errs := h.Refresh(ctx, "live"); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := h.AcceptShown(ctx, shown, policy.ChannelWindow); err == nil || !strings.Contains(err.Error(), "live.getWeather changed again since shown") {
		t.Fatalf("accepting a definition that changed again since shown: %v", err)
	}
	if env := exec(); env.Status != StatusAwaitingApproval {
		t.Fatalf("after accepting an older definition than the current one: %s", env.Line())
	}
	_, _, hash, err = h.ChangedDefinition(ctx, "live.getWeather")
	if err != nil {
		t.Fatal(err)
	}
	if accepted, err := h.AcceptShown(ctx, []catalog.Shown{{Address: "live.getWeather", Hash: hash}}, policy.ChannelWindow); err != nil || len(accepted) != 1 {
		t.Fatalf("accepting the definition shown: %+v, %v", accepted, err)
	}
	if env := exec(); env.Status != StatusCompleted {
		t.Fatalf("after the change was accepted: %s", env.Line())
	}
	if _, _, _, err := h.ChangedDefinition(ctx, "live.getWeather"); err == nil {
		t.Error("an accepted tool still has a changed definition")
	}
}

// A run that calls no tool is stored once, with its envelope: it is listed,
// and resuming it returns that envelope.
func TestRunWithoutCallsIsStored(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `console.log("hi"); return 6 * 7`)
	if env.Status != StatusCompleted || string(env.Result) != "42" {
		t.Fatalf("envelope %s", env.Line())
	}
	runs, err := h.Runs(context.Background(), 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != env.RunID || runs[0].Status != StatusCompleted {
		t.Fatalf("runs %+v, want the one completed run %s", runs, env.RunID)
	}
	if again := h.resumeRun(t, env.RunID); again.Line() != env.Line() {
		t.Errorf("resume:\n%s\nwant\n%s", again.Line(), env.Line())
	}
}
