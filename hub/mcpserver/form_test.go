package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
)

// TestDismissedFormIsAskedAgain: a 2026-07-28 client with form elicitation
// declines the approval form, then cancels it. Each time the call stays
// pending and nothing runs; the next resume asks in the form again, and an
// accepted "allow once" runs the call, once.
func TestDismissedFormIsAskedAgain(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	answers := []*mcp.ElicitResult{
		{Action: "decline"},
		{Action: "cancel"},
		{Action: "accept", Content: map[string]any{"decision": hub.AllowOnce}},
	}
	asked := 0
	cs := connect(t, h.Hub, "2026-07-28", &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "memory.createEntities") {
				t.Errorf("form %q", req.Params.Message)
			}
			a := answers[min(asked, len(answers)-1)]
			asked++
			return a, nil
		},
	})
	ctx := context.Background()
	envOf := func(res *mcp.CallToolResult) hub.Envelope {
		t.Helper()
		var env hub.Envelope
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("not an envelope: %s", resultText(res))
		}
		return env
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": createAda}})
	if err != nil {
		t.Fatal(err)
	}
	env := envOf(res)
	for i, action := range []string{"decline", "cancel"} {
		if asked != i+1 {
			t.Fatalf("after %s: asked %d times, want %d", action, asked, i+1)
		}
		if env.Status != hub.StatusAwaitingApproval || h.entities(t) != 0 {
			t.Fatalf("after %s: %+v, %d entities; want the call still pending", action, env, h.entities(t))
		}
		pend, err := h.Pending(ctx, env.RunID)
		if err != nil || len(pend) != 1 || pend[0].Decision != "" {
			t.Fatalf("after %s: pending %+v %v", action, pend, err)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
		if err != nil {
			t.Fatal(err)
		}
		env = envOf(res)
	}
	if asked != 3 || env.Status != hub.StatusCompleted || string(env.Result) != "1" || h.entities(t) != 1 {
		t.Fatalf("after allow once: asked %d, %+v, %d entities", asked, env, h.entities(t))
	}
}

// TestOnlyTheLatestFormStateAnswers: each resume signs a new state for the
// pending call; an older one cannot answer it, and the newest answers once.
// An answer that is not one of the four choices (a client that does not
// check the form's schema) decides nothing and is asked again.
func TestOnlyTheLatestFormStateAnswers(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2026-07-28", &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": createAda}})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("%v %+v", err, first)
	}
	var id string
	for k := range first.InputRequests {
		id = k
	}
	pend, err := h.Pending(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var p hub.Approval
	for _, a := range pend {
		if a.ID == id {
			p = a
		}
	}
	if p.RunID == "" {
		t.Fatalf("no pending %s in %+v", id, pend)
	}
	second, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": p.RunID}})
	if err != nil || !second.NeedsInput() || second.RequestState == first.RequestState {
		t.Fatalf("resume: %v %+v", err, second)
	}
	args := map[string]any{"resume": p.RunID}
	invalid := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_forever"}}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: invalid, RequestState: second.RequestState})
	if err != nil || res.NeedsInput() || res.IsError || !strings.Contains(resultText(res), hub.StatusAwaitingApproval) || h.entities(t) != 0 {
		t.Fatalf("an invalid choice: %v %+v", err, res)
	}
	third, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args})
	if err != nil || !third.NeedsInput() {
		t.Fatalf("resume after an invalid choice: %v %+v", err, third)
	}
	allow := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": hub.AllowOnce}}}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: allow, RequestState: first.RequestState})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "replaced by a newer request") || h.entities(t) != 0 {
		t.Fatalf("the older state: %v %s, %d entities", err, resultText(res), h.entities(t))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: allow, RequestState: third.RequestState})
	if err != nil || res.IsError || h.entities(t) != 1 {
		t.Fatalf("the newest state: %v %s", err, resultText(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: args, InputResponses: allow, RequestState: third.RequestState})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "already used") || h.entities(t) != 1 {
		t.Fatalf("the newest state again: %v %s", err, resultText(res))
	}
}

// TestPlanIsOneInputRequest: a run that plans three writes asks a
// 2026-07-28 client once, in one form that lists the three in order; the
// one answer decides each, and each write runs once.
func TestPlanIsOneInputRequest(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	var forms []string
	cs := connect(t, h.Hub, "2026-07-28", &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			forms = append(forms, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": hub.AllowOnce}}, nil
		},
	})
	code := `for (const name of ["A", "B", "C"]) await memory.createEntities({ entities: [{ name, entityType: "t", observations: [] }] }); return "ok";`
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": code}})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, resultText(res))
	}
	if len(forms) != 1 {
		t.Fatalf("the client was asked %d times, want once: %q", len(forms), forms)
	}
	form := forms[0]
	if !strings.Contains(form, "Allow these 3 calls") {
		t.Errorf("form %q", form)
	}
	a, b, c := strings.Index(form, `"name": "A"`), strings.Index(form, `"name": "B"`), strings.Index(form, `"name": "C"`)
	if a < 0 || b < a || c < b {
		t.Errorf("form does not list the three writes in order:\n%s", form)
	}
	if !strings.Contains(resultText(res), `"status":"completed"`) || h.entities(t) != 3 {
		t.Fatalf("after one answer: %s, %d entities", resultText(res), h.entities(t))
	}
}

// TestPlanInputRequestIsOne: without the client's own round trips, the
// plan's result carries one input request, not one per call, and a
// dismissed form leaves every call of the plan pending.
func TestPlanInputRequestIsOne(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, "2026-07-28", &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx := context.Background()
	code := `for (const name of ["A", "B"]) await memory.createEntities({ entities: [{ name, entityType: "t", observations: [] }] }); return "ok";`
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": code}})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 {
		t.Fatalf("%v: %d input requests, want 1", err, len(first.InputRequests))
	}
	var id string
	for k := range first.InputRequests {
		id = k
	}
	pend, err := h.Pending(ctx, "")
	if err != nil || len(pend) != 2 || pend[0].ID != id {
		t.Fatalf("pending %+v %v; want the request keyed by the plan's first call", pend, err)
	}
	runID := pend[0].RunID
	dismissed := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "decline"}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": runID}, InputResponses: dismissed, RequestState: first.RequestState})
	if err != nil || res.NeedsInput() || !strings.Contains(resultText(res), hub.StatusAwaitingApproval) {
		t.Fatalf("declined: %v %s", err, resultText(res))
	}
	if pend, _ := h.Pending(ctx, runID); len(pend) != 2 || h.entities(t) != 0 {
		t.Fatalf("after a declined form: %d pending, %d entities; want 2 and 0", len(pend), h.entities(t))
	}
	second, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": runID}})
	if err != nil || len(second.InputRequests) != 1 {
		t.Fatalf("resume: %v %+v", err, second)
	}
	allow := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": hub.AllowOnce}}}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": runID}, InputResponses: allow, RequestState: second.RequestState})
	if err != nil || res.IsError || !strings.Contains(resultText(res), `"status":"completed"`) || h.entities(t) != 2 {
		t.Fatalf("allowed: %v %s, %d entities", err, resultText(res), h.entities(t))
	}
}
