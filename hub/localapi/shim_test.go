package localapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

var svcProtocolVersions = []string{"2026-07-28", "2025-11-25"}

func TestShimMCP(t *testing.T) {
	for _, v := range svcProtocolVersions {
		t.Run(v, func(t *testing.T) {
			paths := config.Paths{Home: t.TempDir()}
			startSvcTestHub(t, paths, svcTestMCPServer(nil))
			sh := startSvcTestShim(t, ShimOptions{Paths: paths})
			cs := svcConnectClient(t, sh.transport, v, nil)
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			if got := strings.Join(names, ","); got != "ask,block,echo" {
				t.Errorf("tools %s, want ask,block,echo", got)
			}
			svcCallEcho(t, cs, "hello through the shim")
			// Closing the client closes the shim's stdin: a clean exit.
			cs.Close()
			if err := <-sh.done; err != nil {
				t.Fatalf("RunShim after stdin EOF: %v", err)
			}
		})
	}
}

// svcShimProcess starts the test binary as a `capabilities mcp` process for
// the hub of home.
func svcShimProcess(t *testing.T, home string) (*exec.Cmd, mcp.Transport) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServiceHelperProcess$")
	cmd.Env = append(os.Environ(), svcHelperEnv+"=shim", "CAPABILITIES_HOME="+home)
	cmd.Stderr = svcLogWriter{t}
	return cmd, &mcp.CommandTransport{Command: cmd}
}

func TestShimProcess(t *testing.T) {
	for _, v := range svcProtocolVersions {
		t.Run(v, func(t *testing.T) {
			paths := config.Paths{Home: t.TempDir()}
			startSvcTestHub(t, paths, svcTestMCPServer(nil))
			cmd, tr := svcShimProcess(t, paths.Home)
			cs := svcConnectClient(t, tr, v, nil)
			svcCallEcho(t, cs, "over real stdio")
			if err := cs.Close(); err != nil {
				t.Fatalf("closing the client: %v", err)
			}
			if !cmd.ProcessState.Success() {
				t.Fatalf("shim process ended with %v, want exit 0 on stdin EOF", cmd.ProcessState)
			}
		})
	}
}

func TestShimTwoProcessesShareHub(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	srv := svcTestMCPServer(nil)
	startSvcTestHub(t, paths, srv)
	cmd1, tr1 := svcShimProcess(t, paths.Home)
	_, tr2 := svcShimProcess(t, paths.Home)
	cs1 := svcConnectClient(t, tr1, "2025-11-25", nil)
	cs2 := svcConnectClient(t, tr2, "2026-07-28", nil)
	svcWaitFor(t, "two hub sessions", func() bool { return svcCountSessions(srv) == 2 })
	svcCallEcho(t, cs1, "one")
	svcCallEcho(t, cs2, "two")

	if err := cmd1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	svcWaitFor(t, "the killed shim's session to end", func() bool { return svcCountSessions(srv) == 1 })
	svcCallEcho(t, cs2, "still here")
}

// svcStoppedErr checks that err is the shim's reconnecting error.
func svcStoppedErr(t *testing.T, err error) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != shimStoppedCode || je.Message != shimStoppedMessage {
		t.Fatalf("error %v (%T), want JSON-RPC error %d %q", err, err, shimStoppedCode, shimStoppedMessage)
	}
}

func TestShimReconnect(t *testing.T) {
	for _, v := range svcProtocolVersions {
		t.Run(v, func(t *testing.T) {
			paths := config.Paths{Home: t.TempDir()}
			blocked := make(chan struct{})
			first := startSvcTestHub(t, paths, svcTestMCPServer(blocked))
			logs := newSvcLogWatch(t)
			sh := startSvcTestShim(t, ShimOptions{Paths: paths, Logger: svcSlogFor(logs)})
			cs := svcConnectClient(t, sh.transport, v, nil)
			svcCallEcho(t, cs, "before")

			inFlight := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
				inFlight <- err
			}()
			<-blocked
			first.stop(t)
			svcStoppedErr(t, <-inFlight)
			logs.waitLog(t, "connection lost")

			// While no hub runs, requests are answered at once.
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
			svcStoppedErr(t, err)

			srv := svcTestMCPServer(nil)
			startSvcTestHub(t, paths, srv)
			logs.waitLog(t, "reconnected")
			// The same client session carries on, without initializing again.
			svcCallEcho(t, cs, "after")
			if v == "2025-11-25" {
				var got *mcp.InitializeParams
				for ss := range srv.Sessions() {
					got = ss.InitializeParams()
				}
				if got == nil || got.ClientInfo.Name != "test-client" || got.ProtocolVersion != v {
					t.Errorf("new hub session initialized with %+v, want the client's replayed initialize", got)
				}
			}
		})
	}
}

func TestShimElicitationAcrossShim(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	startSvcTestHub(t, paths, svcTestMCPServer(nil))
	sh := startSvcTestShim(t, ShimOptions{Paths: paths})
	cs := svcConnectClient(t, sh.transport, "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"word": "yes"}}, nil
		},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.StructuredContent.(map[string]any); got["text"] != "accept:yes" {
		t.Fatalf("ask answered %v, want accept:yes", res.StructuredContent)
	}
}

