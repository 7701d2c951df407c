package hubtest

// Fake upstreams, for what a real server cannot be made to do: crash in
// the middle of a call, hang in the handshake or in tools/list, list tools
// with malformed schemas, leave a grandchild behind. Each is a go-sdk
// server run by re-executing the test binary with FakeUpstreamEnv set, as
// the go-sdk's own stdio tests do (mcp/cmd_test.go).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/sandbox"
)

// BigNumbers is structured content no float64 holds exactly: what the
// leaky fake's big_number tool answers.
const BigNumbers = `{"id":9007199254740993,"neg":-9007199254740995,"safe":9007199254740991,"big":123456789012345678901234567890,"ratio":0.5,"nested":[{"id":18446744073709551615}]}`

// OrderedSchema is a schema whose properties are not in key order: the
// leaky fake's ordered_params tool takes and answers it.
const OrderedSchema = `{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"enum":["open","closed"]},"head":{"type":"string"}},"required":["owner","repo"]}`

// FakeUpstreamEnv selects the fake a re-executed test binary serves.
const FakeUpstreamEnv = "CAPABILITIES_TEST_FAKE_UPSTREAM"

// SandboxWorkerEnv makes a re-executed test binary serve as a sandbox
// worker for a pool driver, as the app's hidden command does.
const SandboxWorkerEnv = "CAPABILITIES_TEST_SANDBOX_WORKER"

// Main runs the tests of m, or, in a test binary re-executed with
// FakeUpstreamEnv or SandboxWorkerEnv set, serves the fake or the worker
// instead. A package's TestMain calls it.
func Main(m *testing.M) {
	if mode := os.Getenv(FakeUpstreamEnv); mode != "" {
		runFakeUpstream(mode)
		os.Exit(0)
	}
	if os.Getenv(SandboxWorkerEnv) != "" {
		if err := sandbox.ServeWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// FakeEnv is the environment of a stdio source served by the fake named
// mode (see runFakeUpstream), plus env; its command is os.Args[0].
func FakeEnv(mode string, env map[string]string) map[string]string {
	e := map[string]string{FakeUpstreamEnv: mode}
	for k, v := range env {
		e[k] = v
	}
	return e
}

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to send back"`
}

// runFakeUpstream serves one fake over stdio until stdin closes.
//
//   - crash: tools echo (answers with its pid) and crash (exits mid-call);
//     it prints FAKE_TOKEN to stderr first, as a careless server might.
//   - leaky: serves like crash, plus the tools of addLeakyTools.
//   - hang-init: never answers the handshake.
//   - hang-list: answers the handshake, never answers tools/list.
//   - malformed: lists tools whose schemas are not valid JSON Schema.
//   - spawner: starts a grandchild that sleeps, writes its pid to
//     FAKE_PIDFILE, then serves like crash.
//   - sleeper: blocks forever (the grandchild).
//   - deaf: lists echo and, at the first tools/call, stops reading its
//     input for good, as a server whose one thread is stuck in a tool
//     (serveDeaf).
func runFakeUpstream(mode string) {
	if mode == "sleeper" {
		select {}
	}
	if mode == "deaf" {
		serveDeaf()
		return
	}
	if tok := os.Getenv("FAKE_TOKEN"); tok != "" {
		fmt.Fprintf(os.Stderr, "fake upstream starting with token %s\n", tok)
	}
	fmt.Fprintf(os.Stderr, "fake upstream %s ready\n", mode)
	server := mcp.NewServer(&mcp.Implementation{Name: "fake-" + mode, Version: "1"}, nil)
	echoDesc := "Echo a message back."
	if b, err := os.ReadFile(os.Getenv("FAKE_ECHO_DESCRIPTION")); err == nil {
		// A server whose definition changes across restarts (a rug pull).
		echoDesc = string(b)
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: echoDesc},
		func(ctx context.Context, req *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s from %d", args.Message, os.Getpid())}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "crash", Description: "Exit in the middle of the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, args struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "crashing now (token %s)\n", os.Getenv("FAKE_TOKEN"))
			os.Exit(3)
			return nil, nil, nil
		})
	hang := func(method string) mcp.Middleware {
		return func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
				if m == method || (method == "initialize" && m == "server/discover") {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return next(ctx, m, req)
			}
		}
	}
	switch mode {
	case "crash":
	case "leaky":
		addLeakyTools(server)
	case "hang-init":
		server.AddReceivingMiddleware(hang("initialize"))
	case "hang-list":
		server.AddReceivingMiddleware(hang("tools/list"))
	case "malformed":
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, m, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					lr.Tools = append(lr.Tools, malformedTools()...)
				}
				return res, err
			}
		})
	case "spawner":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), FakeUpstreamEnv+"=sleeper")
		if err := child.Start(); err != nil {
			log.Fatalf("starting the grandchild: %v", err)
		}
		if err := os.WriteFile(os.Getenv("FAKE_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o600); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("unknown fake upstream %q", mode)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("fake upstream %s: %v", mode, err)
	}
}

