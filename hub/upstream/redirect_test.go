package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/internal/hubtest"
)

// An MCP HTTP source never sends its static headers, its OAuth bearer
// token or a request body through a redirect to another origin: another
// host (127.0.0.2) or another port of the same host receives nothing, and
// the call fails with an error naming where the redirect pointed. A
// redirect within the origin is followed, credentials and all.
func TestUpstreamRedirectStaysOnOrigin(t *testing.T) {
	otherHost := hubtest.NewLoggingMCP(t, "127.0.0.2:0")
	otherPort := hubtest.NewLoggingMCP(t, "127.0.0.1:0")

	var mu sync.Mutex
	var front []string // what the source's own server received
	var flip atomic.Bool
	real := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hubtest.EchoServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		front = append(front, r.Method+" "+r.URL.Path+" key="+r.Header.Get("X-Api-Key")+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		switch {
		case r.URL.Path == "/host" || (r.URL.Path == "/mcp" && flip.Load()):
			http.Redirect(w, r, otherHost.URL, http.StatusTemporaryRedirect)
		case r.URL.Path == "/port":
			http.Redirect(w, r, otherPort.URL, http.StatusPermanentRedirect)
		case r.URL.Path == "/old":
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		case r.URL.Path == "/mcp":
			real.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	const apiKey, bearer = "key-7f3a9c2e51", "tok-b81d04c6e2"
	kc := &hubtest.MemKeychain{}
	conns := func() map[string]*config.Connection {
		return map[string]*config.Connection{"main": {Default: true, Headers: map[string]string{"X-Api-Key": "${secret:KEY}"}}}
	}
	cfg := hubtest.Config(map[string]*config.Source{
		"host":   {URL: srv.URL + "/host", Connections: conns()},
		"port":   {URL: srv.URL + "/port", Connections: conns()},
		"same":   {URL: srv.URL + "/old", Connections: conns()},
		"later":  {URL: srv.URL + "/mcp", Connections: conns()},
		"signed": {URL: srv.URL + "/port"},
	})
	for _, s := range []string{"host", "port", "same", "later"} {
		kc.Set(config.SecretKey(s, "main", "KEY"), apiKey)
	}
	// A signed-in OAuth connection: its bearer token goes out with each
	// request to the source's own origin, and nowhere else.
	if err := oauth.SaveRecord(kc, "signed", "", &oauth.Record{AccessToken: bearer, TokenType: "Bearer", ClientID: "c",
		TokenURL: srv.URL + "/token", Expiry: time.Now().Add(time.Hour), Issued: time.Now()}); err != nil {
		t.Fatal(err)
	}
	u := newTestUpstreams(t, Options{Keychain: kc}, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := json.RawMessage(`{"text":"approved body"}`)

	for _, tc := range []struct{ source, to string }{
		{"host", otherHost.URL}, {"port", otherPort.URL}, {"signed", otherPort.URL},
	} {
		_, err := u.Call(ctx, tc.source, "", "echo", args)
		if err == nil || !strings.Contains(err.Error(), "redirected to another origin, "+tc.to) {
			t.Errorf("%s: a call through a redirect to %s: %v, want an error naming the location", tc.source, tc.to, err)
		}
	}

	// Within the origin the redirect is followed, with the credentials.
	res, err := u.Call(ctx, "same", "", "echo", args)
	if err != nil || hubtest.TextOf(res) != "echo: approved body" {
		t.Fatalf("a call through a same-origin redirect: %v, %v", res, err)
	}
	mu.Lock()
	sawKey := false
	for _, f := range front {
		sawKey = sawKey || strings.HasPrefix(f, "POST /mcp key="+apiKey)
	}
	mu.Unlock()
	if !sawKey {
		t.Errorf("the same-origin redirect target did not get the connection's header: %v", front)
	}

	// A session that is up and then redirected elsewhere stops there too.
	if _, err := u.Call(ctx, "later", "", "echo", args); err != nil {
		t.Fatal(err)
	}
	flip.Store(true)
	if _, err := u.Call(ctx, "later", "", "echo", args); err == nil || !strings.Contains(err.Error(), otherHost.URL) {
		t.Errorf("a call redirected after the session started: %v, want an error naming %s", err, otherHost.URL)
	}

	for _, l := range []*hubtest.LoggingMCP{otherHost, otherPort} {
		if got := l.Received(); len(got) > 0 {
			t.Errorf("%s received %d requests, want none: %q", l.URL, len(got), got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	sawBearer := false
	for _, f := range front {
		sawBearer = sawBearer || strings.HasSuffix(f, "auth=Bearer "+bearer)
	}
	if !sawBearer {
		t.Errorf("the signed-in connection's own server never got its bearer token: %v", front)
	}
}

// A connection's query parameter goes on every request to an HTTP
// source's URL, in place of the URL's own parameter of that name and
// beside the others as written, and a secret the URL's path references is
// filled in, escaped; its value, raw or as a URL writes it,
// stays out of what the server says back (a tool description that quotes
// the URL it was reached at, a redirect to another origin that carries
// it), the errors and the state.
func TestUpstreamHTTPURLSecrets(t *testing.T) {
	const secret = "k/7+f&3=a-91c2e"
	var mu sync.Mutex
	var asked []string
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "q", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "where", Description: "Served at " + r.URL.RequestURI()},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "here"}}}, nil, nil
			})
		return s
	}, nil)
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(live.Close)
	// A server that redirects elsewhere with the query it was given,
	// which the refusal to follow names.
	echoing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:9/elsewhere?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(echoing.Close)

	kc := &hubtest.MemKeychain{}
	conn := func() map[string]*config.Connection {
		return map[string]*config.Connection{"main": {Default: true, Query: map[string]string{"api_key": "${secret:KEY}"}}}
	}
	cfg := hubtest.Config(map[string]*config.Source{
		"live": {URL: live.URL + "/mcp?region=eu&api_key=old", Connections: conn()},
		"down": {URL: echoing.URL + "/mcp?region=eu", Connections: conn()},
		// The key in the URL's path, filled in by the connection.
		"pathed": {URL: live.URL + "/s/${secret:KEY}/mcp", Connections: map[string]*config.Connection{"main": {Default: true}}},
		// Plain http to another machine: neither goes out.
		"farquery": {URL: "http://mcp.example.com/mcp", Connections: conn()},
		"farpath":  {URL: "http://mcp.example.com/s/${secret:KEY}/mcp", Connections: map[string]*config.Connection{"main": {Default: true}}},
	})
	for _, s := range []string{"live", "down", "pathed", "farquery", "farpath"} {
		kc.Set(config.SecretKey(s, "main", "KEY"), secret)
	}
	logger, logs := hubtest.DebugLogger()
	u := newTestUpstreams(t, Options{Keychain: kc, Logger: logger, Secrets: secrets.New()}, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tools, err := u.ListTools(ctx, "live")
	if err != nil || len(tools) != 1 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	if d := tools[0].Description; d != "Served at /mcp?region=eu&api_key=[secret]" {
		t.Errorf("the description quoting the URL = %q, want the key scrubbed", d)
	}
	if _, err := u.Call(ctx, "live", "", "where", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	want := "/mcp?region=eu&api_key=" + url.QueryEscape(secret)
	for _, r := range asked {
		if !strings.HasSuffix(r, want) {
			t.Errorf("a request without the connection's key in place of the URL's: %s", r)
		}
	}
	if len(asked) < 3 {
		t.Errorf("the server got %d requests, want the handshake and the call: %q", len(asked), asked)
	}
	mu.Unlock()

	mu.Lock()
	asked = nil
	mu.Unlock()
	tools, err = u.ListTools(ctx, "pathed")
	if err != nil || len(tools) != 1 || tools[0].Description != "Served at /s/[secret]/mcp" {
		t.Fatalf("ListTools of the source whose path holds the key = %v, %v; want its description scrubbed", tools, err)
	}
	mu.Lock()
	for _, r := range asked {
		if !strings.HasSuffix(r, " /s/"+url.PathEscape(secret)+"/mcp") {
			t.Errorf("a request without the key in its path: %s", r)
		}
	}
	mu.Unlock()

	for _, far := range []string{"farquery", "farpath"} {
		if _, err := u.Call(ctx, far, "", "where", nil); err == nil || !strings.Contains(err.Error(), "did not connect with the connection's credentials") {
			t.Errorf("%s over plain http to another machine: %v", far, err)
		}
	}

	_, err = u.Call(ctx, "down", "", "where", nil)
	if err == nil || !strings.Contains(err.Error(), "http://127.0.0.2:9/elsewhere?region=eu&api_key=[secret]") {
		t.Fatalf("a call redirected elsewhere = %v, want the location named, the key scrubbed", err)
	}
	for what, text := range map[string]string{"error": err.Error(), "state": u.State()["down"].Err, "log": logs.String()} {
		if strings.Contains(text, secret) || strings.Contains(text, url.QueryEscape(secret)) {
			t.Errorf("the key appears in the %s: %s", what, text)
		}
	}
}
