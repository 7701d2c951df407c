package localapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// Helpers for the tests of the local API, the shim and the HTTP endpoint.

// svcHelperEnv selects what a re-executed test binary does (see
// TestServiceHelperProcess).
const svcHelperEnv = "CAPABILITIES_TEST_HELPER"

// svcTestWait bounds every wait of these tests.
const svcTestWait = 20 * time.Second

// svcTestMCPServer is hubtest.ServiceServer: echo, block and ask.
func svcTestMCPServer(blocked chan<- struct{}) *mcp.Server { return hubtest.ServiceServer(blocked) }

// svcTestHub is a Service serving on a goroutine of the test.
type svcTestHub struct {
	svc    *Service
	cancel context.CancelFunc
	done   chan error
}

func startSvcTestHub(t testing.TB, paths config.Paths, srv *mcp.Server) *svcTestHub {
	t.Helper()
	svc, err := Listen(ServiceOptions{Paths: paths, MCPServer: srv, Logger: svcTestLogger(t)})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	return serveSvcTestHub(t, svc)
}

func serveSvcTestHub(t testing.TB, svc *Service) *svcTestHub {
	ctx, cancel := context.WithCancel(context.Background())
	h := &svcTestHub{svc: svc, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- svc.Serve(ctx) }()
	t.Cleanup(func() { h.stop(t) })
	return h
}

// stop ends the service, waits for Serve to return and releases the
// home's lock, as a hub that stopped and closed; it may be called more
// than once.
func (h *svcTestHub) stop(t testing.TB) {
	t.Helper()
	h.stopServing(t)
	h.svc.Close()
}

// stopServing ends the service and waits for Serve to return: the home
// stays locked, as by a hub still closing.
func (h *svcTestHub) stopServing(t testing.TB) {
	t.Helper()
	h.cancel()
	select {
	case err, ok := <-h.done:
		if ok && err != nil {
			t.Errorf("Serve: %v", err)
		}
		if ok {
			close(h.done)
		}
	case <-time.After(svcTestWait):
		t.Fatalf("Serve did not return within %s of its context ending", svcTestWait)
	}
}

// svcTestLogger sends logs to the test's log, at debug level; benchmarks
// discard them.
func svcTestLogger(t testing.TB) *slog.Logger {
	if _, bench := t.(*testing.B); bench {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(svcLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type svcLogWriter struct{ t testing.TB }

func (w svcLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// svcLogWatch is a slog handler that also delivers every message to a
// channel, for tests that wait for the shim to log something.
type svcLogWatch struct {
	slog.Handler
	msgs chan string
}

func newSvcLogWatch(t testing.TB) *svcLogWatch {
	return &svcLogWatch{Handler: svcTestLogger(t).Handler(), msgs: make(chan string, 256)}
}

func (l *svcLogWatch) Handle(ctx context.Context, r slog.Record) error {
	select {
	case l.msgs <- r.Message:
	default:
	}
	return l.Handler.Handle(ctx, r)
}

func (l *svcLogWatch) WithAttrs(as []slog.Attr) slog.Handler { return l }
func (l *svcLogWatch) WithGroup(string) slog.Handler         { return l }

// waitLog waits for a log message containing want.
func (l *svcLogWatch) waitLog(t testing.TB, want string) {
	t.Helper()
	timeout := time.After(svcTestWait)
	for {
		select {
		case m := <-l.msgs:
			if strings.Contains(m, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no log message containing %q within %s", want, svcTestWait)
		}
	}
}

// svcTestShim runs RunShim over pipes. The returned transport is the client's
// end; closeStdin ends the shim's input; done receives RunShim's result.
type svcTestShim struct {
	transport  mcp.Transport
	closeStdin func()
	done       chan error    // receives RunShim's result once
	exited     chan struct{} // closed when RunShim has returned
	cancel     context.CancelFunc
}

func startSvcTestShim(t testing.TB, opts ShimOptions) *svcTestShim {
	t.Helper()
	inR, inW := io.Pipe()   // client -> shim
	outR, outW := io.Pipe() // shim -> client
	opts.Stdin, opts.Stdout = inR, outW
	if opts.Logger == nil {
		opts.Logger = svcTestLogger(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &svcTestShim{
		transport:  &mcp.IOTransport{Reader: outR, Writer: inW},
		closeStdin: func() { inW.Close() },
		done:       make(chan error, 1),
		exited:     make(chan struct{}),
		cancel:     cancel,
	}
	go func() {
		err := RunShim(ctx, opts)
		outW.CloseWithError(io.EOF)
		inR.Close()
		s.done <- err
		close(s.exited)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-s.exited:
		case <-time.After(svcTestWait):
			t.Errorf("RunShim did not return within %s", svcTestWait)
		}
	})
	return s
}

// svcConnectClient connects a go-sdk client at protocol version v.
func svcConnectClient(t testing.TB, tr mcp.Transport, v string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), svcTestWait)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		t.Fatalf("connecting a %s client: %v", v, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != v {
		t.Fatalf("negotiated protocol %s, want %s", got, v)
	}
	return cs
}

// svcCallEcho calls echo and checks the answer.
func svcCallEcho(t testing.TB, cs *mcp.ClientSession, text string) {
	t.Helper()
	if err := svcTryEcho(cs, text); err != nil {
		t.Fatal(err)
	}
}

func svcTryEcho(cs *mcp.ClientSession, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), svcTestWait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		return fmt.Errorf("calling echo: %w", err)
	}
	if res.IsError {
		return fmt.Errorf("echo failed: %v", res.Content)
	}
	got, _ := res.StructuredContent.(map[string]any)
	if got["text"] != text {
		return fmt.Errorf("echo answered %v, want %q", res.StructuredContent, text)
	}
	return nil
}

// waitFor polls cond until it holds, for at most svcTestWait.
func svcWaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, svcTestWait, what, cond)
}

