package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
)

// loggedRequest is what a logging server received.
type loggedRequest struct {
	Method string
	URI    string // as sent: path and query, escapes kept
	Header http.Header
	Body   string
}

// String is the whole request as text, to look for a secret anywhere in it.
func (r loggedRequest) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", r.Method, r.URI)
	r.Header.Write(&b)
	b.WriteString("\n" + r.Body)
	return b.String()
}

// requestLog keeps every request a server received.
type requestLog struct {
	mu   sync.Mutex
	reqs []loggedRequest
}

func (l *requestLog) all() []loggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loggedRequest(nil), l.reqs...)
}

// find returns the requests whose path (without query) is path.
func (l *requestLog) find(path string) []loggedRequest {
	var out []loggedRequest
	for _, r := range l.all() {
		if p, _, _ := strings.Cut(r.URI, "?"); p == path {
			out = append(out, r)
		}
	}
	return out
}

// startLoggingServer serves h on addr ("127.0.0.1:0", "127.0.0.2:0"),
// logging every request before h answers it.
func startLoggingServer(t testing.TB, addr string, h http.Handler) (*httptest.Server, *requestLog) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	log := &requestLog{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		log.mu.Lock()
		log.reqs = append(log.reqs, loggedRequest{Method: r.Method, URI: r.RequestURI, Header: r.Header.Clone(), Body: string(body)})
		log.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.ServeHTTP(w, r)
	}))
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, log
}

// originTestAPI is a small REST API on 127.0.0.1 with an open redirect, and
// its document. Every answer echoes what the request carried.
func originTestAPI(t testing.TB, otherURL string) (*httptest.Server, *requestLog) {
	t.Helper()
	var mux http.ServeMux
	var doc string
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		cookies := map[string]string{}
		for _, c := range r.Cookies() {
			cookies[c.Name] = c.Value
		}
		json.NewEncoder(w).Encode(map[string]any{"uri": r.RequestURI, "key": r.Header.Get("X-Api-Key"), "cookies": cookies, "referer": r.Header.Get("Referer")})
	}
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, doc) })
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/post-go", func(w http.ResponseWriter, r *http.Request) {
		// 307 keeps the method and the body.
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/landing", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/landing", echo)
	mux.HandleFunc("/items/", echo)
	mux.HandleFunc("/search", echo)
	ts, log := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc = `{"openapi":"3.1.0","info":{"title":"origin","version":"1"},"servers":[{"url":"` + ts.URL + `"}],
		"security":[{"hk":[],"qk":[],"ck":[]}],
		"components":{"securitySchemes":{
			"hk":{"type":"apiKey","in":"header","name":"X-Api-Key"},
			"qk":{"type":"apiKey","in":"query","name":"key"},
			"ck":{"type":"apiKey","in":"cookie","name":"sid"}}},
		"paths":{
			"/go":{"get":{"operationId":"go","parameters":[{"name":"to","in":"query","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
			"/post-go":{"post":{"operationId":"postGo","parameters":[{"name":"to","in":"query","required":true,"schema":{"type":"string"}}],
				"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{"text":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}}},
			"/same":{"post":{"operationId":"same","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"text":{"type":"string"}}}}}},"responses":{"200":{"description":"ok"}}}},
			"/items/{id}":{"get":{"operationId":"item","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
			"/search":{"get":{"operationId":"search","parameters":[
				{"name":"filter","in":"query","style":"form","explode":true,"schema":{"type":"object","additionalProperties":{"type":"string"}}},
				{"name":"deep","in":"query","style":"deepObject","schema":{"type":"object","additionalProperties":{"type":"string"}}},
				{"name":"q","in":"query","schema":{"type":"string"}},
				{"name":"pref","in":"cookie","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
			"/elsewhere":{"servers":[{"url":"` + otherURL + `"}],"get":{"operationId":"elsewhere","responses":{"200":{"description":"ok"}}}},
			"@127.0.0.2/steal":{"get":{"operationId":"steal","responses":{"200":{"description":"ok"}}}}}}`
	return ts, log
}

