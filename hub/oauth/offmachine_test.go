package oauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// A server elsewhere whose 401 names metadata on this machine does not get
// the hub to fetch it (its sign-in stops, saying why): a hostile server
// must not point the hub at the person's local services. A server on this
// machine may name another of its addresses. The remote server is a fake
// answer to a name no test can reach; the local service is real.
func TestSignInStaysOffThisMachine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	var mu sync.Mutex
	var hits []string
	local := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	local.Listener = ln
	local.Start()
	t.Cleanup(local.Close)
	meta := local.URL + "/admin/shutdown"

	// Every MCP request asks for a sign-in, naming the local service as
	// its resource metadata.
	challenge := func(w http.ResponseWriter) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	}
	remote := roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.URL.Hostname() != "mcp.remote.test" {
			return http.DefaultTransport.RoundTrip(r)
		}
		rec := httptest.NewRecorder()
		challenge(rec)
		return rec.Result(), nil
	})
	near := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { challenge(w) }))
	t.Cleanup(near.Close)

	noBrowser := func(context.Context, string) error { return errors.New("no browser in this test") }
	for _, tc := range []struct {
		server    string
		wantHits  bool
		wantError string
	}{
		{"https://mcp.remote.test/mcp", false, "https://mcp.remote.test, a server elsewhere, named " + local.URL + " on this machine for its sign-in"},
		{near.URL + "/mcp", true, ""},
	} {
		mu.Lock()
		hits = nil
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := SignIn(ctx, SignInOptions{Source: "p", Def: &config.Source{URL: tc.server}, Keychain: &hubtest.MemKeychain{},
			Open: noBrowser, HTTPClient: &http.Client{Transport: remote}})
		cancel()
		mu.Lock()
		got := append([]string(nil), hits...)
		mu.Unlock()
		if (len(got) > 0) != tc.wantHits {
			t.Errorf("%s: the local service got %q", tc.server, got)
		}
		if err == nil || tc.wantError != "" && !strings.Contains(err.Error(), tc.wantError) {
			t.Errorf("%s: signing in: %v, want an error saying %q", tc.server, err, tc.wantError)
		}
	}
}

// The same for a connection signed in to a server elsewhere whose 401
// names metadata on this machine: the hub reads none (it would look for
// the authorization server there), and the connection needs a sign-in.
func TestSignedInConnStaysOffThisMachine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	var hits atomic.Int32
	local := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	local.Listener = ln
	local.Start()
	t.Cleanup(local.Close)
	kc := &hubtest.MemKeychain{}
	for _, server := range []string{"https://mcp.remote.test/mcp", "http://127.0.0.1:9/mcp"} {
		if err := SaveRecord(kc, "p", "", &Record{AccessToken: "at-1", TokenType: "Bearer", ClientID: "c", Issuer: "https://as.example.com",
			SourceURL: server, Expiry: time.Now().Add(time.Hour), Issued: time.Now()}); err != nil {
			t.Fatal(err)
		}
		oc, err := NewConn("p", "", kc, &http.Client{}, func([]string) {})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		rec.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+local.URL+`/admin/shutdown"`)
		rec.WriteHeader(http.StatusUnauthorized)
		req := httptest.NewRequest(http.MethodPost, server, nil)
		hits.Store(0)
		err = oc.Authorize(context.Background(), req, rec.Result())
		var sie *SignInError
		if !errors.As(err, &sie) {
			t.Errorf("%s: a refused token: %v, want a sign-in error", server, err)
		}
		if want := int32(map[bool]int{true: 0, false: 1}[strings.Contains(server, "remote")]); hits.Load() != want {
			t.Errorf("%s: the local service got %d requests, want %d", server, hits.Load(), want)
		}
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// What the guard counts as this machine: loopback names and addresses, and
// the unspecified address, which reaches this machine too (credentials
// over plain http go to loopback only: secrets.InsecureHTTP).
func TestOnThisMachine(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.2": true, "localhost": true, "api.localhost": true, "::1": true, "[::1]": true,
		"0.0.0.0": true, "::": true,
		"mcp.remote.test": false, "10.0.0.1": false, "192.0.2.7": false, "127.0.0.1.example.com": false,
	} {
		if got := onThisMachine(host); got != want {
			t.Errorf("onThisMachine(%q) = %v, want %v", host, got, want)
		}
	}
}
