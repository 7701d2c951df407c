package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
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
