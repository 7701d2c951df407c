package hub

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// testAS is a small OAuth authorization server and protected MCP server in
// one, for what the TypeScript example server does not do: refresh,
// expiry, revocation and step-up. Its authorization page grants at once.
type testAS struct {
	srv *httptest.Server

	mu         sync.Mutex
	expiresIn  int                 // seconds, of each access token issued
	refuse     bool                // refresh grants fail with invalid_grant
	needScope  string              // the MCP endpoint asks for this scope (403 insufficient_scope)
	iss, state string              // when set, the authorization response carries these instead
	servers    []string            // when set, the resource metadata names these authorization servers
	access     map[string][]string // live access token -> scopes
	refresh    map[string][]string // live refresh token -> scopes
	grants     []string            // grant_type of each token request
	asked      []string            // scope parameter of each authorization request
	revoked    []string            // token_type_hint of each revocation
	codes      map[string][]string
	registered int
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{expiresIn: 3600, access: map[string][]string{}, refresh: map[string][]string{}, codes: map[string][]string{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		servers := a.servers
		a.mu.Unlock()
		if servers == nil {
			servers = []string{base}
		}
		writeJSON(w, 200, &oauthex.ProtectedResourceMetadata{Resource: base + "/mcp", AuthorizationServers: servers, ScopesSupported: []string{"read"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "revocation_endpoint": base + "/revoke",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"authorization_response_iss_parameter_supported": true, "scopes_supported": []string{"read", "admin", "offline_access"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		a.mu.Lock()
		a.registered++
		a.mu.Unlock()
		m["client_id"] = "client-" + rand.Text()
		writeJSON(w, 201, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := rand.Text()
		a.mu.Lock()
		a.asked = append(a.asked, q.Get("scope"))
		a.codes[code] = strings.Fields(q.Get("scope"))
		a.mu.Unlock()
		u, _ := url.Parse(q.Get("redirect_uri"))
		iss, state := base, q.Get("state")
		a.mu.Lock()
		iss, state = cmp.Or(a.iss, iss), cmp.Or(a.state, state)
		a.mu.Unlock()
		u.RawQuery = url.Values{"code": {code}, "state": {state}, "iss": {iss}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		gt := r.PostForm.Get("grant_type")
		a.grants = append(a.grants, gt)
		var scopes []string
		switch gt {
		case "authorization_code":
			s, ok := a.codes[r.PostForm.Get("code")]
			if !ok {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.codes, r.PostForm.Get("code"))
			scopes = s
		case "refresh_token":
			s, ok := a.refresh[r.PostForm.Get("refresh_token")]
			if !ok || a.refuse {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the refresh token is no longer valid"})
				return
			}
			delete(a.refresh, r.PostForm.Get("refresh_token"))
			scopes = s
		}
		at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
		a.access[at], a.refresh[rt] = scopes, scopes
		writeJSON(w, 200, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": a.expiresIn, "scope": strings.Join(scopes, " ")})
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		a.revoked = append(a.revoked, r.PostForm.Get("token_type_hint"))
		delete(a.access, r.PostForm.Get("token"))
		delete(a.refresh, r.PostForm.Get("token"))
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "protected"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "it is you"}}}, nil, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	meta := base + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		scopes, ok := a.access[tok]
		need := a.needScope
		a.mu.Unlock()
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, meta))
			http.Error(w, "invalid token", http.StatusUnauthorized)
		case need != "" && !slices.Contains(scopes, need):
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, meta))
			http.Error(w, "insufficient scope", http.StatusForbidden)
		default:
			handler.ServeHTTP(w, r)
		}
	}))
	return a
}

func (a *testAS) endpoint() string { return a.srv.URL + "/mcp" }

// drop forgets every access token, as a server does when they expire or
// are revoked on its side.
func (a *testAS) drop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string][]string{}
}

func (a *testAS) count(grant string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, g := range a.grants {
		if g == grant {
			n++
		}
	}
	return n
}

// oauthTestHub is a hub with one source "p" on a's MCP endpoint, signed in.
func oauthTestHub(t *testing.T, a *testAS) (*Hub, func() *Hub) {
	browser, _ := browserScript(t)
	t.Setenv("BROWSER", browser)
	kc := oauthTestKeychain(t)
	home := t.TempDir()
	cfg := testConfig(map[string]*Source{"p": {URL: a.endpoint()}})
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	open := func() *Hub {
		h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: kc})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	h := open()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.Login(ctx, "p", ""); err != nil {
		t.Fatal(err)
	}
	return h, open
}

const whoami = `return await p.whoami({});`

// An access token about to expire is refreshed before the call, and a
// short-lived one is not refreshed on every call; one the server dropped
// is refreshed after its 401 and the call retried; each new token is kept
// in the keychain and scrubbed.
func TestOAuthRefresh(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	// The hour-long token has 30 seconds left.
	rec, err := loadOAuthRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	rec.Expiry, rec.Issued = time.Now().Add(30*time.Second), time.Now().Add(-time.Hour+30*time.Second)
	if err := saveOAuthRecord(h.kc, "p", "", rec); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.expiresIn = 200 // refreshed when 50 s are left
	a.mu.Unlock()
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call with an expiring token: %s", env.Line())
	}
	if n := a.count("refresh_token"); n < 1 {
		t.Fatalf("no refresh before expiry (%d refreshes)", n)
	}
	if env := execOn(t, h, whoami); env.Status != StatusCompleted || a.count("refresh_token") != 1 {
		t.Fatalf("a second call with a fresh short-lived token: %s, %d refreshes", env.Line(), a.count("refresh_token"))
	}
	rec, err = loadOAuthRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	a.mu.Lock()
	_, live := a.access[rec.AccessToken]
	a.mu.Unlock()
	if !live {
		t.Error("the keychain does not hold the refreshed access token")
	}
	if !slices.Contains(h.secrets.Values(), rec.AccessToken) || !slices.Contains(h.secrets.Values(), rec.RefreshToken) {
		t.Error("the refreshed tokens are not in the secret registry")
	}

	a.mu.Lock()
	a.expiresIn = 3600
	a.mu.Unlock()
	execOn(t, h, whoami) // takes a long-lived token
	before := a.count("refresh_token")
	a.drop()
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call after the server dropped the token: %s", env.Line())
	}
	if a.count("refresh_token") != before+1 {
		t.Errorf("refreshes %d -> %d, want one after the 401", before, a.count("refresh_token"))
	}
}

