package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/sandbox"
)

// reopen closes h and opens a hub of the same home and memory server, as
// a restart of the hub process would.
func (h *e2eHub) reopen(t *testing.T) *e2eHub {
	t.Helper()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h2, err := New(ctx, Options{Home: h.home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h2.Close() })
	if errs := h2.Refresh(ctx); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	return &e2eHub{Hub: h2, home: h.home, memFile: h.memFile}
}

// approveAll allows every open approval of run id as `hub approve --yes`
// does, and returns them.
func (h *e2eHub) approveAll(t *testing.T, id string) []Approval {
	t.Helper()
	decided, err := h.ApproveRun(context.Background(), id, AllowOnce, policy.ChannelCLI, "test")
	if err != nil {
		t.Fatal(err)
	}
	return decided
}

// memoryFile is what the memory server stored.
func (h *e2eHub) memoryFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(h.memFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func pendingAddresses(items []PendingItem) []string {
	var out []string
	for _, p := range items {
		out = append(out, p.Address)
	}
	return out
}

// TestPlanLoopOfFiveWrites: a loop of five writes asks once, with a plan of
// the five in order, that survives a restart of the hub; once allowed, each
// write runs exactly once, and resuming the finished run sends none again.
func TestPlanLoopOfFiveWrites(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	code := `
		const made = [];
		for (let i = 0; i < 5; i++) {
			const r = await memory.createEntities({ entities: [{ name: "E" + i, entityType: "t", observations: [] }] });
			made.push(r.entities[0].name);
		}
		return made;`
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 5 {
		t.Fatalf("envelope %s", env.Line())
	}
	if h.entities(t) != 0 {
		t.Fatal("a planned call was sent")
	}
	if !strings.Contains(env.Pending[0].Message, "plan of 5 calls") {
		t.Errorf("message %q does not tell the model about the plan", env.Pending[0].Message)
	}
	h = h.reopen(t)
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 5 {
		t.Fatalf("Pending after a restart = %d, %v", len(pend), err)
	}
	for i, a := range pend {
		if a.Plan == nil || a.Plan.Position != i+1 || a.Plan.Of != 5 || a.Plan.Seq != i+1 || a.Seq != i+1 || a.Plan.Stop != "" {
			t.Errorf("approval %d plan %+v seq %d", i, a.Plan, a.Seq)
		}
		if !strings.Contains(a.Preview, fmt.Sprintf(`"name": "E%d"`, i)) || a.Address != "memory.createEntities" {
			t.Errorf("approval %d: %s %s", i, a.Address, a.Preview)
		}
	}
	if decided := h.approveAll(t, env.RunID); len(decided) != 5 {
		t.Fatalf("decided %d", len(decided))
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `["E0","E1","E2","E3","E4"]` {
		t.Fatalf("after the plan's approval: %s", done.Line())
	}
	if n := h.entities(t); n != 5 {
		t.Fatalf("entities on the upstream = %d, want 5", n)
	}
	if len(done.Calls) != 5 {
		t.Errorf("calls %+v", done.Calls)
	}
	h.resumeRun(t, env.RunID)
	if n := h.entities(t); n != 5 {
		t.Fatalf("resuming the finished run sent writes again: %d entities", n)
	}
	hist, _ := h.History(context.Background(), 20)
	allows := 0
	for _, e := range hist {
		if e.Decision == "allow" && e.RunID == env.RunID {
			allows++
		}
	}
	if allows != 5 {
		t.Errorf("audit holds %d allows for the run, want 5: %+v", allows, hist)
	}
}

// TestPlanSymbolicArguments: a write whose arguments use an earlier write's
// result is planned with a placeholder, shown as <result of call 1>.path,
// and runs without asking again when the value is the one it stood for.
func TestPlanSymbolicArguments(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		const made = await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		await memory.addObservations({ observations: [{ entityName: made.entities[0].name, contents: ["wrote the first program"] }] });
		return "ok";`)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("envelope %s", env.Line())
	}
	if diff := cmp.Diff([]string{"memory.createEntities", "memory.addObservations"}, pendingAddresses(env.Pending)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 2 {
		t.Fatalf("Pending = %d, %v", len(pend), err)
	}
	if want := `"entityName": <result of call 1>.entities[0].name`; !strings.Contains(pend[1].Preview, want) {
		t.Errorf("preview of the dependent write:\n%s\nwant it to hold %s", pend[1].Preview, want)
	}
	if !strings.Contains(env.Pending[1].Summary, "<result of call 1>.entities[0].name") {
		t.Errorf("summary %q", env.Pending[1].Summary)
	}
	h.approveAll(t, env.RunID)
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `"ok"` {
		t.Fatalf("after the plan's approval: %s", done.Line())
	}
	if mem := h.memoryFile(t); strings.Count(mem, "wrote the first program") != 1 || h.entities(t) != 1 {
		t.Errorf("the memory server holds:\n%s", mem)
	}
}

// TestPlanStopsAtAWriteItsResultDecides: a write that only an earlier
// write's actual result decides is not in the plan; the plan says where it
// stopped, and the write asks after the plan's approval.
func TestPlanStopsAtAWriteItsResultDecides(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		const made = await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		if (made.entities.length > 0) {
			await memory.createEntities({ entities: [{ name: "Bob", entityType: "person", observations: [] }] });
		}
		return "ok";`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("envelope %s", env.Line())
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 1 || pend[0].Plan == nil {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	if stop := pend[0].Plan.Stop; !strings.Contains(stop, "result of call 1") || !strings.Contains(stop, "line 3") {
		t.Errorf("stop %q; want where and why planning stopped", stop)
	}
	if !strings.Contains(strings.Join(env.Notices, "\n"), "Planning stopped") {
		t.Errorf("notices %q", env.Notices)
	}
	h.approveAll(t, env.RunID)
	again := h.resumeRun(t, env.RunID)
	if again.Status != StatusAwaitingApproval || len(again.Pending) != 1 || !strings.Contains(again.Pending[0].Summary, "Bob") {
		t.Fatalf("after the plan's approval: %s", again.Line())
	}
	if n := h.entities(t); n != 1 {
		t.Fatalf("entities = %d, want 1 (Ada)", n)
	}
	h.approveAll(t, env.RunID)
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || h.entities(t) != 2 {
		t.Fatalf("%s; %d entities", done.Line(), h.entities(t))
	}
}

// TestPlanMarksDeniedCalls: a call policy denies is marked in the plan and
// never runs, in the plan or after it.
func TestPlanMarksDeniedCalls(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	if err := h.SetPolicy(context.Background(), "memory.deleteEntities", config.Deny); err != nil {
		t.Fatal(err)
	}
	env := h.exec(t, `
		await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		let denied = "";
		try { await memory.deleteEntities({ entityNames: ["Ada"] }); } catch (e) { denied = e.code; }
		await memory.createEntities({ entities: [{ name: "Bob", entityType: "person", observations: [] }] });
		return denied;`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 2 {
		t.Fatalf("envelope %s", env.Line())
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 2 || pend[0].Plan == nil {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	if d := pend[0].Plan.Denied; len(d) != 1 || d[0].Address != "memory.deleteEntities" || d[0].Seq != 2 || !strings.Contains(d[0].Preview, "Ada") {
		t.Errorf("denied in the plan: %+v", d)
	}
	if !strings.Contains(strings.Join(env.Notices, "\n"), "call 2 (memory.deleteEntities)") {
		t.Errorf("notices %q", env.Notices)
	}
	h.approveAll(t, env.RunID)
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `"denied"` {
		t.Fatalf("after the plan's approval: %s", done.Line())
	}
	if n := h.entities(t); n != 2 {
		t.Fatalf("entities = %d, want 2: the denied delete must not run", n)
	}
}

// TestPlanOtherCallAsksAgain: the real run is held to the plan call by
// call; a call the plan did not foresee (the code took another branch once
// it had the actual result) is not sent, and the rest of the run is planned
// again from there.
func TestPlanOtherCallAsksAgain(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	// A placeholder's typeof is "function": planning takes the other branch.
	env := h.exec(t, `
		const r = await memory.createEntities({ entities: [{ name: "A", entityType: "t", observations: [] }] });
		if (typeof r === "object") await memory.createEntities({ entities: [{ name: "B", entityType: "t", observations: [] }] });
		else await memory.createEntities({ entities: [{ name: "C", entityType: "t", observations: [] }] });
		return "ok";`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 2 || !strings.Contains(env.Pending[1].Summary, `"C"`) {
		t.Fatalf("envelope %s", env.Line())
	}
	h.approveAll(t, env.RunID)
	again := h.resumeRun(t, env.RunID)
	if again.Status != StatusAwaitingApproval || len(again.Pending) != 1 || !strings.Contains(again.Pending[0].Summary, `"B"`) {
		t.Fatalf("a call the plan did not hold: %s", again.Line())
	}
	if n := h.entities(t); n != 1 {
		t.Fatalf("entities = %d, want 1 (A)", n)
	}
	h.approveAll(t, env.RunID)
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted {
		t.Fatal(done.Line())
	}
	if mem := h.memoryFile(t); !strings.Contains(mem, `"name":"B"`) || strings.Contains(mem, `"name":"C"`) {
		t.Errorf("the memory server holds:\n%s", mem)
	}
}

// TestPlanPersonDeniesOneCall: a person may decide a plan call by call; the
// call they deny gets the denial and the others run.
func TestPlanPersonDeniesOneCall(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		const out = [];
		for (const name of ["A", "B", "C"]) {
			try { await memory.createEntities({ entities: [{ name, entityType: "t", observations: [] }] }); out.push("made"); }
			catch (e) { out.push(e.code); }
		}
		return out;`)
	if len(env.Pending) != 3 {
		t.Fatalf("envelope %s", env.Line())
	}
	ctx := context.Background()
	for i, p := range env.Pending {
		d := AllowOnce
		if i == 1 {
			d = DenyOnce
		}
		if err := h.Decide(ctx, p.ID, d, policy.ChannelDialog, "test"); err != nil {
			t.Fatal(err)
		}
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `["made","denied","made"]` {
		t.Fatalf("%s", done.Line())
	}
	if mem := h.memoryFile(t); h.entities(t) != 2 || strings.Contains(mem, `"name":"B"`) {
		t.Errorf("the memory server holds:\n%s", mem)
	}
}

// TestPlanEndsAtALimit: planning that reaches a limit of the run ends
// there with the plan it has and says why; the real run is held to the
// limit as well.
func TestPlanEndsAtALimit(t *testing.T) {
	h := e2eNewHub(t, Options{Limits: sandbox.Limits{MaxCalls: 3}}, nil)
	env := h.exec(t, `
		for (let i = 0; i < 5; i++) await memory.createEntities({ entities: [{ name: "E" + i, entityType: "t", observations: [] }] });
		return "ok";`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 3 {
		t.Fatalf("envelope %s", env.Line())
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 3 || !strings.Contains(pend[2].Plan.Stop, sandbox.CodeMaxCalls) {
		t.Fatalf("Pending = %+v, %v; want the plan to say it ended at max_calls", pend, err)
	}
	h.approveAll(t, env.RunID)
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusFailed || done.Error.Code != sandbox.CodeMaxCalls {
		t.Fatalf("the real run: %s", done.Line())
	}
	if n := h.entities(t); n != 3 {
		t.Fatalf("entities = %d, want the 3 planned", n)
	}
}

// TestPlanApprovalsPerRun measures what a plan saves a person on the
// memory server's typical multi-write tasks: the times the run pauses for
// a decision, against the writes it makes, each of which paused it before
// plans. It reports the counts.
func TestPlanApprovalsPerRun(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	for _, task := range []struct {
		name, code string
		writes     int
	}{
		{"five entities", `for (let i = 0; i < 5; i++) await memory.createEntities({ entities: [{ name: "N" + i, entityType: "note", observations: [] }] }); return "ok";`, 5},
		{"two people, a fact and a relation", `
			const made = await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }, { name: "Charles", entityType: "person", observations: [] }] });
			const [ada, charles] = [made.entities[0], made.entities[1]];
			await memory.addObservations({ observations: [{ entityName: ada.name, contents: ["wrote the first program"] }] });
			await memory.createRelations({ relations: [{ from: ada.name, to: charles.name, relationType: "worked with" }] });
			return "ok";`, 3},
	} {
		env := h.exec(t, task.code)
		pauses, decided := 0, 0
		for env.Status == StatusAwaitingApproval && pauses < 10 {
			pauses++
			decided += len(h.approveAll(t, env.RunID))
			env = h.resumeRun(t, env.RunID)
		}
		if env.Status != StatusCompleted {
			t.Fatalf("%s: %s", task.name, env.Line())
		}
		t.Logf("%s: %d writes approved in %d pause(s); one pause per write without a plan", task.name, decided, pauses)
		if decided != task.writes || pauses != 1 {
			t.Errorf("%s: %d writes in %d pauses, want %d in 1", task.name, decided, pauses, task.writes)
		}
	}
}

// githubPart writes the part of GitHub's own description (@octokit/openapi)
// that ops names (a path to its methods), with every component those reach,
// to a file, and returns its path: the real definitions, small enough for
// Prism to start at once.
func githubPart(t testing.TB, ops map[string][]string) string {
	t.Helper()
	b, err := os.ReadFile(githubDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	allPaths := doc["paths"].(map[string]any)
	allComps := doc["components"].(map[string]any)
	paths := map[string]any{}
	var todo []string
	var refs func(v any)
	refs = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					todo = append(todo, s)
				} else {
					refs(x)
				}
			}
		case []any:
			for _, x := range v {
				refs(x)
			}
		}
	}
	for path, methods := range ops {
		item := map[string]any{}
		for _, m := range methods {
			op, ok := allPaths[path].(map[string]any)[m]
			if !ok {
				t.Fatalf("GitHub's description has no %s %s", m, path)
			}
			item[m] = op
		}
		paths[path] = item
		refs(item)
	}
	comps := map[string]any{}
	seen := map[string]bool{}
	for len(todo) > 0 {
		ref := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		kind, name, ok := strings.Cut(strings.TrimPrefix(ref, "#/components/"), "/")
		if !ok {
			t.Fatalf("a reference outside the components: %s", ref)
		}
		c := allComps[kind].(map[string]any)[name]
		if comps[kind] == nil {
			comps[kind] = map[string]any{}
		}
		comps[kind].(map[string]any)[name] = c
		refs(c)
	}
	out, err := json.Marshal(map[string]any{"openapi": doc["openapi"], "info": doc["info"], "servers": doc["servers"], "paths": paths, "components": comps})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "github.json")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestPlanApprovalsPerRunGitHub measures what a plan saves a person on
// GitHub's typical multi-write tasks, through an OpenAPI source of GitHub's
// own description over a Prism mock that refuses requests breaking it: the
// times the run pauses for a decision, against the writes it makes, each of
// which paused it before plans. It reports the counts.
func TestPlanApprovalsPerRunGitHub(t *testing.T) {
	doc := githubPart(t, map[string][]string{
		"/repos/{owner}/{repo}/issues":                       {"post"},
		"/repos/{owner}/{repo}/issues/{issue_number}/labels": {"get", "post"},
		"/user/starred/{owner}/{repo}":                       {"put", "delete"},
	})
	prism := hubtest.StartPrism(t, doc)
	h := newOpenAPIHub(t, "github", &config.Source{OpenAPI: doc, BaseURL: prism.URL}, nil, Options{})
	for _, task := range []struct {
		name, code string
		writes     int
		requests   []string // the writes Prism sees, in order
	}{
		{"three issues, each labelled", `
			const made = [];
			for (const title of ["Crash on start", "Typo in the README", "Slow search"]) {
				const issue = await github.issuesCreate({ owner: "octo", repo: "hello", title });
				await github.issuesAddLabels({ owner: "octo", repo: "hello", issue_number: issue.number, body: { labels: ["triage"] } });
				made.push(issue.number);
			}
			return made.length;`, 6, nil},
		{"label three issues not labelled yet", `
			for (const issue_number of [1, 2, 3]) {
				const labels = await github.issuesListLabelsOnIssue({ owner: "octo", repo: "hello", issue_number });
				if (!labels.some((l) => l.name === "triage")) await github.issuesAddLabels({ owner: "octo", repo: "hello", issue_number, body: { labels: ["triage"] } });
			}
			return "ok";`, 3, []string{"post /repos/octo/hello/issues/1/labels", "post /repos/octo/hello/issues/2/labels", "post /repos/octo/hello/issues/3/labels"}},
		{"star two repositories, unstar one", `
			for (const repo of ["go-sdk", "typescript-sdk"]) await github.activityStarRepoForAuthenticatedUser({ owner: "modelcontextprotocol", repo });
			await github.activityUnstarRepoForAuthenticatedUser({ owner: "octo", repo: "old" });
			return "ok";`, 3, []string{"put /user/starred/modelcontextprotocol/go-sdk", "put /user/starred/modelcontextprotocol/typescript-sdk", "delete /user/starred/octo/old"}},
	} {
		before := len(prism.Requests())
		env := execCode(t, h, task.code)
		pauses, decided := 0, 0
		for env.Status == StatusAwaitingApproval && pauses < 10 {
			pauses++
			d, err := h.ApproveRun(context.Background(), env.RunID, AllowOnce, policy.ChannelCLI, "test")
			if err != nil {
				t.Fatal(err)
			}
			decided += len(d)
			env = resumeCode(t, h, env.RunID)
		}
		if env.Status != StatusCompleted {
			t.Fatalf("%s: %s", task.name, env.Line())
		}
		t.Logf("%s: %d writes approved in %d pause(s); one pause per write without a plan", task.name, decided, pauses)
		if decided != task.writes || pauses != 1 {
			t.Errorf("%s: %d writes in %d pauses, want %d in 1", task.name, decided, pauses, task.writes)
		}
		var writes []string
		seen := func() bool {
			writes = writes[:0]
			for _, r := range prism.Requests()[before:] {
				if !strings.HasPrefix(r, "get ") {
					writes = append(writes, r)
				}
			}
			return len(writes) >= task.writes
		}
		// Prism logs a request on its own time, after it answered it.
		testwait.Until(10*time.Second, seen)
		if len(writes) != task.writes || task.requests != nil && !slices.Equal(writes, task.requests) {
			t.Errorf("%s: Prism saw the writes %q; want each of the %d once", task.name, writes, task.writes)
		}
	}
}

// TestPlanReadsAhead: after a planned write, a read policy allows is sent
// while planning, so a write the code decides on the read's result is
// planned too, in the one pause; the read is not journaled, and the real
// run reads again after the planned writes, never replaying the state
// before them.
func TestPlanReadsAhead(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		const found = await memory.searchNodes({ query: "Grace" });
		if (found.entities.length === 0) await memory.createEntities({ entities: [{ name: "Grace", entityType: "person", observations: [] }] });
		return (await memory.readGraph({})).entities.map((e) => e.name);`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 2 || h.entities(t) != 0 {
		t.Fatalf("planning: %s, %d entities", env.Line(), h.entities(t))
	}
	pend, err := h.Pending(context.Background(), env.RunID)
	if err != nil || len(pend) != 2 {
		t.Fatalf("pending %+v %v", pend, err)
	}
	if p := pend[1]; p.Plan == nil || p.Plan.Stop != "" || p.Plan.Seq != 3 || !strings.Contains(p.Preview, `"name": "Grace"`) {
		t.Fatalf("the second write is not planned after the read: %+v %s", p.Plan, p.Preview)
	}
	if decided := h.approveAll(t, env.RunID); len(decided) != 2 {
		t.Fatalf("decided %d", len(decided))
	}
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != `["Ada","Grace"]` {
		t.Fatalf("the real run: %s; want the graph the two writes left", done.Line())
	}
	if len(done.Calls) != 4 || h.entities(t) != 2 {
		t.Fatalf("calls %+v, %d entities", done.Calls, h.entities(t))
	}
}

// TestPlanDecidedCallByCall: a plan's calls decided one at a time leave the
// run paused until the last is decided, and the envelope a resume gives in
// between lists only the calls still waiting, saying how many are decided.
func TestPlanDecidedCallByCall(t *testing.T) {
	ctx := context.Background()
	h := e2eNewHub(t, Options{}, nil)
	env := h.exec(t, `
		for (const n of ["A", "B", "C"]) await memory.createEntities({ entities: [{ name: n, entityType: "t", observations: [] }] });
		return "done";`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 3 {
		t.Fatalf("envelope %s", env.Line())
	}
	for i, want := range []int{2, 1} {
		if err := h.Decide(ctx, env.Pending[i].ID, "allow_once", policy.ChannelCLI, "test"); err != nil {
			t.Fatal(err)
		}
		mid := h.resumeRun(t, env.RunID)
		if mid.Status != StatusAwaitingApproval || len(mid.Pending) != want || mid.Pending[0].ID != env.Pending[i+1].ID {
			t.Fatalf("after %d of 3 decided: %s", i+1, mid.Line())
		}
		if note := mid.Notices[len(mid.Notices)-1]; !strings.Contains(note, fmt.Sprintf("%d of the run's 3 inputs", i+1)) {
			t.Errorf("notice %q", note)
		}
		if h.entities(t) != 0 {
			t.Fatal("a call ran before the plan was decided")
		}
	}
	if err := h.Decide(ctx, env.Pending[2].ID, "allow_once", policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	if done := h.resumeRun(t, env.RunID); done.Status != StatusCompleted || h.entities(t) != 3 {
		t.Fatalf("after the last decision: %s, %d entities", done.Line(), h.entities(t))
	}
}
