package mcpserver

import (
	"context"
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

// benchHub opens a hub whose only source is an HTTP upstream on loopback
// with "sleep" (read-only) and "write" (asks), on drv (nil: the hub's
// default, in-process); the hub closes drv.
func benchHub(b *testing.B, drv sandbox.Driver) *hub.Hub {
	b.Helper()
	up := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream", Version: "1"}, nil)
	type in struct {
		I int `json:"i"`
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(up, &mcp.Tool{Name: "sleep", Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.I)}}}, nil, nil
	})
	mcp.AddTool(up, &mcp.Tool{Name: "write"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "written"}}}, nil, nil
	})
	return hubWith(b, map[string]*config.Source{"up": {URL: hubtest.HTTPUpstream(b, up, "", "").URL}}, drv)
}

// bareClient is the reference: a go-sdk client and server connected in
// memory, with a no-op tool. It returns one tools/call.
func bareClient(b *testing.B) func() {
	s := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "noop"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(context.Background(), st, nil)
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return func() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
	}
}

// bareToolCall is the mean time of one bare call over n calls in a row,
// after a warm-up.
func bareToolCall(b *testing.B, n int) time.Duration {
	one := bareClient(b)
	for range n / 10 {
		one()
	}
	start := time.Now()
	for range n {
		one()
	}
	return time.Since(start) / time.Duration(n)
}

// BenchmarkExecuteReturn1 is execute of `return 1` over the MCP server,
// against one bare tools/call of a no-op tool (target: at most 3x), with
// the hub's default in-process sandbox and with the worker pool the app
// uses.
//
// back-to-back runs executes one after the other: the sandbox then
// prepares each run's runtime (in the hub's process, or in the worker that
// ran the run before) no faster than runs use them, and a pool worker
// retired after its 100 runs is replaced by a new process, so this is the
// throughput of a hub kept busy. spaced leaves 100 ms before each call, as
// a model does (it takes seconds to write the next execute; a worker
// prepares its next runtime 5 ms after its run), and alternates bare calls
// and executes, timing each on its own: the cost of one execute as a
// client sees it.
func BenchmarkExecuteReturn1(b *testing.B) {
	drivers := map[string]func() sandbox.Driver{
		"inprocess": func() sandbox.Driver { return nil },
		"pool": func() sandbox.Driver {
			d, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{hubtest.SandboxWorkerEnv + "=1"}})
			if err != nil {
				b.Fatal(err)
			}
			return d
		},
	}
	for _, name := range []string{"inprocess", "pool"} {
		b.Run(name, func(b *testing.B) {
			h := benchHub(b, drivers[name]())
			ct, st := mcp.NewInMemoryTransports()
			ss, _ := New(h, Options{Version: "bench"}).Connect(context.Background(), st, nil)
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"code": "return 1"}
			execute := func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			execute() // the drivers prepare runtimes once they have served a run
			b.Run("back-to-back", func(b *testing.B) {
				ref := bareToolCall(b, 2000)
				for b.Loop() {
					execute()
				}
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(float64(ref.Nanoseconds()), "ns/bare-call")
				b.ReportMetric(per/float64(ref.Nanoseconds()), "x-bare-call")
			})
			b.Run("spaced", func(b *testing.B) {
				bare := bareClient(b)
				for range 100 {
					bare()
				}
				var tBare, tExec time.Duration
				for b.Loop() {
					time.Sleep(100 * time.Millisecond)
					t0 := time.Now()
					bare()
					tBare += time.Since(t0)
					time.Sleep(100 * time.Millisecond)
					t0 = time.Now()
					execute()
					tExec += time.Since(t0)
				}
				b.ReportMetric(float64(tBare.Nanoseconds())/float64(b.N), "ns/bare-call")
				b.ReportMetric(float64(tExec.Nanoseconds())/float64(b.N), "ns/execute")
				b.ReportMetric(float64(tExec)/float64(tBare), "x-bare-call")
			})
		})
	}
}