func TestShimStartsHub(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	listened := make(chan *Service, 1)
	sh := startSvcTestShim(t, ShimOptions{Paths: paths, StartHub: func() error {
		svc, err := Listen(ServiceOptions{Paths: paths, MCPServer: svcTestMCPServer(nil)})
		if err != nil {
			return err
		}
		listened <- svc
		return nil
	}})
	serveSvcTestHub(t, <-listened)
	cs := svcConnectClient(t, sh.transport, "2026-07-28", nil)
	svcCallEcho(t, cs, "started on demand")
}

func TestShimNoHub(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	err := RunShim(context.Background(), ShimOptions{Paths: paths, Stdin: strings.NewReader(""), Stdout: io.Discard})
	if !errors.Is(err, ErrNoHub) || !strings.Contains(err.Error(), "capabilities hub") {
		t.Fatalf("RunShim without a hub: %v, want ErrNoHub with a hint", err)
	}

	started := 0
	err = RunShim(context.Background(), ShimOptions{
		Paths: paths, Stdin: strings.NewReader(""), Stdout: io.Discard,
		StartHub:  func() error { started++; return nil }, // starts nothing
		WaitStart: 50 * time.Millisecond,
	})
	if err == nil || !strings.Contains(err.Error(), "none answered") || started != 1 {
		t.Fatalf("RunShim with a hub that never comes: %v (started %d times)", err, started)
	}

	// A started hub that stopped, saying why: the wait ends a moment
	// after, not at WaitStart, and the error passes the why on.
	why := "capabilities hub: config.json: sources.a.command: must be a string"
	asked := 0
	err = RunShim(context.Background(), ShimOptions{
		Paths: paths, Stdin: strings.NewReader(""), Stdout: io.Discard,
		StartHub:     func() error { return nil },
		StartStopped: func() bool { asked++; return asked > 2 },
		StartOutput:  func() string { return why },
		WaitStart:    time.Hour,
	})
	if err == nil || err.Error() != "shim: the hub it started stopped: "+why {
		t.Fatalf("RunShim with a hub that stopped saying why: %v", err)
	}
	// One that runs but never answers, having said something.
	err = RunShim(context.Background(), ShimOptions{
		Paths: paths, Stdin: strings.NewReader(""), Stdout: io.Discard,
		StartHub:     func() error { return nil },
		StartStopped: func() bool { return false },
		StartOutput:  func() string { return "First run: setting up" },
		WaitStart:    50 * time.Millisecond,
	})
	if err == nil || !strings.Contains(err.Error(), "none answered") || !strings.HasSuffix(err.Error(), "; it said: First run: setting up") {
		t.Fatalf("RunShim with a hub that said something and never answered: %v", err)
	}
}

func TestShimAnswersBeforeExitOnEOF(t *testing.T) {
	// `printf '...' | capabilities mcp`: stdin ends right after the
	// requests, and the shim still prints every answer before it exits.
	paths := config.Paths{Home: t.TempDir()}
	startSvcTestHub(t, paths, svcTestMCPServer(nil))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"}}}`,
	}, "\n") // the last line has no newline
	var out bytes.Buffer
	err := RunShim(context.Background(), ShimOptions{Paths: paths, Stdin: strings.NewReader(in), Stdout: &out, Logger: svcTestLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("shim printed %d lines, want 2:\n%s", len(lines), out.String())
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent map[string]string `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ID != 2 || resp.Result.StructuredContent["text"] != "piped" {
		t.Fatalf("second answer %s, want echo's", lines[1])
	}
}

func TestShimLineHandling(t *testing.T) {
	// Unit checks of the message plumbing that real clients rarely reach.
	t.Run("withID", func(t *testing.T) {
		got, err := withID([]byte(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"a":1}}`+"\n"), json.RawMessage(`"hub-1-3"`))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil || m["id"] != "hub-1-3" || m["method"] != "elicitation/create" || !bytes.HasSuffix(got, []byte("\n")) {
			t.Fatalf("withID gave %s (%v)", got, err)
		}
	})
	t.Run("stoppedError", func(t *testing.T) {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(stoppedError(json.RawMessage(`"abc"`)), &m); err != nil {
			t.Fatal(err)
		}
		if string(m.ID) != `"abc"` || m.Error.Code != -32000 || m.Error.Message != "capabilities hub stopped: reconnecting; retry the request" {
			t.Fatalf("stoppedError gave %+v", m)
		}
	})
	t.Run("lineReader", func(t *testing.T) {
		r := newLineReader(strings.NewReader("\n  \n{\"a\":1}\r\n\n{\"b\":2}"))
		l1, err := r.next()
		if string(l1) != "{\"a\":1}\r\n" || err != nil {
			t.Fatalf("first line %q, %v", l1, err)
		}
		l2, err := r.next()
		if string(l2) != `{"b":2}` || !errors.Is(err, io.EOF) {
			t.Fatalf("last line %q, %v", l2, err)
		}
		long := newLineReader(strings.NewReader(strings.Repeat("x", mcp.DefaultMaxLineLength+1) + "\n"))
		if _, err := long.next(); err == nil || !strings.Contains(err.Error(), "longer than") {
			t.Fatalf("an oversized line: %v", err)
		}
	})
}

