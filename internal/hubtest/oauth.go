package hubtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
)

// FreePort returns a loopback port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// OAuthDemoServer starts the TypeScript SDK's example server with its
// in-memory authorization server and the strict resource check, and
// returns its MCP endpoint.
func OAuthDemoServer(t testing.TB) string {
	t.Helper()
	endpoint, _ := startOAuthDemo(t, "--oauth-strict")
	return endpoint
}

// OAuthDemoAuthServer starts the TypeScript SDK's example server with its
// in-memory authorization server, without the resource check an MCP
// client's sign-in passes (a REST API's does not name the resource), and
// returns the authorization server's base URL: its /authorize, /token,
// /register and /introspect endpoints.
func OAuthDemoAuthServer(t testing.TB) string {
	t.Helper()
	_, auth := startOAuthDemo(t)
	return auth
}

func startOAuthDemo(t testing.TB, extra ...string) (endpoint, auth string) {
	t.Helper()
	script := filepath.Join(RepoRoot(t), "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the TypeScript SDK's example server is not installed: %v", err)
	}
	mcpPort, authPort := FreePort(t), FreePort(t)
	cmd := exec.Command("node", append([]string{script, "--oauth"}, extra...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	var out LogBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("example server output:\n%s", out.String())
		}
	})
	endpoint = fmt.Sprintf("http://localhost:%d/mcp", mcpPort)
	meta := fmt.Sprintf("http://localhost:%d/.well-known/oauth-authorization-server", authPort)
	testwait.For(t, 30*time.Second, "the example server to listen", func() bool {
		for _, u := range []string{endpoint, meta} {
			resp, err := http.Get(u)
			if err != nil {
				return false
			}
			resp.Body.Close()
		}
		return true
	})
	return endpoint, fmt.Sprintf("http://localhost:%d", authPort)
}

// BrowserScript writes a $BROWSER for the example server: its
// authorization page redirects at once, so following the redirects lands
// on the hub's loopback redirect. Its whole command line is appended to a
// log, and the headers of every answer it followed to opened+".headers".
func BrowserScript(t testing.TB) (browser, opened string) {
	t.Helper()
	dir := t.TempDir()
	opened = filepath.Join(dir, "opened.log")
	browser = filepath.Join(dir, "browser.sh")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + opened + "\nexec curl -sSfL -o /dev/null -D " + opened + ".headers \"$1\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return browser, opened
}