// serveDeaf answers JSON-RPC lines on stdin one at a time, as a
// single-threaded server does: the handshake and tools/list, then, at the
// first tools/call, nothing more, and it reads no further. A go-sdk server
// cannot be made to stop reading: its reader runs beside the handlers.
func serveDeaf() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake-deaf","version":"1"}}`, m.Params.ProtocolVersion)
		case "tools/list":
			result = `{"tools":[{"name":"echo","description":"Echo a message back.","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			select {}
		}
		fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", m.ID, result)
	}
}

// malformedTools have schemas no JSON Schema validator accepts, and one
// has none at all.
func malformedTools() []*mcp.Tool {
	return []*mcp.Tool{
		{Name: "string_schema", Description: "Its input schema is a string.", InputSchema: json.RawMessage(`"object"`)},
		{Name: "bad_types", Description: "Its schema has a numeric type and an array of properties.",
			InputSchema: json.RawMessage(`{"type":7,"properties":[{"name":"x"}],"required":"x"}`)},
		{Name: "dangling_ref", InputSchema: json.RawMessage(`{"$ref":"#/definitions/nowhere"}`),
			OutputSchema: json.RawMessage(`[1,2,3]`)},
		{Name: "no_schema", Description: "It has no input schema."},
	}
}

// addLeakyTools adds the tools of a careless server, which quote their
// secret (FAKE_TOKEN) back, and of one that is exact about numbers:
//
//   - leak_error: fails (isError) with a message that quotes the token, then
//     FAKE_PAD bytes of padding.
//   - leak_rpc: fails with a JSON-RPC error that quotes the token, then
//     FAKE_PAD bytes of padding.
//   - leak_result: answers with the token in structured content, in a key
//     and a value, with escapes.
//   - describe_token: quotes the token in its description and schema.
//   - echo_raw: answers with the exact bytes of its arguments, as text.
//   - ordered_params: its schemas list their properties out of key order
//     (OrderedSchema).
//   - big_number: answers with structured content holding integers beyond
//     2^53 and a text that is not its JSON.
func addLeakyTools(server *mcp.Server) {
	object := json.RawMessage(`{"type":"object"}`)
	pad := func() string {
		n, _ := strconv.Atoi(os.Getenv("FAKE_PAD"))
		return strings.Repeat("x", n)
	}
	tok := os.Getenv("FAKE_TOKEN")
	server.AddTool(&mcp.Tool{Name: "leak_error", Description: "Fail, quoting the token.", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "rejected token " + tok + " " + pad()}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "leak_rpc", Description: "Fail with a JSON-RPC error, quoting the token.", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32000, Message: "upstream refused token " + tok + " " + pad()}
		})
	server.AddTool(&mcp.Tool{Name: "leak_result", Description: "Answer with the token.", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sc, _ := json.Marshal(map[string]any{"token": tok, tok: "as a key", "quoted": "<" + tok + ">"})
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(sc), Content: []mcp.Content{&mcp.TextContent{Text: "token " + tok}}}, nil
		})
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"t": map[string]any{"type": "string", "description": "defaults to " + tok}}})
	server.AddTool(&mcp.Tool{Name: "describe_token", Description: "Describes itself with the token " + tok + ".", InputSchema: json.RawMessage(schema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "echo_raw", Description: "Answer with the arguments as received.", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "ordered_params", Description: "Takes its parameters in the order it lists them.",
		InputSchema: json.RawMessage(OrderedSchema), OutputSchema: json.RawMessage(OrderedSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"owner":"o","repo":"r","state":"open","head":"h"}`)}, nil
		})
	server.AddTool(&mcp.Tool{Name: "big_number", Description: "Answer with large integers.", InputSchema: object},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sc := json.RawMessage(BigNumbers)
			return &mcp.CallToolResult{StructuredContent: sc, Content: []mcp.Content{&mcp.TextContent{Text: "see the structured content"}}}, nil
		})
}
