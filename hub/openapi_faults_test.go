package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
)

// TestOpenAPIFaults serves a document from a small API that misbehaves
// on purpose: a 503 with a short Retry-After is tried once more, a 500 is
// a retryable ToolError with its status, an error body that echoes the
// API key reaches neither the guest nor the envelope, and a query API key
// travels in the query.
func TestOpenAPIFaults(t *testing.T) {
	var busy atomic.Int32
	var mux http.ServeMux
	var doc string
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, doc) })
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		if busy.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true,"n":12345678901234567890}`)
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal failure for key "+r.URL.Query().Get("key"), http.StatusInternalServerError)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("key") == "" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "plain words")
	})
	ts := httptest.NewServer(&mux)
	t.Cleanup(ts.Close)
	doc = `{"openapi":"3.1.0","info":{"title":"f","version":"1"},"servers":[{"url":"` + ts.URL + `"}],
		"security":[{"key":[]}],
		"components":{"securitySchemes":{"key":{"type":"apiKey","in":"query","name":"key"}}},
		"paths":{
			"/busy":{"get":{"operationId":"busy","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},
			"/broken":{"get":{"operationId":"broken","responses":{"200":{"description":"ok"}}}},
			"/text":{"get":{"operationId":"text","responses":{"200":{"description":"ok","content":{"text/plain":{"schema":{"type":"string"}}}}}}}}}`
	kc := &svcMemKeychain{m: map[string]string{}}
	secret := "qk_" + strings.Repeat("5", 28)
	kc.Set(config.SecretKey("faults", "default", "key"), secret)
	h := newOpenAPIHub(t, "faults", &config.Source{OpenAPI: ts.URL + "/openapi.json",
		Connections: map[string]*config.Connection{"default": {Query: map[string]string{"key": "${secret:key}"}}}}, nil, Options{Keychain: kc})

	env := execCode(t, h, `
		const out = {};
		out.busy = await faults.busy();
		try { await faults.broken(); } catch (e) { out.broken = { status: e.status, retryable: e.retryable, message: e.message }; }
		out.text = await faults.text();
		return out;`)
	if env.Status != StatusCompleted {
		t.Fatalf("run: %s", envJSON(env))
	}
	var out struct {
		Busy   json.RawMessage
		Broken struct {
			Status    int
			Retryable bool
			Message   string
		}
		Text string
	}
	if err := json.Unmarshal(env.Result, &out); err != nil {
		t.Fatal(err)
	}
	if string(out.Busy) != `{"n":12345678901234567890,"ok":true}` && string(out.Busy) != `{"ok":true,"n":12345678901234567890}` {
		t.Errorf("a 503 with Retry-After: 0 is tried again, numbers exact: %s", out.Busy)
	}
	if busy.Load() != 2 {
		t.Errorf("busy was called %d times, want 2", busy.Load())
	}
	if out.Broken.Status != 500 || !out.Broken.Retryable || !strings.Contains(out.Broken.Message, "HTTP 500") || !strings.Contains(out.Broken.Message, "internal failure for key") {
		t.Errorf("a 500 is a retryable ToolError with its status and the body's start: %+v", out.Broken)
	}
	if strings.Contains(envJSON(env), secret) {
		t.Errorf("the API key echoed in an error body reached the envelope: %s", envJSON(env))
	}
	if out.Text != "plain words" {
		t.Errorf("a text answer is a string: %q", out.Text)
	}
}

// TestOpenAPIOAuthSignIn calls an oauth2 operation with a connection's
// stored sign-in, made for the API's server: its access token goes as the
// bearer token. Without a
// sign-in the call waits for a connection before anything is sent.
func TestOpenAPIOAuthSignIn(t *testing.T) {
	var calls atomic.Int32
	var mux http.ServeMux
	mux.HandleFunc("/me", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer at_"+strings.Repeat("9", 30) {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"login":"octocat"}`)
	})
	ts := httptest.NewServer(&mux)
	t.Cleanup(ts.Close)
	file := t.TempDir() + "/api.json"
	doc := `{"openapi":"3.0.3","info":{"title":"o","version":"1"},"servers":[{"url":"` + ts.URL + `"}],
		"components":{"securitySchemes":{"oauth":{"type":"oauth2","flows":{"authorizationCode":{"authorizationUrl":"https://example.com/a","tokenUrl":"https://example.com/t","scopes":{}}}}}},
		"security":[{"oauth":[]}],
		"paths":{"/me":{"get":{"operationId":"me","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`
	if err := writeTestFile(file, doc); err != nil {
		t.Fatal(err)
	}
	kc := &svcMemKeychain{m: map[string]string{}}
	h := newOpenAPIHub(t, "oa", &config.Source{OpenAPI: file, Connections: map[string]*config.Connection{"me": {}}}, nil, Options{Keychain: kc})
	env := execCode(t, h, `return (await oa.me()).login;`)
	if env.Status != StatusAwaitingConnection || calls.Load() != 0 {
		t.Fatalf("without a sign-in the call waits and sends nothing (%d sent): %s", calls.Load(), envJSON(env))
	}
	if err := oauth.SaveRecord(kc, "oa", "me", &oauth.Record{AccessToken: "at_" + strings.Repeat("9", 30), TokenType: "Bearer", Expiry: time.Now().Add(time.Hour), SourceURL: ts.URL}); err != nil {
		t.Fatal(err)
	}
	env = resumeCode(t, h, env.RunID)
	if env.Status != StatusCompleted || string(env.Result) != `"octocat"` {
		t.Fatalf("with a sign-in: %s", envJSON(env))
	}
	if strings.Contains(envJSON(env), strings.Repeat("9", 30)) {
		t.Errorf("the token reached the envelope")
	}
}

func writeTestFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o600) }
