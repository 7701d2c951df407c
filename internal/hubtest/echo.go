package hubtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LoggingMCP is an MCP server over streamable HTTP that logs every
// request it receives (method, path, headers and body), so a test can
// prove what reached it. It listens on addr ("127.0.0.2:0").
type LoggingMCP struct {
	URL  string
	mu   sync.Mutex
	reqs []string
}

// NewLoggingMCP starts a LoggingMCP serving EchoServer, closed when the
// test ends; it skips the test when it cannot listen on addr.
func NewLoggingMCP(t testing.TB, addr string) *LoggingMCP {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	l := &LoggingMCP{URL: "http://" + ln.Addr().String() + "/mcp"}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return EchoServer() }, nil)
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		l.mu.Lock()
		l.reqs = append(l.reqs, fmt.Sprintf("%s %s %v %s", r.Method, r.URL, r.Header, body))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return l
}

// Received returns what the server received, one line per request.
func (l *LoggingMCP) Received() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// EchoServer is an MCP server with one tool, echo, that is neither
// read-only nor destructive.
func EchoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	return s
}
