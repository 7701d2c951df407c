package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// TestQuickRunIsNotQueuedBehindWaitingRuns: with the app's worker pool of
// two, four clients' runs wait on a tool call an upstream holds; another
// client's `return 1` still completes while they wait, through the hub's
// MCP server, and the held runs complete once the upstream answers.
func TestQuickRunIsNotQueuedBehindWaitingRuns(t *testing.T) {
	drv, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{hubtest.SandboxWorkerEnv + "=1"}, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "v0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait for the upstream to answer.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
			select {
			case started <- struct{}{}:
			case <-ctx.Done():
				return nil, echoOut{}, ctx.Err()
			}
			select {
			case <-release:
				return nil, echoOut{Text: "released"}, nil
			case <-ctx.Done():
				return nil, echoOut{}, ctx.Err()
			}
		})
	h := hubWith(t, map[string]*config.Source{"slow": {URL: hubtest.HTTPUpstream(t, s, "", "").URL}}, drv)

	const held = 4
	type answer struct {
		text string
		err  error
	}
	results := make(chan answer, held)
	for i := range held {
		cs := connect(t, h, "2026-07-28", nil)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute",
				Arguments: map[string]any{"code": fmt.Sprintf(`const r = await slow.wait({}); return [%d, r.text];`, i)}})
			if err != nil {
				results <- answer{err: err}
				return
			}
			results <- answer{text: resultText(res)}
		}()
	}
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for i := range held {
		select {
		case <-started:
		case <-deadline.C:
			close(release)
			t.Fatalf("only %d of %d runs reached the upstream", i, held)
		}
	}

	// Another client's quick run, while every started worker and more are
	// held by runs waiting on the upstream. Queued behind them it would
	// wait until the minute ends, since nothing releases them before.
	quick := connect(t, h, "2026-07-28", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := quick.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": "return 1"}})
	if err != nil {
		close(release)
		t.Fatalf("a quick run while %d runs wait on a tool: %v", held, err)
	}
	var env hub.Envelope
	if err := json.Unmarshal([]byte(resultText(res)), &env); err != nil || env.Status != hub.StatusCompleted || string(env.Result) != "1" {
		close(release)
		t.Fatalf("a quick run while %d runs wait on a tool: %s (%v)", held, resultText(res), err)
	}
	select {
	case a := <-results:
		t.Fatalf("a held run ended before the upstream answered: %s %v", a.text, a.err)
	default:
	}

	close(release)
	seen := map[string]bool{}
	for range held {
		a := <-results
		var env hub.Envelope
		if a.err != nil || json.Unmarshal([]byte(a.text), &env) != nil || env.Status != hub.StatusCompleted {
			t.Fatalf("a held run: %s %v", a.text, a.err)
		}
		seen[string(env.Result)] = true
	}
	for i := range held {
		if r := fmt.Sprintf(`[%d,"released"]`, i); !seen[r] {
			t.Errorf("no held run returned %s: %v", r, seen)
		}
	}
}