// svcCountSessions counts the MCP sessions srv serves.
func svcCountSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// svcHelperMain is what a re-executed test binary runs, chosen by svcHelperEnv.
func svcHelperMain() int {
	switch os.Getenv(svcHelperEnv) {
	case "shim":
		err := RunShim(context.Background(), ShimOptions{
			Paths:  config.Paths{Home: os.Getenv("CAPABILITIES_HOME")},
			Stdin:  os.Stdin,
			Stdout: os.Stdout,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "foreign-peer":
		return svcForeignPeer(os.Getenv("CAPABILITIES_HOME"))
	}
	fmt.Fprintf(os.Stderr, "unknown %s %q\n", svcHelperEnv, os.Getenv(svcHelperEnv))
	return 2
}

// TestServiceHelperProcess is not a test: re-executed with svcHelperEnv set,
// the test binary acts as a shim process or as a foreign peer.
func TestServiceHelperProcess(t *testing.T) {
	if os.Getenv(svcHelperEnv) == "" {
		t.Skip("runs only as a helper process")
	}
	os.Exit(svcHelperMain())
}

// svcSlogFor is a logger writing to h.
func svcSlogFor(h slog.Handler) *slog.Logger { return slog.New(h) }

// svcPeerResult is what a foreign peer process reports on its stdout.
type svcPeerResult struct {
	ConnectErr  string `json:"connectErr,omitempty"`
	EACCES      bool   `json:"eacces,omitempty"`
	UID         int    `json:"uid"`
	Status      int    `json:"status,omitempty"`
	Body        string `json:"body,omitempty"`
	ClosedAfter bool   `json:"closedAfter,omitempty"`
	MCPStatus   int    `json:"mcpStatus,omitempty"`
}

// svcForeignPeer runs in a child process as another user: it tries to speak
// to the hub of home and reports what happened.
func svcForeignPeer(home string) int {
	var r svcPeerResult
	r.UID = os.Getuid()
	defer func() { json.NewEncoder(os.Stdout).Encode(r) }()
	paths := config.Paths{Home: home}
	conn, err := net.Dial("unix", paths.Socket())
	if err != nil {
		r.ConnectErr = err.Error()
		r.EACCES = errors.Is(err, syscall.EACCES)
		return 0
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	status := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+apiHost+"/v1/status", nil)
		if err := req.Write(conn); err != nil {
			return nil, err
		}
		return http.ReadResponse(br, req)
	}
	resp, err := status()
	if err != nil {
		r.ConnectErr = "request: " + err.Error()
		return 0
	}
	b, _ := io.ReadAll(resp.Body)
	r.Status, r.Body = resp.StatusCode, string(b)
	// The hub closes a refused connection: a second request gets nothing.
	_, err = status()
	r.ClosedAfter = err != nil
	_, err = newClient(paths).UpgradeMCP(context.Background())
	var ae *APIError
	if errors.As(err, &ae) {
		r.MCPStatus = ae.Status
	}
	return 0
}
