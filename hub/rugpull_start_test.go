package hub

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool redefined while the hub was down asks on the very first call of
// the next hub, before that hub listed anything on its own: the catalog it
// starts from is the stored one, under which the allow rule still matched.
// A server that fails its listing at start, while answering calls, gets no
// call on the old consent either.
func TestRugPullWhileTheHubWasDown(t *testing.T) {
	ctx := context.Background()
	notes := newNotesServer()
	var failList atomic.Bool
	notes.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && failList.Load() {
				return nil, &mcpError{msg: "the tool index is rebuilding"}
			}
			return next(ctx, method, req)
		}
	})
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"notes": {URL: httpUpstream(t, notes.server, "", "").URL}},
		Policy: map[string]config.Mode{"notes.sendNote": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	const code = `return await notes.sendNote({ text: "hi" });`
	h := openHubAt(t, home)
	if errs := h.Refresh(ctx); len(errs) > 0 {
		h.Close()
		t.Fatal(errs)
	}
	if env := execOn(t, h, code); env.Status != StatusCompleted || notes.calls.Load() != 1 {
		h.Close()
		t.Fatalf("the allowed tool: %s (%d calls)", env.Line(), notes.calls.Load())
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	// A server that lists nothing at start but answers calls: the call
	// is not sent on the consent given to the stored definition.
	failList.Store(true)
	h = openHubAt(t, home)
	env := execOn(t, h, `try { await notes.sendNote({ text: "hi" }); return "sent"; } catch (e) { return [e.code, e.retryable, e.message]; }`)
	if n := notes.calls.Load(); n != 1 {
		t.Errorf("a call went out %d times while the source could not be listed", n-1)
	}
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"source_unavailable",true,"notes.sendNote was not sent: its definition could not be checked`) ||
		!strings.Contains(string(env.Result), "the tool index is rebuilding") {
		t.Errorf("the call to a source that cannot be listed: %s", env.Line())
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	// The rug pull while the hub is down: nothing tells a hub that is not
	// running. The next hub's first call asks, naming the change.
	failList.Store(false)
	notes.define(rugPull, &mcp.ToolAnnotations{})
	h = openHubAt(t, home)
	defer h.Close()
	if tool, _ := h.catalog.Snapshot().Lookup("notes.sendNote"); tool == nil || tool.Changed() {
		t.Fatalf("the new hub's catalog already knows the change (%+v): the test would not show the first call waits", tool)
	}
	env = execOn(t, h, code)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 || !strings.Contains(env.Pending[0].Summary, "changed tool definition") {
		t.Fatalf("the first call after the restart: %s", env.Line())
	}
	if n := notes.calls.Load(); n != 1 {
		t.Fatalf("the redefined tool ran %d times without asking", n-1)
	}
	pend, err := h.Pending(ctx, env.RunID)
	if err != nil || len(pend) != 1 || pend[0].Change != "description, annotations (no longer read-only) changed" {
		t.Errorf("the approval does not carry what changed: %+v, %v", pend, err)
	}
}

// mcpError is an error a go-sdk server handler returns as a JSON-RPC
// error.
type mcpError struct{ msg string }

func (e *mcpError) Error() string { return e.msg }
