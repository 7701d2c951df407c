package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// A call that went out and got no answer may have happened. One that is
// neither read-only nor idempotent (a POST, an MCP tool without hints)
// fails as interrupted, not retryable, with a hint to check its effect
// first, so that a model does not make the payment twice; a GET, a PUT or
// a read-only tool that times out stays a retryable timeout, and a POST
// that never left (nothing listens) a retryable unavailable source. The
// message names the hub's bound on a call. A POST answered 504 by a
// gateway is in the same doubt.
func TestUnansweredWriteIsInDoubt(t *testing.T) {
	var got atomic.Int32
	hang := make(chan struct{})
	release := sync.OnceFunc(func() { close(hang) })
	var mux http.ServeMux
	var doc string
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, doc) })
	// The same operation at a port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "http://" + ln.Addr().String()
	ln.Close()
	mux.HandleFunc("/gone.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"openapi":"3.1.0","info":{"title":"p","version":"1"},"servers":[{"url":"`+nowhere+`"}],
			"paths":{"/pay":{"post":{"operationId":"pay","responses":{"200":{"description":"ok"}}}}}}`)
	})
	mux.HandleFunc("/pay", func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		<-hang // the payment is made; the answer never comes
	})
	mux.HandleFunc("/gateway", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the payments service did not answer", http.StatusGatewayTimeout)
	})
	api := httptest.NewServer(&mux)
	t.Cleanup(api.Close)
	mcpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "1"}, nil)
		block := func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			got.Add(1)
			select {
			case <-hang:
			case <-ctx.Done():
			}
			return nil, nil, ctx.Err()
		}
		mcp.AddTool(s, &mcp.Tool{Name: "send"}, block)
		mcp.AddTool(s, &mcp.Tool{Name: "peek", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, block)
		return s
	}, nil))
	t.Cleanup(mcpSrv.Close)
	t.Cleanup(release)
	doc = `{"openapi":"3.1.0","info":{"title":"p","version":"1"},"servers":[{"url":"` + api.URL + `"}],
		"paths":{"/pay":{
			"post":{"operationId":"pay","responses":{"200":{"description":"ok"}}},
			"put":{"operationId":"setPayee","responses":{"200":{"description":"ok"}}},
			"get":{"operationId":"balance","responses":{"200":{"description":"ok"}}}},
			"/gateway":{
				"post":{"operationId":"payThrough","responses":{"200":{"description":"ok"}}},
				"get":{"operationId":"balanceThrough","responses":{"200":{"description":"ok"}}}}}}`
	opts := Options{UpstreamTimeout: 300 * time.Millisecond}
	allow := map[string]config.Mode{"bank.*": config.Allow}
	rest := newOpenAPIHub(t, "bank", &config.Source{OpenAPI: api.URL + "/openapi.json"}, allow, opts)
	tools := newOpenAPIHub(t, "bank", &config.Source{URL: mcpSrv.URL}, allow, opts)
	gone := newOpenAPIHub(t, "bank", &config.Source{OpenAPI: api.URL + "/gone.json"}, allow, opts)

	type failure struct {
		Code, Message, Hint string
		Status              int
		Retryable           bool
	}
	try := func(h *Hub, call string) failure {
		t.Helper()
		env := execCode(t, h, `try { await bank.`+call+`({}); return null; } catch (e) { return { code: e.code, message: e.message, hint: e.hint, status: e.status, retryable: e.retryable }; }`)
		var f failure
		if env.Status != StatusCompleted || json.Unmarshal(env.Result, &f) != nil {
			t.Fatalf("%s: %s", call, envJSON(env))
		}
		return f
	}
	for _, tc := range []struct {
		h    *Hub
		call string
	}{{rest, "pay"}, {tools, "send"}} {
		f := try(tc.h, tc.call)
		if f.Code != CodeInterrupted || f.Retryable || !strings.Contains(f.Message, "no answer within 300ms; it was sent and may have happened") ||
			!strings.Contains(f.Hint, "Check its effect before calling it again") {
			t.Errorf("%s, a write without an answer: %+v; want interrupted, not retryable, naming the hub's bound", tc.call, f)
		}
	}
	for _, tc := range []struct {
		h    *Hub
		call string
	}{{rest, "balance"}, {rest, "setPayee"}, {tools, "peek"}} {
		if f := try(tc.h, tc.call); f.Code != CodeUpstreamTimeout || !f.Retryable || !strings.Contains(f.Message, "no answer within 300ms") {
			t.Errorf("%s (read-only or idempotent) without an answer: %+v; want a retryable timeout", tc.call, f)
		}
	}
	// A gateway that timed out waiting for the server: the same doubt.
	if f := try(rest, "payThrough"); f.Code != CodeInterrupted || f.Retryable || f.Status != 504 || !strings.Contains(f.Message, "HTTP 504 Gateway Timeout: the payments service did not answer; it was sent") {
		t.Errorf("a POST answered 504: %+v; want interrupted with its status", f)
	}
	if f := try(rest, "balanceThrough"); f.Code != CodeUpstreamError || !f.Retryable || f.Status != 504 {
		t.Errorf("a GET answered 504: %+v; want a retryable upstream error", f)
	}
	if got.Load() != 5 {
		t.Errorf("the servers got %d calls, want 5", got.Load())
	}
	if f := try(gone, "pay"); f.Code != CodeSourceUnavailable || !f.Retryable || !strings.Contains(f.Message, "connection refused") {
		t.Errorf("a POST to a server that is gone (it never left): %+v; want a retryable unavailable source", f)
	}
}

// A call to a program that stopped reading, whose write blocks, ends when
// the hub stops the program (upstream.StuckGrace after the call's time):
// interrupted, and its message names the call's bound, not the heart's own
// guard, which waits longer.
func TestStuckWriteNamesTheBound(t *testing.T) {
	h := newOpenAPIHub(t, "deaf", fakeSource("deaf", nil), map[string]config.Mode{"deaf.*": config.Allow}, Options{UpstreamTimeout: time.Second})
	for _, n := range []int{10, 1 << 20} { // the program reads the first call, then nothing: the second's write blocks
		env := execCode(t, h, fmt.Sprintf(`try { await deaf.echo({ message: "a".repeat(%d) }); } catch (e) { return e.code + ": " + e.message; }`, n))
		var got string
		if env.Status != StatusCompleted || json.Unmarshal(env.Result, &got) != nil ||
			got != `interrupted: source "deaf": calling echo: no answer within 1s; it was sent and may have happened` {
			t.Errorf("a call with %d bytes of arguments: %s", n, envJSON(env))
		}
	}
}
