package hub

import (
	"context"
	"encoding/json"
	"fmt"
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
// message names the hub's bound on a call.
func TestUnansweredWriteIsInDoubt(t *testing.T) {
	var got atomic.Int32
	hang := make(chan struct{})
	release := sync.OnceFunc(func() { close(hang) })
	var mux http.ServeMux
	var doc string
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, doc) })
	mux.HandleFunc("/pay", func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		<-hang // the payment is made; the answer never comes
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
			"get":{"operationId":"balance","responses":{"200":{"description":"ok"}}}}}}`
	opts := Options{UpstreamTimeout: 300 * time.Millisecond}
	allow := map[string]config.Mode{"bank.*": config.Allow}
	rest := newOpenAPIHub(t, "bank", &config.Source{OpenAPI: api.URL + "/openapi.json"}, allow, opts)
	tools := newOpenAPIHub(t, "bank", &config.Source{URL: mcpSrv.URL}, allow, opts)

	type failure struct {
		Code, Message, Hint string
		Retryable           bool
	}
	try := func(h *Hub, call string) failure {
		t.Helper()
		env := execCode(t, h, `try { await bank.`+call+`({}); return null; } catch (e) { return { code: e.code, message: e.message, hint: e.hint, retryable: e.retryable }; }`)
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
	if got.Load() != 5 {
		t.Errorf("the servers got %d calls, want 5", got.Load())
	}
	release()
	api.Close()
	if f := try(rest, "pay"); f.Code != CodeSourceUnavailable || !f.Retryable {
		t.Errorf("a POST to a server that is gone (it never left): %+v; want a retryable unavailable source", f)
	}
}