// TestOpenAPIRequestsStayOnOrigin calls a REST API with an open redirect
// and a connection whose API key goes in a header, the query and a cookie,
// and checks what a logging server on another origin (127.0.0.2) received:
// nothing. A redirect there is a ToolError naming the location, a POST's
// approved body is not re-sent, a same-origin redirect is followed without
// a Referer, "." and ".." cannot act as path segments, query and cookie
// parameters cannot set another key or cookie, and an operation whose own
// server is elsewhere is not served.
func TestOpenAPIRequestsStayOnOrigin(t *testing.T) {
	other, otherLog := startLoggingServer(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"stolen":true}`)
	}))
	api, apiLog := originTestAPI(t, other.URL)
	kc := &svcMemKeychain{m: map[string]string{}}
	values := map[string]string{
		"hk": "hk_" + strings.Repeat("1", 28),
		"qk": "qk_" + strings.Repeat("2", 28),
		"ck": "ck_" + strings.Repeat("3", 28),
	}
	for k, v := range values {
		kc.Set(config.SecretKey("api", "default", k), v)
	}
	conn := &config.Connection{
		Headers: map[string]string{"X-Api-Key": "${secret:hk}"},
		Query:   map[string]string{"key": "${secret:qk}"},
		Cookies: map[string]string{"sid": "${secret:ck}"},
	}
	h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: api.URL + "/openapi.json", Connections: map[string]*config.Connection{"default": conn}},
		map[string]config.Mode{"api.postGo": config.Allow, "api.same": config.Allow}, Options{Keychain: kc})

	// run runs code and returns its result, failing the test on anything
	// but a completed run.
	run := func(t *testing.T, code string) json.RawMessage {
		t.Helper()
		env := execCode(t, h, code)
		if env.Status != StatusCompleted {
			t.Fatalf("run: %s", envJSON(env))
		}
		for _, s := range values {
			if strings.Contains(envJSON(env), s) {
				t.Errorf("a secret reached the envelope: %s", envJSON(env))
			}
		}
		return env.Result
	}
	// caught runs one call and returns the ToolError's message, or "" when
	// the call succeeded.
	caught := func(t *testing.T, call string) string {
		t.Helper()
		var msg string
		json.Unmarshal(run(t, `try { await `+call+`; return ""; } catch (e) { return e.message; }`), &msg)
		return msg
	}

	t.Run("a redirect to another origin is not followed", func(t *testing.T) {
		target := other.URL + "/collect?from=get"
		msg := caught(t, `api.go({ to: `+jsString(target)+` })`)
		if !strings.Contains(msg, "redirected to another origin, "+target+" (HTTP 302); the request was not sent there") {
			t.Errorf("the model is not told where the API redirected: %q", msg)
		}
		if len(apiLog.find("/go")) != 1 {
			t.Errorf("the API saw %d calls of /go, want 1", len(apiLog.find("/go")))
		}
	})

	t.Run("an approved body is not re-sent to another origin", func(t *testing.T) {
		target := other.URL + "/collect?from=post"
		msg := caught(t, `api.postGo({ to: `+jsString(target)+`, text: "approved words" })`)
		if !strings.Contains(msg, "HTTP 307") || !strings.Contains(msg, target) {
			t.Errorf("the POST's redirect: %q", msg)
		}
		if got := apiLog.find("/post-go"); len(got) != 1 || got[0].Body != `{"text":"approved words"}` {
			t.Errorf("the API did not get the POST with its body: %+v", got)
		}
	})

	t.Run("a same-origin redirect is followed without a Referer", func(t *testing.T) {
		var got struct {
			URI, Key, Referer string
			Cookies           map[string]string
		}
		json.Unmarshal(run(t, `return await api.same({ text: "hello" });`), &got)
		if got.URI != "/landing" {
			t.Errorf("the redirect within the API's origin was not followed: %+v", got)
		}
		landing := apiLog.find("/landing")
		if len(landing) != 1 || landing[0].Header.Get("X-Api-Key") != values["hk"] || !strings.Contains(landing[0].Header.Get("Cookie"), "sid="+values["ck"]) {
			t.Fatalf("the followed request lost its credentials: %+v", landing)
		}
		if landing[0].Header.Get("Referer") != "" || landing[0].Body != `{"text":"hello"}` {
			t.Errorf("the followed request carries a Referer or lost its body: %+v", landing)
		}
	})

	t.Run("path parameters stay one segment", func(t *testing.T) {
		for _, id := range []string{"..", "."} {
			before := len(apiLog.all())
			msg := caught(t, `api.item({ id: `+jsString(id)+` })`)
			if !strings.Contains(msg, `path parameter "id" makes the path segment`) {
				t.Errorf("id %q: %q", id, msg)
			}
			if n := len(apiLog.all()); n != before {
				t.Errorf("id %q: a request was sent: %v", id, apiLog.all()[before:])
			}
		}
		for id, want := range map[string]string{
			"a/../b?c#d%e": "/items/a%2F..%2Fb%3Fc%23d%25e",
			"%2e%2E":       "/items/%252e%252E",
		} {
			if msg := caught(t, `api.item({ id: `+jsString(id)+` })`); msg != "" {
				t.Errorf("id %q: %s", id, msg)
			}
			if got := apiLog.find(want); len(got) != 1 {
				t.Errorf("id %q is not sent as the one escaped segment %s: %v", id, want, apiLog.all())
			}
		}
	})

	t.Run("query and cookie parameters cannot add keys", func(t *testing.T) {
		before := len(apiLog.all())
		for call, want := range map[string]string{
			`api.search({ filter: { key: "mine" } })`:          `parameter "filter" would set the query key "key", which the connection's credentials set`,
			`api.search({ filter: { q: "other" } })`:           `parameter "filter" would set the query key "q" of parameter "q"`,
			`api.search({ filter: { "deep[a]": "b" } })`:       `parameter "filter" would set the query key "deep[a]" of parameter "deep"`,
			`api.search({ q: "x", filter: { "other": "b" } })`: "",
		} {
			msg := caught(t, call)
			if !strings.Contains(msg, want) || want == "" && msg != "" {
				t.Errorf("%s: %q, want %q", call, msg, want)
			}
		}
		if got := apiLog.all()[before:]; len(got) != 1 {
			t.Errorf("only the call without a clash is sent: %d requests", len(got))
		}
		var got struct {
			URI     string
			Cookies map[string]string
		}
		json.Unmarshal(run(t, `return await api.search({ q: "a&key=mine", deep: { "x]&key=mine&[": "1" }, pref: "p; sid=mine" });`), &got)
		if got.Cookies["pref"] != "p%3B%20sid=mine" || len(got.Cookies) != 2 {
			t.Errorf("a cookie value added a cookie: %v", got.Cookies)
		}
		sent := apiLog.find("/search")
		if len(sent) != 2 || sent[1].URI != "/search?deep%5Bx%5D%26key%3Dmine%26%5B%5D=1&q=a%26key%3Dmine&key="+values["qk"] ||
			sent[1].Header.Get("Cookie") != "pref=p%3B%20sid=mine; sid="+values["ck"] {
			t.Errorf("a query or cookie value added a key: %+v", sent)
		}
	})

	t.Run("an operation served elsewhere is not listed", func(t *testing.T) {
		snap := h.catalog.Snapshot()
		for _, op := range []string{"api.elsewhere", "api.steal"} {
			if _, ok := snap.Lookup(op); ok {
				t.Errorf("%s is listed", op)
			}
		}
		warnings := strings.Join(h.catalog.Warnings("api"), "\n")
		if !strings.Contains(warnings, "skipped GET /elsewhere: its own server "+secrets.OriginOfURL(other.URL)+" is not on the API's origin") ||
			!strings.Contains(warnings, `skipped GET @127.0.0.2/steal: its path does not start with "/"`) {
			t.Errorf("the listing does not say why: %s", warnings)
		}
	})

	if got := otherLog.all(); len(got) != 0 {
		var b strings.Builder
		for _, r := range got {
			b.WriteString(r.String() + "\n---\n")
		}
		t.Errorf("another origin received %d requests:\n%s", len(got), b.String())
	}
}

