package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/tsgen"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", name, diff)
	}
}

// fakeHub is a Hub without a heart, for the tests of what the surface says
// on its own (the tools, their list, the instructions): they need no home,
// no sources and no npm. Each call fails, naming itself: none of these
// tests reaches the heart.
type fakeHub struct{}

var _ Hub = fakeHub{}

func (fakeHub) Search(context.Context, hub.SearchRequest) (string, error) {
	return "", errors.New("fakeHub: search")
}

func (fakeHub) Describe(context.Context, hub.DescribeRequest) (string, error) {
	return "", errors.New("fakeHub: describe")
}

func (fakeHub) Execute(context.Context, hub.ExecuteRequest) (*hub.Envelope, error) {
	return nil, errors.New("fakeHub: execute")
}

func (fakeHub) Pending(context.Context, string) ([]hub.Approval, error) {
	return nil, errors.New("fakeHub: pending")
}

func (fakeHub) SignInputs(context.Context, string, []string) (string, error) {
	return "", errors.New("fakeHub: sign inputs")
}
func (fakeHub) SignPlan(context.Context, string, []string) (string, error) {
	return "", errors.New("fakeHub: sign plan")
}

func (fakeHub) RedeemInputs(context.Context, string, map[string]string, string) (string, []string, error) {
	return "", nil, errors.New("fakeHub: redeem inputs")
}

// Subscribe: the fake publishes no events.
func (fakeHub) Subscribe(func(hub.Event)) func() { return func() {} }

func (fakeHub) ServedSkills() []*skills.Skill { return nil }

func (fakeHub) ReadSkillFile(sk *skills.Skill, _ string) ([]byte, error) {
	return nil, fmt.Errorf("fakeHub: read a file of %s", sk.Address)
}

func TestToolsListAndFixedCost(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, fakeHub{}, version, nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != 3 {
				t.Fatalf("%d tools, want exactly 3", len(res.Tools))
			}
			tools, _ := json.MarshalIndent(res.Tools, "", "  ")
			if version == "2026-07-28" {
				golden(t, "tools_list.json", string(tools)+"\n")
			}
			init := cs.InitializeResult()
			if init == nil || init.Instructions == "" {
				t.Fatal("no server instructions")
			}
			compact, _ := json.Marshal(res.Tools)
			cost := tsgen.Tokens(init.Instructions) + tsgen.Tokens(string(compact))
			t.Logf("fixed cost at %s: %d tokens (o200k_base): instructions %d, tools/list %d", version, cost, tsgen.Tokens(init.Instructions), tsgen.Tokens(string(compact)))
			if cost > 1500 {
				t.Fatalf("fixed cost %d tokens; the spec's ceiling is 1,500", cost)
			}
		})
	}
}

func TestSearchAndDescribeExchanges(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2026-07-28", nil)
	out, isErr := callText(t, cs, "search", map[string]any{"query": "add two numbers"})
	if isErr {
		t.Fatal(out)
	}
	golden(t, "search_add_two_numbers.txt", out+"\n")
	if !strings.HasPrefix(out, "everything\n  everything.getSum(") {
		t.Errorf("best match is not getSum:\n%s", out)
	}
	out, _ = callText(t, cs, "search", map[string]any{"query": "remember facts about a person", "limit": 3})
	golden(t, "search_memory_limit3.txt", out+"\n")
	if !strings.Contains(out, "[asks]") || !strings.Contains(out, "more match") {
		t.Errorf("expected [asks] and the footer:\n%s", out)
	}
	out, _ = callText(t, cs, "search", map[string]any{"query": "", "namespace": "memory"})
	golden(t, "search_list_memory.txt", out+"\n")
	out, isErr = callText(t, cs, "describe", map[string]any{"targets": []string{"memory.createEntities", "everything.getSum"}})
	if isErr {
		t.Fatal(out)
	}
	golden(t, "describe_create_entities_get_sum.ts", out+"\n")
	out, _ = callText(t, cs, "describe", map[string]any{"targets": []string{"memory"}})
	golden(t, "describe_memory.ts", out+"\n")
	out, _ = callText(t, cs, "execute", map[string]any{"code": "const r = await everything.getSum({ a: 1, b: 2 });\nconsole.log(r);\nr"})
	var env hub.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil || env.Status != hub.StatusCompleted {
		t.Fatalf("execute text is not the envelope line: %q", out)
	}
	// Pin the exchange with the run id and timings normalised.
	env.RunID = "RUN"
	for i := range env.Calls {
		env.Calls[i].Ms = 0
	}
	pinned, _ := json.MarshalIndent(env, "", "  ")
	golden(t, "execute_get_sum.json", string(pinned)+"\n")
}

