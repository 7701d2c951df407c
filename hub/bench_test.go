package hub

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/search"
	"capabilities.sh/capabilities/sandbox"
)

// Benchmarks of execute, each reported as a ratio against a reference
// measured in the same process.

// benchHub opens a hub whose only source is an HTTP upstream on loopback
// with "sleep" (read-only, answers after ms milliseconds) and "write"
// (asks).
func benchHub(b *testing.B, ms int) *Hub { return benchHubWith(b, ms, nil) }

// benchHubWith is benchHub with a sandbox driver (nil: the hub's default,
// in-process); the hub closes it.
func benchHubWith(b *testing.B, ms int, drv sandbox.Driver) *Hub {
	b.Helper()
	up := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream", Version: "1"}, nil)
	type in struct {
		I int `json:"i"`
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(up, &mcp.Tool{Name: "sleep", Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.I)}}}, nil, nil
	})
	mcp.AddTool(up, &mcp.Tool{Name: "write"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "written"}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	b.Cleanup(srv.Close)
	return hubWith(b, map[string]*Source{"up": {URL: srv.URL}}, drv)
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
			d, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{sandboxWorkerEnv + "=1"}})
			if err != nil {
				b.Fatal(err)
			}
			return d
		},
	}
	for _, name := range []string{"inprocess", "pool"} {
		b.Run(name, func(b *testing.B) {
			h := benchHubWith(b, 0, drivers[name]())
			ct, st := mcp.NewInMemoryTransports()
			ss, _ := h.NewMCPServer("bench").Connect(context.Background(), st, nil)
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

// BenchmarkExecute500Calls runs 500 calls with maxConcurrent 8 to an
// upstream that answers in 10 ms; the ideal is 500/8*10 ms = 625 ms
// (target: within 1.2x). Two upstreams:
//
//   - http: a go-sdk server over streamable HTTP in this process, whose
//     tool sleeps 10 ms. Its own cost and garbage land in the hub's
//     process.
//   - npm-stdio: the reference server-everything over stdio, a process of
//     its own as a person's servers are; trigger-long-running-operation
//     with one step of 10 ms.
//
// Each also reports direct-x-ideal: the same 500 calls sent straight from a
// go-sdk client, 8 at a time, with no hub: what the upstream and the
// transport alone cost.
func BenchmarkExecute500Calls(b *testing.B) {
	b.Run("http", func(b *testing.B) {
		h := benchHub(b, 10)
		src := h.Config().Sources["up"]
		direct := directCalls(b, &mcp.StreamableClientTransport{Endpoint: src.URL}, "sleep", func(i int) map[string]any { return map[string]any{"i": i} })
		bench500(b, h, `const r = await Promise.all(Array.from({ length: 500 }, (_, i) => up.sleep({ i }))); return r.length;`, direct)
	})
	b.Run("npm-stdio", func(b *testing.B) {
		srv := everythingSource(b)
		h := hubWith(b, map[string]*Source{"everything": srv}, nil)
		args := func(int) map[string]any { return map[string]any{"duration": 0.01, "steps": 1} }
		direct := directCalls(b, &mcp.CommandTransport{Command: exec.Command(srv.Command, srv.Args...)}, "trigger-long-running-operation", args)
		bench500(b, h, `const r = await Promise.all(Array.from({ length: 500 }, () => everything.triggerLongRunningOperation({ duration: 0.01, steps: 1 }))); return r.length;`, direct)
	})
}

// bench500 times execute of code, which makes 500 calls, against the ideal
// and reports the direct time alongside.
func bench500(b *testing.B, h *Hub, code string, direct time.Duration) {
	for b.Loop() {
		env, err := h.Execute(context.Background(), ExecuteRequest{Code: code})
		if err != nil || env.Status != StatusCompleted || string(env.Result) != "500" {
			b.Fatal(err, env.Status, env.Error)
		}
	}
	per := time.Duration(b.Elapsed().Nanoseconds() / int64(b.N))
	ideal := float64(625 * time.Millisecond)
	b.ReportMetric(float64(per.Milliseconds()), "ms/run")
	b.ReportMetric(float64(per)/ideal, "x-ideal")
	b.ReportMetric(float64(direct)/ideal, "direct-x-ideal")
}

// directCalls is the time of 500 calls of tool, 8 at a time, from a go-sdk
// client connected through t, after a warm-up round.
func directCalls(b *testing.B, t mcp.Transport, tool string, args func(int) map[string]any) time.Duration {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil).Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	round := func(n int) time.Duration {
		start := time.Now()
		next := make(chan int)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args(i)})
					if err != nil || res.IsError {
						b.Error(err, res) // and go on draining next
					}
				}
			}()
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		return time.Since(start)
	}
	round(40)
	return round(500)
}

// BenchmarkResume500Journaled resumes a run whose 500 calls are journaled
// (499 reads, then a write that paused for approval), against the same run done live
// (target: under 5%).
func BenchmarkResume500Journaled(b *testing.B) {
	h := benchHub(b, 10)
	code := `const r = await Promise.all(Array.from({ length: 499 }, (_, i) => up.sleep({ i }))); await up.write({ i: 0 }); return r.length;`
	var live, resume time.Duration
	for b.Loop() {
		b.StopTimer()
		start := time.Now()
		env, err := h.Execute(context.Background(), ExecuteRequest{Code: code})
		live += time.Since(start)
		if err != nil || env.Status != StatusAwaitingApproval {
			b.Fatal(err, env.Status, env.Error)
		}
		if err := h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, ChannelCLI, ""); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start = time.Now()
		env, err = h.Execute(context.Background(), ExecuteRequest{Resume: env.RunID})
		resume += time.Since(start)
		if err != nil || env.Status != StatusCompleted {
			b.Fatal(err, env.Status, env.Error)
		}
	}
	b.ReportMetric(float64(live.Milliseconds())/float64(b.N), "ms/live-run")
	b.ReportMetric(100*float64(resume)/float64(live), "%-of-live")
}

// BenchmarkSearch10kVsStdioCall is one search over a synthetic catalog of
// 10,000 tools, against one bare tools/call round trip to an MCP server over
// stdio (a child process), measured in the same run (target: faster).
func BenchmarkSearch10kVsStdioCall(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fakeUpstreamEnv+"=crash") // serves echo; the crash tool is not called
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	call := func() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err != nil {
			b.Fatal(err)
		}
	}
	for range 100 {
		call()
	}
	start := time.Now()
	const n = 1000
	for range n {
		call()
	}
	ref := time.Since(start) / n
	cs.Close()

	ix := search.Build(search.SyntheticCatalog(10000, 1), nil)
	queries := search.SyntheticQueries(64, 2)
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)], "", 8)
		i++
	}
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(ref.Nanoseconds()), "ns/stdio-call")
	b.ReportMetric(float64(ref.Nanoseconds())/per, "x-faster-than-stdio-call")
}
