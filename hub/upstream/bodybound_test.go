package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// An MCP server over HTTP that answers a call with a body that does not
// end (as JSON, or as the body of an error status) is read no further than
// the bound the SDK keeps for one stdio message or one SSE event: the call
// fails (saying why, for a JSON answer) and the hub holds no more of it.
// The server stops at 96 MiB so that a hub without the bound fails the
// test instead of running out of memory: it took the 96 MiB as the call's
// result.
func TestUpstreamHTTPAnswerBounded(t *testing.T) {
	const serve = 96 << 20
	var sent atomic.Int64
	real := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hubtest.EchoServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg)
		if msg.Method != "tools/call" {
			real.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/stream" {
			// An event stream holds many messages: the bound is each
			// event's, the SDK's, and 24 MiB of log events before the
			// answer pass. The media type is told as the SDK tells it.
			w.Header().Set("Content-Type", "Text/Event-Stream; charset=utf-8")
			note := `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("n", 1<<20) + `"}}` + "\n\n"
			for range 24 {
				w.Write([]byte(note))
			}
			w.Write([]byte(`data: {"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":"streamed"}]}}` + "\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/status" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":"`))
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for sent.Load() < serve {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
		w.Write([]byte(`"}]}}`))
	}))
	t.Cleanup(srv.Close)

	u := newTestUpstreams(t, Options{}, hubtest.Config(map[string]*config.Source{
		"json":   {URL: srv.URL + "/json"},
		"status": {URL: srv.URL + "/status"},
		"stream": {URL: srv.URL + "/stream"},
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, source := range []string{"json", "status"} {
		sent.Store(0)
		_, err := u.Call(ctx, source, "", "echo", json.RawMessage(`{"text":"hi"}`))
		// An error status's body only gives the SDK the JSON-RPC error it
		// may hold; the call fails with the status.
		want := map[string]string{"json": "the server's answer is over 16.0 MB, the most one message may hold", "status": "Internal Server Error"}[source]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: a call answered with %d MiB: %v, want an error saying %q", source, serve>>20, err, want)
		}
		// The server got the call and its answer was not read: it may
		// have acted on it. (An error status is an answer.)
		if ue := (*Error)(nil); source == "json" && (!errors.As(err, &ue) || !ue.Sent) {
			t.Errorf("%s: %#v does not say the call was sent", source, err)
		}
		// What the server could write is what the hub read, and what the
		// sockets' buffers held when it stopped reading.
		if got := sent.Load(); got >= serve {
			t.Errorf("%s: the hub read all %d MiB of the answer", source, got>>20)
		}
	}
	res, err := u.Call(ctx, "stream", "", "echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil || hubtest.TextOf(res) != "streamed" {
		t.Errorf("an answer after 24 MiB of events: %v, %v", res, err)
	}
}