func TestSearchInputErrors(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2026-07-28", nil)
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"query": "x", "limit": 0}, "limit: 0 is out of range; must be 1 to 25"},
		{map[string]any{"query": "x", "limit": 26}, "limit: 26 is out of range; must be 1 to 25"},
		{map[string]any{"query": strings.Repeat("q", 201)}, "query: 201 characters; must be 0 to 200"},
		{map[string]any{"query": "x", "namespace": "nope"}, `namespace: unknown namespace "nope"; known: everything, memory`},
		{map[string]any{"query": ""}, "query: empty"},
	} {
		out, isErr := callText(t, cs, "search", tc.args)
		if !isErr || !strings.Contains(out, tc.want) {
			t.Errorf("search %v = %q (error %v), want %q", tc.args, out, isErr, tc.want)
		}
	}
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"targets": []string{}}, "targets: 0 targets; must be 1 to 10"},
		{map[string]any{"targets": make([]string, 11)}, "targets: 11 targets; must be 1 to 10"},
		{map[string]any{"targets": []string{"memory.createEntitie"}}, `unknown target "memory.createEntitie"; closest: memory.createEntities`},
	} {
		out, isErr := callText(t, cs, "describe", tc.args)
		if !isErr || !strings.Contains(out, tc.want) {
			t.Errorf("describe %v = %q, want %q", tc.args, out, tc.want)
		}
	}
}

// formClient answers every approval form with decision.
func formClient(decision string, asked *int) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			*asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
		},
	}
}

func TestInputRequestAnswered(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	asked := 0
	cs := connect(t, h.Hub, "2026-07-28", formClient(hub.AllowOnce, &asked))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": createAda}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env hub.Envelope
	json.Unmarshal(b, &env)
	if env.Status != hub.StatusCompleted || string(env.Result) != "1" || asked != 1 {
		t.Fatalf("asked %d times; envelope %s", asked, b)
	}
	if h.entities(t) != 1 {
		t.Fatalf("entities = %d", h.entities(t))
	}
	hist, _ := h.History(context.Background(), 1)
	if len(hist) != 1 || hist[0].Channel != policy.ChannelClient {
		t.Errorf("audit %+v", hist)
	}
}

func TestInputRequestStateOnceAndUntampered(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2026-07-28", &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx := context.Background()
	args := map[string]any{"code": createAda}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("want one input request, got %+v", first)
	}
	var id string
	for k, ir := range first.InputRequests {
		id = k
		ep, ok := ir.(*mcp.ElicitParams)
		if !ok || !strings.Contains(ep.Message, "memory.createEntities") || !strings.Contains(ep.Message, `"name": "Ada"`) {
			t.Fatalf("input request %+v", ir)
		}
	}
	answer := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": hub.AllowOnce}}}
	// A tampered state is refused and decides nothing.
	tampered := []byte(first.RequestState)
	tampered[5] ^= 1
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: answer, RequestState: string(tampered)})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "invalid request state") {
		t.Fatalf("tampered state: %v %s", err, resultText(res))
	}
	if h.entities(t) != 0 {
		t.Fatal("a tampered answer ran the call")
	}
	// The real state works once.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
	if err != nil || res.IsError || res.NeedsInput() {
		t.Fatalf("answer: %v %s", err, resultText(res))
	}
	// Replayed: refused, and nothing runs twice.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "already used") {
		t.Fatalf("replayed state: %v %s", err, resultText(res))
	}
	if h.entities(t) != 1 {
		t.Fatalf("entities = %d, want 1", h.entities(t))
	}
}

