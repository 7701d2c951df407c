package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
)

// A call that went out and got no answer may have happened. One that is
// neither read-only nor idempotent (a POST) fails as interrupted, not
// retryable, with a hint to check its effect first, so that a model does
// not make the payment twice; a GET or a PUT that times out stays a
// retryable timeout, and a POST that never left (nothing listens) a
// retryable unavailable source.
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
	ts := httptest.NewServer(&mux)
	t.Cleanup(ts.Close)
	t.Cleanup(release)
	doc = `{"openapi":"3.1.0","info":{"title":"p","version":"1"},"servers":[{"url":"` + ts.URL + `"}],
		"paths":{"/pay":{
			"post":{"operationId":"pay","responses":{"200":{"description":"ok"}}},
			"put":{"operationId":"setPayee","responses":{"200":{"description":"ok"}}},
			"get":{"operationId":"balance","responses":{"200":{"description":"ok"}}}}}}`
	h := newOpenAPIHub(t, "bank", &config.Source{OpenAPI: ts.URL + "/openapi.json"},
		map[string]config.Mode{"bank.*": config.Allow}, Options{UpstreamTimeout: 300 * time.Millisecond})

	type failure struct {
		Code, Message, Hint string
		Retryable           bool
	}
	try := func(call string) failure {
		t.Helper()
		env := execCode(t, h, `try { await bank.`+call+`({}); return null; } catch (e) { return { code: e.code, message: e.message, hint: e.hint, retryable: e.retryable }; }`)
		var f failure
		if env.Status != StatusCompleted || json.Unmarshal(env.Result, &f) != nil {
			t.Fatalf("%s: %s", call, envJSON(env))
		}
		return f
	}
	f := try("pay")
	if f.Code != CodeInterrupted || f.Retryable || !strings.Contains(f.Message, "no answer within") ||
		!strings.Contains(f.Message, "it was sent and may have happened") || !strings.Contains(f.Hint, "Check its effect before calling it again") {
		t.Errorf("a POST without an answer: %+v; want interrupted, not retryable", f)
	}
	for _, call := range []string{"balance", "setPayee"} {
		if f := try(call); f.Code != CodeUpstreamTimeout || !f.Retryable {
			t.Errorf("%s (read-only or idempotent) without an answer: %+v; want a retryable timeout", call, f)
		}
	}
	if got.Load() != 3 {
		t.Errorf("the API got %d requests, want 3", got.Load())
	}
	release()
	ts.Close()
	if f := try("pay"); f.Code != CodeSourceUnavailable || !f.Retryable {
		t.Errorf("a POST to a server that is gone (it never left): %+v; want a retryable unavailable source", f)
	}
}
