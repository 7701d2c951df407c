package hub

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/sandbox"
)

// TestTimeoutPatternReplaysItsWinner: code races a slow upstream call
// against a timer, then makes a call that asks for approval with the
// winner in its arguments. The slow call answers only once the run waits
// for that approval, so the timer won while the call was in flight. The
// resumed run gets the slow call's answer from the journal at once, and
// the journal's record of where the timer fired makes the timer win again:
// the approved call is made with the arguments the person saw, and sent
// once. On both sandbox drivers.
func TestTimeoutPatternReplaysItsWinner(t *testing.T) {
	pool, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{sandboxWorkerEnv + "=1"}, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	for name, drv := range map[string]sandbox.Driver{"inprocess": nil, "pool": pool} {
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			var slowCalls, logged atomic.Int32
			var loggedArgs atomic.Value
			server := mcp.NewServer(&mcp.Implementation{Name: "lab", Version: "1"}, nil)
			schema := json.RawMessage(`{"type":"object","properties":{"winner":{"type":"string"}}}`)
			server.AddTool(&mcp.Tool{Name: "slow_read", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					slowCalls.Add(1)
					select {
					case <-release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"late":true}`}}}, nil
				})
			server.AddTool(&mcp.Tool{Name: "log_winner", InputSchema: schema},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					logged.Add(1)
					loggedArgs.Store(string(req.Params.Arguments))
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"logged":true}`}}}, nil
				})
			h := hubWith(t, map[string]*config.Source{"lab": {URL: httpUpstream(t, server, "", "").URL}}, drv)
			ctx := context.Background()

			// The slow call answers once the run waits for the approval.
			stop := make(chan struct{})
			t.Cleanup(func() { close(stop) })
			go func() {
				if testwait.Until(time.Minute, func() bool {
					select {
					case <-stop:
						return true
					default:
					}
					open, err := h.db.OpenPending(ctx)
					return err == nil && len(open) > 0
				}) {
					close(release) // on stop too: the server's handler returns
				}
			}()
			env, err := h.Execute(ctx, ExecuteRequest{Code: `
				const slow = lab.slowRead({}).then(() => "call");
				const winner = await Promise.race([slow, new Promise((r) => setTimeout(() => r("timer"), 20))]);
				await lab.logWinner({ winner });
				return [winner, await slow];`, Client: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 || !strings.Contains(env.Pending[0].Summary, `"timer"`) {
				t.Fatalf("first attempt %s; want it to ask about logWinner with the timer as the winner", env.Line())
			}
			if err := h.Decide(ctx, env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
				t.Fatal(err)
			}
			done, err := h.Execute(ctx, ExecuteRequest{Resume: env.RunID, Client: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if done.Status != StatusCompleted || string(done.Result) != `["timer","call"]` {
				t.Fatalf("resumed %s; want the timer to win again", done.Line())
			}
			if slowCalls.Load() != 1 || logged.Load() != 1 || !strings.Contains(loggedArgs.Load().(string), `"timer"`) {
				t.Errorf("slowRead reached the server %d times, logWinner %d times with %v; want once each, with the timer", slowCalls.Load(), logged.Load(), loggedArgs.Load())
			}
		})
	}
}

// TestTimeoutPatternReturnsAtItsTimer: code that races an upstream call
// against a timer and returns the winner gets the timer's value, and the
// run ends without waiting for the call, which the server answers only
// when it is cancelled: the call left behind is cancelled upstream,
// recorded as not completed, and a notice says so. The run could not end
// otherwise, so no clock is read. On both sandbox drivers.
func TestTimeoutPatternReturnsAtItsTimer(t *testing.T) {
	pool, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{sandboxWorkerEnv + "=1"}, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	for name, drv := range map[string]sandbox.Driver{"inprocess": nil, "pool": pool} {
		t.Run(name, func(t *testing.T) {
			started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
			server := mcp.NewServer(&mcp.Implementation{Name: "lab", Version: "1"}, nil)
			server.AddTool(&mcp.Tool{Name: "stuck_read", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					started <- struct{}{}
					<-ctx.Done()
					cancelled <- struct{}{}
					return nil, ctx.Err()
				})
			h := hubWith(t, map[string]*config.Source{"lab": {URL: httpUpstream(t, server, "", "").URL}}, drv)
			env, err := h.Execute(context.Background(), ExecuteRequest{Code: `
				const timeout = (ms) => new Promise((r) => setTimeout(() => r("timer"), ms));
				return await Promise.race([lab.stuckRead({}), timeout(50)]);`, Client: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if env.Status != StatusCompleted || string(env.Result) != `"timer"` {
				t.Fatalf("%s; want the timer's value", env.Line())
			}
			if len(env.Calls) != 1 || env.Calls[0].OK {
				t.Errorf("calls %+v; want the one left behind, not completed", env.Calls)
			}
			want := "The code returned while call 1 (lab.stuckRead) was still in flight; it was cancelled and may or may not have taken effect upstream."
			if !slices.ContainsFunc(env.Notices, func(n string) bool { return strings.HasPrefix(n, want) }) {
				t.Errorf("notices %q; want %q", env.Notices, want)
			}
			// A call the server has begun is cancelled there too. On a
			// loaded machine the timer can fire before the call reaches
			// the server: it was cancelled before it left, and the server
			// has nothing to cancel.
			if len(started) == 1 {
				testwait.For(t, time.Minute, "the server to see the call cancelled", func() bool { return len(cancelled) == 1 })
			} else {
				t.Log("the timer fired before the call reached the server")
			}
		})
	}
}
