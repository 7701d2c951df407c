package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
)

// TestToolsListCacheableAndOrdered: a 2026-07-28 client gets tools/list
// with ttlMs and cacheScope, and the three tools in the same order every
// time.
func TestToolsListCacheableAndOrdered(t *testing.T) {
	cs := connect(t, fakeHub{}, "2026-07-28", nil)
	var orders [][]string
	for range 3 {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.TTLMs != int(listTTL.Milliseconds()) || res.CacheScope != "private" {
			t.Fatalf("tools/list carries ttlMs %d and cacheScope %q; want %d and private", res.TTLMs, res.CacheScope, listTTL.Milliseconds())
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		orders = append(orders, names)
	}
	want := []string{"describe", "execute", "search"}
	for _, got := range orders {
		if !slices.Equal(got, want) {
			t.Fatalf("tools/list orders %v; want %v every time", orders, want)
		}
	}
}

// TestExecuteOutputSchemaRequiresWhatItSends: the published output schema
// requires the nested fields every envelope carries, and the envelopes a
// client receives (completed with calls, failed, awaiting approval) hold
// to it.
func TestExecuteOutputSchemaRequiresWhatItSends(t *testing.T) {
	bothVersions(t, testExecuteOutputSchemaRequiresWhatItSends)
}

func testExecuteOutputSchemaRequiresWhatItSends(t *testing.T, version string) {
	var schema jsonschema.Schema
	if err := json.Unmarshal(executeOutputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]string{
		"error":   {"code", "message"},
		"calls":   {"address", "ok", "ms"},
		"pending": {"id", "kind", "summary"},
	} {
		s := schema.Properties[path]
		if s.Items != nil {
			s = s.Items
		}
		for _, f := range want {
			if !slices.Contains(s.Required, f) {
				t.Errorf("outputSchema %s does not require %s (requires %v)", path, f, s.Required)
			}
		}
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}

	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, version, nil)
	for name, code := range map[string]string{
		"completed": `return await everything.getSum({ a: 1, b: 2 });`,
		"failed":    `await everything.getSum({ a: 1, b: 2 }); throw new Error("boom");`,
		"awaiting":  createAda,
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": code}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var inst map[string]any
		if err := json.Unmarshal(b, &inst); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(inst); err != nil {
			t.Errorf("%s envelope does not match the output schema: %v\n%s", name, err, b)
		}
		calls, _ := inst["calls"].([]any)
		switch name {
		case "completed":
			if len(calls) != 1 {
				t.Errorf("completed envelope without its call: %s", b)
			}
		case "failed":
			if len(calls) != 1 {
				t.Errorf("failed envelope without its call: %s", b)
			}
			if inst["error"] == nil {
				t.Errorf("failed envelope without error: %s", b)
			}
		case "awaiting":
			if p, _ := inst["pending"].([]any); len(p) != 1 {
				t.Errorf("awaiting envelope without one pending item: %s", b)
			}
		}
	}
}

// TestAwaitingApprovalSaysWhatHappened: the model hears that a dialog is
// open on the person's screen only when a presenter (the tray app's
// dialog) showed the approval; otherwise that the person decides with
// `capabilities hub approve`.
func TestAwaitingApprovalSaysWhatHappened(t *testing.T) {
	bothVersions(t, testAwaitingApprovalSaysWhatHappened)
}

func testAwaitingApprovalSaysWhatHappened(t *testing.T, version string) {
	h := e2eNewHub(t, hub.Options{}, nil)
	cs := connect(t, h.Hub, version, nil)
	pending := func() hub.PendingItem {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": createAda}})
		if err != nil {
			t.Fatal(err)
		}
		var env hub.Envelope
		if err := json.Unmarshal([]byte(resultText(res)), &env); err != nil || env.Status != hub.StatusAwaitingApproval || len(env.Pending) != 1 {
			t.Fatalf("%s", resultText(res))
		}
		if !strings.Contains(env.Pending[0].Message, "capabilities hub approve "+env.RunID) {
			t.Errorf("the message lacks the terminal command: %q", env.Pending[0].Message)
		}
		return env.Pending[0]
	}

	if p := pending(); strings.Contains(p.Message, "screen") || strings.Contains(p.Message, "dialog") {
		t.Errorf("without a presenter the model is told %q", p.Message)
	}
	var shown []hub.Approval
	remove := h.SetApprovalPresenter(func(a hub.Approval) bool { shown = append(shown, a); return true })
	p := pending()
	if !strings.Contains(p.Message, "dialog is open on the user's screen") || len(shown) != 1 || shown[0].ID != p.ID || shown[0].Address != "memory.createEntities" {
		t.Errorf("with a presenter that showed it: %q (presented %+v)", p.Message, shown)
	}
	remove()
	declined := h.SetApprovalPresenter(func(hub.Approval) bool { return false })
	defer declined()
	if p := pending(); strings.Contains(p.Message, "screen") {
		t.Errorf("with a presenter that showed nothing: %q", p.Message)
	}
}