// A refresh the server refuses turns the connection into needs sign-in:
// the call awaits the connection, the state says why, and a restarted hub
// still knows.
func TestOAuthRefreshFails(t *testing.T) {
	a := newTestAS(t)
	h, open := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("first call: %s", env.Line())
	}
	a.mu.Lock()
	a.refuse = true
	a.mu.Unlock()
	a.drop()
	t.Setenv("BROWSER", "false") // the hub's own sign-in attempt must not succeed
	env := execOn(t, h, whoami)
	if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 {
		t.Fatalf("a call whose refresh fails: %s", env.Line())
	}
	st, err := ReadOAuthState(h.kc, "p", "", nil)
	if err != nil || st.SignedIn || !strings.Contains(st.Reason, "invalid_grant") {
		t.Fatalf("state after a failed refresh: %+v, %v", st, err)
	}
	if us := h.up.State()["p"]; us.State != SourceNeedsSignIn {
		t.Errorf("source state %+v", us)
	}
	h.Close()
	h = open()
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Fatalf("after a restart: %s", env.Line())
	}
}

// A 403 insufficient_scope asks for a sign-in, and that sign-in asks for
// the wider scope; it then works.
func TestOAuthStepUp(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	a.mu.Lock()
	a.needScope = "admin"
	a.mu.Unlock()
	t.Setenv("BROWSER", "false")
	env := execOn(t, h, whoami)
	if env.Status != StatusAwaitingConnection {
		t.Fatalf("a call needing more scope: %s", env.Line())
	}
	st, _ := ReadOAuthState(h.kc, "p", "", nil)
	if st.SignedIn || !strings.Contains(st.Reason, "admin") {
		t.Fatalf("state %+v", st)
	}
	browser, _ := browserScript(t)
	t.Setenv("BROWSER", browser)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := h.Login(ctx, "p", "")
	if err != nil || !slices.Contains(g.Scopes, "admin") {
		t.Fatalf("step-up sign-in: %+v, %v", g, err)
	}
	a.mu.Lock()
	last := a.asked[len(a.asked)-1]
	a.mu.Unlock()
	if !strings.Contains(last, "admin") {
		t.Errorf("the sign-in asked for %q, want admin", last)
	}
	if env := resumeOn(t, h, env.RunID); env.Status != StatusCompleted {
		t.Fatalf("resume after step-up: %s", env.Line())
	}
}

// Logout revokes both tokens (RFC 7009) and deletes them.
func TestOAuthRevoke(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	revoked, err := SignOut(context.Background(), h.kc, "p", "", nil)
	if err != nil || !revoked {
		t.Fatalf("sign-out: %v, %v", revoked, err)
	}
	a.mu.Lock()
	got := slices.Clone(a.revoked)
	live := len(a.access) + len(a.refresh)
	a.mu.Unlock()
	if !slices.Equal(got, []string{"refresh_token", "access_token"}) || live != 0 {
		t.Errorf("revoked %v, %d tokens still live", got, live)
	}
	if rec, err := loadOAuthRecord(h.kc, "p", ""); err != nil || rec != nil {
		t.Errorf("after sign-out the keychain holds %+v (%v)", rec, err)
	}
}

// An access token that expired without a refresh token needs a sign-in:
// the call awaits the connection instead of going out with it.
func TestOAuthExpiredWithoutRefresh(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	rec, err := loadOAuthRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	rec.RefreshToken, rec.Expiry = "", time.Now().Add(-time.Second)
	if err := saveOAuthRecord(h.kc, "p", "", rec); err != nil {
		t.Fatal(err)
	}
	if st, _ := ReadOAuthState(h.kc, "p", "", nil); st.SignedIn || st.Reason != "the access token expired" {
		t.Fatalf("state of an expired sign-in: %+v", st)
	}
	t.Setenv("BROWSER", "false")
	before := a.count("refresh_token")
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call with an expired token: %s", env.Line())
	}
	if a.count("refresh_token") != before {
		t.Error("a refresh was tried without a refresh token")
	}
}

// An authorization response from another issuer (RFC 9207) is refused, and
// nothing is kept. (One with another state never reaches the flow: the
// loopback listener refuses it, TestOAuthSignInStartPageAndState.)
func TestOAuthSignInRefusesForgedResponse(t *testing.T) {
	a := newTestAS(t)
	browser, _ := browserScript(t)
	t.Setenv("BROWSER", browser)
	kc := oauthTestKeychain(t)
	def := &Source{URL: a.endpoint()}
	for _, tc := range []struct{ iss, state, want string }{
		{iss: "https://evil.example", want: "issuer"},
	} {
		a.mu.Lock()
		a.iss, a.state = tc.iss, tc.state
		a.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := SignIn(ctx, SignInOptions{Source: "p", Def: def, Keychain: kc})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("iss %q state %q: %v, want an error about %s", tc.iss, tc.state, err, tc.want)
		}
		if rec, err := loadOAuthRecord(kc, "p", ""); rec != nil || err != nil {
			t.Errorf("a refused sign-in was kept: %+v, %v", rec, err)
		}
	}
}