// OAuthKeychain is the real keychain under a service of the test's
// own, emptied when the test ends.
func OAuthKeychain(t testing.TB) keychain.Keychain {
	t.Helper()
	RequireKeychain(t)
	home, err := keychain.ForHome(keychain.System{}, fmt.Sprintf("oauth-%d", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { home.DeleteAll() })
	return home
}

// RecordingBrowser writes a $BROWSER that only notes the URL it was asked
// to open, so the test decides when the person "signs in".
func RecordingBrowser(t testing.TB) (browser, opened string) {
	t.Helper()
	dir := t.TempDir()
	opened = filepath.Join(dir, "opened.log")
	browser = filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+opened+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return browser, opened
}

// AuthServer is a small OAuth authorization server and protected MCP
// server in one, for what the TypeScript example server does not do:
// refresh, expiry, revocation and step-up. Its authorization page grants at
// once. Tests read and set its fields under Mu.
type AuthServer struct {
	Srv *httptest.Server

	Mu         sync.Mutex
	ExpiresIn  int                 // seconds, of each access token issued
	Refuse     bool                // refresh grants fail with invalid_grant
	NeedScope  string              // the MCP endpoint asks for this scope (403 insufficient_scope)
	Iss, State string              // when set, the authorization response carries these instead
	Servers    []string            // when set, the resource metadata names these authorization servers
	Access     map[string][]string // live access token -> scopes
	Refresh    map[string][]string // live refresh token -> scopes
	Grants     []string            // grant_type of each token request
	Asked      []string            // scope parameter of each authorization request
	Revoked    []string            // token_type_hint of each revocation
	Clients    map[string]string   // client id -> secret, for client credentials grants
	// NoRegistration drops the registration endpoint from the metadata
	// and refuses registrations, as GitHub's and Google's servers do:
	// only a client registered beforehand signs in.
	NoRegistration bool
	AuthClients    []string // client_id of each authorization request
	Secrets        []string // the client secret of each token request that sent one
	// ForgetClients makes the server forget the clients registered so
	// far, as one that lost its store does: their authorization requests
	// get an error page, with no redirect back.
	ForgetClients bool
	codes         map[string][]string
	registered    int
	clientIDs     []string // the clients registered
}

// NewAuthServer starts an AuthServer, closed when the test ends.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{ExpiresIn: 3600, Access: map[string][]string{}, Refresh: map[string][]string{}, codes: map[string][]string{}}
	mux := http.NewServeMux()
	a.Srv = httptest.NewServer(mux)
	t.Cleanup(a.Srv.Close)
	base := a.Srv.URL
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		a.Mu.Lock()
		servers := a.Servers
		a.Mu.Unlock()
		if servers == nil {
			servers = []string{base}
		}
		writeJSON(w, 200, &oauthex.ProtectedResourceMetadata{Resource: base + "/mcp", AuthorizationServers: servers, ScopesSupported: []string{"read"}})
	})
	asMeta := func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "revocation_endpoint": base + "/revoke",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"authorization_response_iss_parameter_supported": true, "scopes_supported": []string{"read", "admin", "offline_access"},
		}
		a.Mu.Lock()
		if a.NoRegistration {
			delete(meta, "registration_endpoint")
		}
		a.Mu.Unlock()
		writeJSON(w, 200, meta)
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", asMeta)
	// The same as an OpenID Connect discovery document, for an OpenAPI
	// document's openIdConnect scheme.
	mux.HandleFunc("/.well-known/openid-configuration", asMeta)
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		a.Mu.Lock()
		refuse := a.NoRegistration
		a.registered++
		a.Mu.Unlock()
		if refuse {
			writeJSON(w, 404, map[string]string{"error": "not_found"})
			return
		}
		m["client_id"] = "client-" + rand.Text()
		a.Mu.Lock()
		a.clientIDs = append(a.clientIDs, m["client_id"].(string))
		a.Mu.Unlock()
		writeJSON(w, 201, m)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := rand.Text()
		a.Mu.Lock()
		a.Asked = append(a.Asked, q.Get("scope"))
		a.AuthClients = append(a.AuthClients, q.Get("client_id"))
		forgotten := a.ForgetClients && slices.Contains(a.clientIDs, q.Get("client_id"))
		a.codes[code] = strings.Fields(q.Get("scope"))
		a.Mu.Unlock()
		if forgotten {
			http.Error(w, "invalid_client: unknown client", http.StatusBadRequest)
			return
		}
		u, _ := url.Parse(q.Get("redirect_uri"))
		iss, state := base, q.Get("state")
		a.Mu.Lock()
		iss, state = cmp.Or(a.Iss, iss), cmp.Or(a.State, state)
		a.Mu.Unlock()
		u.RawQuery = url.Values{"code": {code}, "state": {state}, "iss": {iss}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.Mu.Lock()
		defer a.Mu.Unlock()
		gt := r.PostForm.Get("grant_type")
		a.Grants = append(a.Grants, gt)
		if _, secret, basic := r.BasicAuth(); basic && secret != "" {
			a.Secrets = append(a.Secrets, secret)
		} else if secret := r.PostForm.Get("client_secret"); secret != "" {
			a.Secrets = append(a.Secrets, secret)
		}
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
			s, ok := a.Refresh[r.PostForm.Get("refresh_token")]
			if !ok || a.Refuse {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the refresh token is no longer valid"})
				return
			}
			delete(a.Refresh, r.PostForm.Get("refresh_token"))
			scopes = s
		case "client_credentials":
			id, secret, basic := r.BasicAuth()
			if !basic {
				id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
			}
			if want, ok := a.Clients[id]; !ok || want != secret || a.Refuse {
				writeJSON(w, 401, map[string]string{"error": "invalid_client", "error_description": "unknown client or wrong secret"})
				return
			}
			at := "at-" + rand.Text()
			a.Access[at] = strings.Fields(r.PostForm.Get("scope"))
			writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": a.ExpiresIn, "scope": r.PostForm.Get("scope")})
			return
		}
		at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
		a.Access[at], a.Refresh[rt] = scopes, scopes
		writeJSON(w, 200, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": a.ExpiresIn, "scope": strings.Join(scopes, " ")})
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.Mu.Lock()
		defer a.Mu.Unlock()
		a.Revoked = append(a.Revoked, r.PostForm.Get("token_type_hint"))
		delete(a.Access, r.PostForm.Get("token"))
		delete(a.Refresh, r.PostForm.Get("token"))
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
		a.Mu.Lock()
		scopes, ok := a.Access[tok]
		need := a.NeedScope
		a.Mu.Unlock()
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

// SentSecrets are the client secrets its token endpoint received, in order.
func (a *AuthServer) SentSecrets() []string {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return slices.Clone(a.Secrets)
}

// Endpoint is the URL of the protected MCP endpoint.
func (a *AuthServer) Endpoint() string { return a.Srv.URL + "/mcp" }

// Drop forgets every access token, as a server does when they expire or
// are revoked on its side.
func (a *AuthServer) Drop() {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	a.Access = map[string][]string{}
}

// Registrations is how many dynamic client registrations came in.
func (a *AuthServer) Registrations() int {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return a.registered
}

// Count is how many token requests of grant type grant came in.
func (a *AuthServer) Count(grant string) int {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	n := 0
	for _, g := range a.Grants {
		if g == grant {
			n++
		}
	}
	return n
}