// TestOlderClientGetsAwaitingApproval: a 2025-11-25 client that declared
// no elicitation gets the envelope (one that did is asked by elicitation,
// elicit_test.go).
func TestOlderClientGetsAwaitingApproval(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2025-11-25", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": createAda}})
	if err != nil {
		t.Fatal(err)
	}
	var env hub.Envelope
	if err := json.Unmarshal([]byte(resultText(res)), &env); err != nil || env.Status != hub.StatusAwaitingApproval || h.entities(t) != 0 {
		t.Fatalf("%s", resultText(res))
	}
	if _, err := h.ApproveRun(context.Background(), env.RunID, hub.AllowOnce, policy.ChannelCLI, "terminal"); err != nil {
		t.Fatal(err)
	}
	res, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
	json.Unmarshal([]byte(resultText(res)), &env)
	if env.Status != hub.StatusCompleted || h.entities(t) != 1 {
		t.Fatalf("%s", resultText(res))
	}
}

// TestExecuteRecordsTheClient: the run names the client that asked, from
// the initialize handshake or, since 2026-07-28, from each request.
func TestExecuteRecordsTheClient(t *testing.T) {
	h := hubOver(t, "up", mcp.NewServer(&mcp.Implementation{Name: "empty", Version: "1"}, nil))
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connect(t, h, version, nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": "return 1"}})
		if err != nil {
			t.Fatal(err)
		}
		var env, text hub.Envelope
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &env); err != nil || env.Status != hub.StatusCompleted {
			t.Fatalf("%s: structured content %s", version, b)
		}
		if err := json.Unmarshal([]byte(resultText(res)), &text); err != nil || text.Line() != env.Line() {
			t.Fatalf("%s: text %s, structured content %s", version, resultText(res), b)
		}
		runs, err := h.Runs(context.Background(), 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].ID != env.RunID {
			t.Fatalf("%s: the latest run is %+v, want %s", version, runs, env.RunID)
		}
		if run := runs[0]; run.Client != "test-client 1.0" {
			t.Errorf("%s: the run's client is %q", version, run.Client)
		}
	}
}

// TestClientWordsAreBounded: a client's name is its own words, kept with
// each of its runs and shown beside each call it asks for; a name of
// 64 KB is kept to its first 100 bytes, cut at a character, at both
// protocol versions, and in the list of connected clients.
func TestClientWordsAreBounded(t *testing.T) {
	h := hubOver(t, "up", mcp.NewServer(&mcp.Implementation{Name: "empty", Version: "1"}, nil))
	name := strings.Repeat("é", 32<<10)
	want := strings.Repeat("é", 50) + "… 1"
	sessions := NewSessions()
	srv := New(h, Options{Version: "test", Sessions: sessions})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectServer(t, srv, name, version, nil)
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": "return 1"}}); err != nil {
			t.Fatal(err)
		}
		runs, err := h.Runs(context.Background(), 1, false)
		if err != nil || len(runs) != 1 || runs[0].Client != want {
			t.Errorf("%s: the run's client is %.200q (%v)", version, runs[0].Client, err)
		}
	}
	connected := sessions.Connected()
	if len(connected) != 2 {
		t.Errorf("%d clients connected, want 2", len(connected))
	}
	for _, c := range connected {
		if c.Name != strings.Repeat("é", 50)+"…" {
			t.Errorf("connected as %.200q", c.Name)
		}
	}
}