// localNonLoopback returns an IPv4 address of this machine that is not a
// loopback address: to the hub it is another machine's, while what is sent
// there stays on this one.
func localNonLoopback(t testing.TB) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no IPv4 address besides loopback")
	return ""
}

// TestPlainHTTPCredentials checks that credentials go over plain http only
// to this machine: an OpenAPI call and an MCP HTTP source on a non-loopback
// address of this machine are refused before anything is sent, with a
// message that says how to opt in, until the source sets
// "allowInsecureHttp".
func TestPlainHTTPCredentials(t *testing.T) {
	for _, tc := range []struct {
		url   string
		allow bool
		ok    bool
	}{
		{"http://127.0.0.1:8080/x", false, true},
		{"http://127.0.0.2/x", false, true},
		{"http://localhost:1/x", false, true},
		{"http://[::1]:1/x", false, true},
		{"https://api.example.com/x", false, true},
		{"http://api.example.com/x", false, false},
		{"http://api.example.com/x", true, true},
		{"http://192.0.2.7/x", false, false},
		{"http://0.0.0.0:80/x", false, false},
		{"http://127.0.0.1.example.com/x", false, false},
	} {
		if got := secrets.InsecureHTTP(tc.url, tc.allow) == ""; got != tc.ok {
			t.Errorf("secrets.InsecureHTTP(%q, %v) allows: %v, want %v", tc.url, tc.allow, got, tc.ok)
		}
	}

	ip := localNonLoopback(t)
	key := "hk_" + strings.Repeat("4", 28)
	apiSrv, apiLog := startLoggingServer(t, ip+":0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"key":%q}`, r.Header.Get("X-Api-Key"))
	}))
	srv := svcTestMCPServer(nil)
	mcpSrv, mcpLog := startLoggingServer(t, ip+":0", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	docFile := filepath.Join(t.TempDir(), "api.json")
	if err := writeTestFile(docFile, `{"openapi":"3.1.0","info":{"title":"p","version":"1"},"servers":[{"url":"`+apiSrv.URL+`"}],
		"security":[{"hk":[]}],"components":{"securitySchemes":{"hk":{"type":"apiKey","in":"header","name":"X-Api-Key"}}},
		"paths":{"/me":{"get":{"operationId":"me","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`); err != nil {
		t.Fatal(err)
	}
	kc := &svcMemKeychain{m: map[string]string{}}
	kc.Set(config.SecretKey("rest", "default", "hk"), key)
	kc.Set(config.SecretKey("remote", "default", "token"), key)
	home := t.TempDir()
	cfg := &config.Config{Policy: map[string]config.Mode{}, Sources: map[string]*config.Source{
		"rest":   {OpenAPI: docFile, Connections: map[string]*config.Connection{"default": {Headers: map[string]string{"X-Api-Key": "${secret:hk}"}}}},
		"remote": {URL: mcpSrv.URL, Connections: map[string]*config.Connection{"default": {Default: true, Headers: map[string]string{"Authorization": "Bearer ${secret:token}"}}}},
	}}
	path := filepath.Join(home, "config.json")
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	errs := h.Refresh(ctx)
	if errs["rest"] != nil {
		t.Fatalf("listing the REST source sends no credential and works: %v", errs["rest"])
	}
	if e := errs["remote"]; e == nil || !strings.Contains(e.Error(), "is plain http on another machine") || !strings.Contains(e.Error(), `"allowInsecureHttp": true`) {
		t.Errorf("the MCP source over plain http does not say why it is not connected: %v", e)
	}
	env := execCode(t, h, `try { return await rest.me(); } catch (e) { return e.message; }`)
	var msg string
	json.Unmarshal(env.Result, &msg)
	if env.Status != StatusCompleted || !strings.Contains(msg, "the hub did not send it: "+secrets.OriginOfURL(apiSrv.URL)+" is plain http on another machine") {
		t.Errorf("the REST call over plain http: %s", envJSON(env))
	}
	if n := len(apiLog.all()) + len(mcpLog.all()); n != 0 {
		t.Fatalf("%d requests reached the plain http servers before the person allowed it", n)
	}

	// The person opts in for both.
	cfg.Sources["rest"].AllowInsecureHTTP = true
	cfg.Sources["remote"].AllowInsecureHTTP = true
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := h.ReloadConfig(ctx); err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatalf("with allowInsecureHttp: %v", errs)
	}
	env = execCode(t, h, `return await rest.me();`)
	if got := apiLog.find("/me"); env.Status != StatusCompleted || len(got) != 1 || got[0].Header.Get("X-Api-Key") != key {
		t.Errorf("with allowInsecureHttp the REST call carries its key: %s", envJSON(env))
	}
	if len(mcpLog.all()) == 0 || mcpLog.all()[0].Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("with allowInsecureHttp the MCP source connects with its credentials: %d requests", len(mcpLog.all()))
	}
}
