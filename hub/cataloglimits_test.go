package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/internal/hubtest"
)

// foreverServer is a go-sdk server over HTTP whose tools/list pages
// forever: every page has size new tools and a next cursor.
func foreverServer(t *testing.T, size int) string { return foreverServerDesc(t, size, 200) }

// foreverServerDesc is foreverServer with descriptions of descBytes.
func foreverServerDesc(t *testing.T, size, descBytes int) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "forever", Version: "1"}, nil)
	readOnlyTool(server, "seed")
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			n := 0
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p.Cursor != "" {
				n, _ = strconv.Atoi(p.Cursor)
			}
			return &mcp.ListToolsResult{Tools: hubtest.PagedTools(n, size, descBytes), NextCursor: strconv.Itoa(n + 1)}, nil
		}
	})
	return httpUpstream(t, server, "", "").URL
}

// A source whose tools/list pages forever, or lists a definition too large,
// is served up to the bound with a warning in hub status; the listing
// ends, other sources and code that calls no tool are not affected.
func TestCatalogBoundsHostileListings(t *testing.T) {
	huge := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "1"}, nil)
	readOnlyTool(huge, "small")
	huge.AddTool(&mcp.Tool{Name: "enormous", Description: strings.Repeat("x", 2<<20), InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	_, notesURL := namedServer(t, "list_notes")
	home := t.TempDir()
	body := `{"sources": {
		"forever": {"url": "` + foreverServer(t, 25) + `"},
		"huge": {"url": "` + httpUpstream(t, huge, "", "").URL + `"},
		"notes": {"url": "` + notesURL + `"}
	}, "catalog": {"maxPages": 40}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHub(t, home, nil)
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, "return 1 + 1"); got != "2" {
		t.Errorf("return 1 + 1 = %s", got)
	}
	if got := execOK(t, h, "return [await notes.listNotes(), await huge.small()]"); got != `["list_notes","small"]` {
		t.Errorf("the other sources: %s", got)
	}
	snap := h.catalog.Snapshot()
	last, next, enormous := toolNamed(snap, "forever", "tool_39_24"), toolNamed(snap, "forever", "tool_40_0"), toolNamed(snap, "huge", "enormous")
	if last == nil || next != nil || enormous != nil {
		t.Errorf("the listing kept the last page's tool: %v, the next page's: %v, the enormous one: %v", last != nil, next != nil, enormous != nil)
	}
	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		tools   int
		warning string
	}{
		"forever": {1000, "stopped after 40 pages (catalog.maxPages) with more to come"},
		"huge":    {1, `skipped tool "enormous": its definition is 2097`},
		"notes":   {1, ""},
	}
	for _, s := range st.Sources {
		w := want[s.Name]
		if s.Tools != w.tools || (w.warning == "") != (len(s.Warnings) == 0) || !strings.Contains(strings.Join(s.Warnings, "\n"), w.warning) {
			t.Errorf("source %s: %d tools, warnings %q; want %d tools and %q", s.Name, s.Tools, s.Warnings, w.tools, w.warning)
		}
	}
}

// A source that lists new names at every listing (a hostile server, or one
// that churns) does not grow the store without bound: the pins of the
// tools it no longer lists are kept only as far as one listing may go
// (here catalog.maxTools 20). A tool whose pin went, listed again, is not
// taken as first seen: an allow rule that held for its old definition
// does not run its new one, which asks until accepted, as a change would
// have.
func TestCatalogBoundsRetiredPins(t *testing.T) {
	ctx := context.Background()
	notes := newNotesServer()
	home := t.TempDir()
	body := `{"sources": {"notes": {"url": "` + httpUpstream(t, notes.server, "", "").URL + `"}},
		"policy": {"notes.sendNote": "allow"}, "catalog": {"maxTools": 20}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHub(t, home, nil)
	refresh := func() {
		t.Helper()
		if errs := h.Refresh(ctx); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	refresh()
	const code = `return await notes.sendNote({ text: "hi" });`
	if env := execOn(t, h, code); env.Status != StatusCompleted || notes.calls.Load() != 1 {
		t.Fatalf("the allowed tool: %s (%d calls)", env.Line(), notes.calls.Load())
	}
	notes.server.RemoveTools("send_note")
	for round := range 4 {
		var names []string
		for i := range 15 {
			names = append(names, fmt.Sprintf("churn_%d_%d", round, i))
			readOnlyTool(notes.server, names[i])
		}
		refresh()
		notes.server.RemoveTools(names...)
	}
	refresh()
	tx, err := h.db.BeginCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pins, err := tx.PinHashes(ctx, "notes")
	tx.Rollback()
	if err != nil || len(pins) > 20 || pins["send_note"] != "" {
		t.Fatalf("after 61 tools came and went the source keeps %d pins (send_note's: %q), want at most 20 and not the oldest: %v", len(pins), pins["send_note"], err)
	}

	notes.define(rugPull, &mcp.ToolAnnotations{})
	refresh()
	env := execOn(t, h, code)
	if env.Status != StatusAwaitingApproval || !strings.Contains(env.Pending[0].Summary, "changed tool definition") {
		t.Fatalf("the tool listed again with another definition, under the allow rule: %s", env.Line())
	}
	if pend, err := h.Pending(ctx, env.RunID); err != nil || len(pend) != 1 || !strings.Contains(pend[0].Change, "its pin was dropped with its source's oldest") {
		t.Errorf("the approval: %+v, %v", pend, err)
	}
	if n := notes.calls.Load(); n != 1 {
		t.Fatalf("the tool listed again ran %d times without asking", n-1)
	}
	if acc, err := h.AcceptDefinitions(ctx, "notes.sendNote", "cli"); err != nil || len(acc) != 1 {
		t.Fatalf("AcceptDefinitions = %+v, %v", acc, err)
	}
	if env := execOn(t, h, code); env.Status != StatusCompleted || notes.calls.Load() != 2 {
		t.Fatalf("after accepting: %s (%d calls)", env.Line(), notes.calls.Load())
	}
}