// TestShimTypeScriptClient drives a shim process with the official
// TypeScript SDK client (testdata/npm; `npm ci --prefix testdata/npm`).
func TestShimTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	sdk, err := filepath.Abs(filepath.Join(hubtest.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol/sdk/dist/esm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Skip("the TypeScript SDK is not installed: npm ci --prefix testdata/npm")
	}
	paths := config.Paths{Home: t.TempDir()}
	startSvcTestHub(t, paths, svcTestMCPServer(nil))
	script := filepath.Join(t.TempDir(), "client.mjs")
	err = os.WriteFile(script, []byte(`
import { Client } from "`+sdk+`/client/index.js";
import { StdioClientTransport } from "`+sdk+`/client/stdio.js";
const transport = new StdioClientTransport({
	command: process.env.SHIM_BIN,
	args: ["-test.run=^TestServiceHelperProcess$"],
	env: process.env,
	stderr: "inherit",
});
const client = new Client({ name: "ts-client", version: "0.0.1" });
await client.connect(transport);
const tools = await client.listTools();
const res = await client.callTool({ name: "echo", arguments: { text: "from typescript" } });
console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name), echo: res.structuredContent, server: client.getServerVersion() }));
await client.close();
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), svcTestWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), "SHIM_BIN="+os.Args[0], svcHelperEnv+"=shim", "CAPABILITIES_HOME="+paths.Home)
	cmd.Stderr = svcLogWriter{t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	var got struct {
		Tools  []string          `json:"tools"`
		Echo   map[string]string `json:"echo"`
		Server struct {
			Name string `json:"name"`
		} `json:"server"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client printed %q: %v", out, err)
	}
	if strings.Join(got.Tools, ",") != "ask,block,echo" || got.Echo["text"] != "from typescript" || got.Server.Name != "test-hub" {
		t.Fatalf("TypeScript client saw %+v", got)
	}
}

// BenchmarkShimStart measures a client's cold path through the shim: from
// RunShim starting to the first tools/list answer, against a running hub.
// The reference, timed in the same loop, is the same client connecting to
// the hub's MCP socket directly. Reported: both, and their difference.
func BenchmarkShimStart(b *testing.B) {
	paths := config.Paths{Home: b.TempDir()}
	startSvcTestHub(b, paths, svcTestMCPServer(nil))
	direct := newClient(paths)
	defer direct.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil)
	ctx := context.Background()
	listTools := func(tr mcp.Transport) {
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			b.Fatal(err)
		}
		cs.Close()
	}
	var viaShim, viaSocket time.Duration
	for b.Loop() {
		t0 := time.Now()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := RunShim(ctx, ShimOptions{Paths: paths, Stdin: inR, Stdout: outW})
			outW.Close()
			done <- err
		}()
		listTools(&mcp.IOTransport{Reader: outR, Writer: inW})
		viaShim += time.Since(t0)
		if err := <-done; err != nil {
			b.Fatal(err)
		}

		t0 = time.Now()
		conn, err := direct.UpgradeMCP(ctx)
		if err != nil {
			b.Fatal(err)
		}
		listTools(&mcp.IOTransport{Reader: conn, Writer: conn})
		viaSocket += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(float64(viaShim.Nanoseconds())/n/1e3, "shim-µs/start")
	b.ReportMetric(float64(viaSocket.Nanoseconds())/n/1e3, "direct-µs/start")
	b.ReportMetric(float64((viaShim-viaSocket).Nanoseconds())/n/1e3, "added-µs/start")
}

// BenchmarkShimOverhead measures what the shim adds to one tools/call:
// each iteration calls echo once on a session through the shim and once on
// a session on the hub's MCP socket directly, and the difference is the
// shim's per-request cost (target: under 200µs).
func BenchmarkShimOverhead(b *testing.B) {
	paths := config.Paths{Home: b.TempDir()}
	startSvcTestHub(b, paths, svcTestMCPServer(nil))
	sh := startSvcTestShim(b, ShimOptions{Paths: paths})
	viaShim := svcConnectClient(b, sh.transport, "2026-07-28", nil)
	direct := newClient(paths)
	defer direct.Close()
	conn, err := direct.UpgradeMCP(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	viaSocket := svcConnectClient(b, &mcp.IOTransport{Reader: conn, Writer: conn}, "2026-07-28", nil)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var dShim, dSocket time.Duration
	for b.Loop() {
		dShim += call(viaShim)
		dSocket += call(viaSocket)
	}
	n := float64(b.N)
	b.ReportMetric(float64(dShim.Nanoseconds())/n/1e3, "shim-µs/call")
	b.ReportMetric(float64(dSocket.Nanoseconds())/n/1e3, "direct-µs/call")
	b.ReportMetric(float64((dShim-dSocket).Nanoseconds())/n/1e3, "added-µs/call")
	b.ReportMetric(float64(dShim)/float64(dSocket), "shim/direct")
}
