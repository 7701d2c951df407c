package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/signin"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
)

// signInBrowser sets $BROWSER to a script that follows the authorization
// pages' redirects, as a person who signs in, and returns the real
// keychain the sign-ins go to and the log of what the browser opened.
func signInBrowser(t *testing.T) (keychain.Keychain, string) {
	t.Helper()
	browser, opened := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	return hubtest.OAuthKeychain(t), opened
}

// codeFlow is an oauth2 scheme with an authorization code flow at authURL
// and tokenURL.
func codeFlow(authURL, tokenURL string) string {
	return `{"type":"oauth2","flows":{"authorizationCode":{"authorizationUrl":"` + authURL + `","tokenUrl":"` + tokenURL + `","scopes":{"read":"read","admin":"admin"}}}}`
}

// signInAPI is a REST API on 127.0.0.1 whose document's one operation
// takes an OAuth token of a's by scheme (codeFlow, say), scope "read";
// GET /me answers 200 to a live token of a's and 401 to anything else.
func signInAPI(t *testing.T, a *hubtest.AuthServer, scheme string) (doc string, api string, log *requestLog) {
	t.Helper()
	var mux http.ServeMux
	mux.HandleFunc("/me", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.Mu.Lock()
		_, live := a.Access[tok]
		a.Mu.Unlock()
		if !live {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"login":"octocat"}`)
	})
	ts, log := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc = filepath.Join(t.TempDir(), "api.json")
	body := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"` + ts.URL + `"}],
		"components":{"securitySchemes":{"oauth":` + scheme + `}},
		"paths":{"/me":{"get":{"operationId":"getMe","security":[{"oauth":["read"]}],
			"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`
	if err := os.WriteFile(doc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return doc, ts.URL, log
}

// A REST API whose document names an authorization code flow signs in
// with it: the client registers dynamically with the authorization server
// the flow's URLs are on, the scopes asked are those the operations name,
// and the call carries the issued token to the API. When the API moves
// (its baseUrl now another origin, 127.0.0.2), the token is not sent
// there: the call waits for a new sign-in.
func TestOpenAPISignIn(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	kc, _ := signInBrowser(t)
	doc, _, apiLog := signInAPI(t, a, codeFlow(a.Srv.URL+"/authorize", a.Srv.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := h.SignIns().Login(ctx, "api", "")
	if err != nil {
		t.Fatalf("signing in with the document's flow: %v", err)
	}
	if g.Issuer != a.Srv.URL || !g.Refreshable {
		t.Errorf("the grant: %+v; want issuer %s, refreshable", g, a.Srv.URL)
	}
	a.Mu.Lock()
	asked := slices.Clone(a.Asked)
	a.Mu.Unlock()
	if !slices.Equal(asked, []string{"read"}) {
		t.Errorf("the sign-in asked for scopes %q, want the operations' [read]", asked)
	}
	rec, err := oauth.LoadRecord(kc, "api", "default")
	if err != nil || rec == nil {
		t.Fatalf("no sign-in kept: %v", err)
	}

	env := execCode(t, h, `return await api.getMe();`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "octocat") {
		t.Fatalf("a call after the sign-in: %s", envJSON(env))
	}
	if got := apiLog.find("/me"); len(got) != 1 || got[0].Header.Get("Authorization") != "Bearer "+rec.AccessToken {
		t.Fatalf("the API got %d calls, the last with Authorization %q; want the sign-in's token", len(got), lastAuth(got))
	}
	if strings.Contains(envJSON(env), rec.AccessToken) {
		t.Errorf("the token reached the envelope: %s", envJSON(env))
	}

	// The API forgets the token: a 401 refreshes it once and the call is
	// sent again; when the refresh fails too, the connection needs a new
	// sign-in.
	a.Drop()
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusCompleted || a.Count("refresh_token") != 1 {
		t.Fatalf("a call after the API dropped the token: %s, %d refreshes", envJSON(env), a.Count("refresh_token"))
	}
	if got := apiLog.find("/me"); len(got) != 3 || lastAuth(got) == "Bearer "+rec.AccessToken {
		t.Fatalf("the API got %d calls, the last with the old token: %v", len(got), lastAuth(got) == "Bearer "+rec.AccessToken)
	}
	a.Mu.Lock()
	a.Refuse = true
	a.Mu.Unlock()
	a.Drop()
	env = execCode(t, h, `try { await api.getMe(); return "sent"; } catch (e) { return e.message; }`)
	if !strings.Contains(envJSON(env), "refreshing it failed") || !strings.Contains(envJSON(env), "connection login api default") {
		t.Fatalf("a call whose refresh fails: %s", envJSON(env))
	}
	if got := signIns(t, h, "api"); len(got) != 1 || got[0].SignedIn {
		t.Fatalf("after a failed refresh the status says %+v", got)
	}
	a.Mu.Lock()
	a.Refuse = false
	a.Mu.Unlock()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatal(err)
	}
	if rec, err = oauth.LoadRecord(kc, "api", "default"); err != nil || rec == nil {
		t.Fatalf("no sign-in kept: %v", err)
	}
	// The second sign-in signed in as the client the first registered.
	a.Mu.Lock()
	clients := slices.Clone(a.AuthClients)
	a.Mu.Unlock()
	if n := a.Registrations(); n != 1 || len(clients) != 2 || clients[0] != clients[1] || clients[0] != rec.ClientID {
		t.Errorf("two sign-ins made %d registrations and signed in as %q (kept: %q)", n, clients, rec.ClientID)
	}

	// The API moves to another origin: its token stays home.
	other, otherLog := startLoggingServer(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"login":"mallory"}`)
	}))
	cfg, err := config.Load(h.paths.Config())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sources["api"].BaseURL = other.URL
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	env = execCode(t, h, `return await api.getMe();`)
	if env.Status == StatusAwaitingApproval {
		// The operation's server changed: the person accepts it first.
		if _, err := h.ApproveRun(ctx, env.RunID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
			t.Fatal(err)
		}
		env = resumeCode(t, h, env.RunID)
	}
	if env.Status == StatusCompleted {
		t.Fatalf("a call to the moved API ran on the old sign-in: %s", envJSON(env))
	}
	if !strings.Contains(envJSON(env), "connection login api default") {
		t.Errorf("the model is not told the connection needs a sign-in: %s", envJSON(env))
	}
	for _, r := range otherLog.all() {
		if strings.Contains(r.String(), rec.AccessToken) {
			t.Fatalf("the token went to %s: %s", other.URL, r.String())
		}
	}
	if got := signIns(t, h, "api"); len(got) != 1 || got[0].SignedIn || !strings.Contains(got[0].Summary, "its sign-in was made for http://127.0.0.1:") {
		t.Errorf("the status of a sign-in made for the API before it moved: %+v", got)
	}
}

// A server that forgot the client an earlier sign-in registered shows the
// person an error page and never redirects back: that sign-in ends with
// nothing, and the next one registers a new client instead of trying the
// forgotten one again.
func TestOpenAPISignInRegistersAnewAfterAFailedReuse(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	kc, _ := signInBrowser(t)
	doc, _, _ := signInAPI(t, a, codeFlow(a.Srv.URL+"/authorize", a.Srv.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatal(err)
	}
	authClients := func() []string {
		a.Mu.Lock()
		defer a.Mu.Unlock()
		return slices.Clone(a.AuthClients)
	}

	a.Mu.Lock()
	a.ForgetClients = true
	a.Mu.Unlock()
	stuck, give := context.WithCancel(ctx)
	failed := make(chan error, 1)
	go func() {
		_, err := h.SignIns().Login(stuck, "api", "")
		failed <- err
	}()
	testwait.For(t, 0, "the sign-in with the forgotten client to reach the server", func() bool { return len(authClients()) == 2 })
	give() // the person gives up on the error page
	if err := <-failed; err == nil {
		t.Fatal("a sign-in the server never answered succeeded")
	}
	a.Mu.Lock()
	a.ForgetClients = false
	a.Mu.Unlock()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatalf("the sign-in after the failed one: %v", err)
	}
	got := authClients()
	if a.Registrations() != 2 || len(got) != 3 || got[1] != got[0] || got[2] == got[0] {
		t.Fatalf("%d registrations; the sign-ins signed in as %q, want the first client, again, then a new one", a.Registrations(), got)
	}
}

func lastAuth(reqs []loggedRequest) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[len(reqs)-1].Header.Get("Authorization")
}

// A document whose token URL is not the one its authorization server
// publishes (a hostile document sending the code elsewhere) gets no
// sign-in: nothing reaches either token endpoint.
func TestOpenAPISignInRefusesAnotherTokenURL(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	kc, opened := signInBrowser(t)
	thief, thiefLog := startLoggingServer(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "stolen", "token_type": "Bearer"})
	}))
	doc, _, _ := signInAPI(t, a, codeFlow(a.Srv.URL+"/authorize", thief.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.SignIns().Login(ctx, "api", "")
	if err == nil || !strings.Contains(err.Error(), "names authorization URL") || !strings.Contains(err.Error(), thief.URL+"/token") {
		t.Fatalf("a document naming another token URL than its authorization server: %v", err)
	}
	if n := len(thiefLog.all()); n != 0 || a.Count("authorization_code") != 0 {
		t.Errorf("token requests: %d to the document's URL, %d to the authorization server's; want none", n, a.Count("authorization_code"))
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("the browser was opened: %s", b)
	}
	if rec, _ := oauth.LoadRecord(kc, "api", "default"); rec != nil {
		t.Errorf("a sign-in was kept: %+v", rec)
	}
}

// The sign-in with a real authorization server, the TypeScript SDK's
// example one: the hub registers dynamically, signs in through the
// browser (a script following the redirects) and calls the API, which
// asks the authorization server whether the token it got is live.
func TestOpenAPISignInWithTheExampleServer(t *testing.T) {
	auth := hubtest.OAuthDemoAuthServer(t)
	kc, _ := signInBrowser(t)
	var mux http.ServeMux
	mux.HandleFunc("/me", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		resp, err := http.PostForm(auth+"/introspect", url.Values{"token": {tok}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var info struct {
			Active bool   `json:"active"`
			Scope  string `json:"scope"`
		}
		if json.NewDecoder(resp.Body).Decode(&info) != nil || !info.Active {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"scope": info.Scope})
	})
	api, apiLog := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"`+api.URL+`"}],
		"components":{"securitySchemes":{"oauth":{"type":"oauth2","flows":{
			"authorizationCode":{"authorizationUrl":"`+auth+`/authorize","tokenUrl":"`+auth+`/token","scopes":{"mcp:tools":"tools"}}}}}},
		"paths":{"/me":{"get":{"operationId":"getMe","security":[{"oauth":["mcp:tools"]}],
			"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatalf("signing in at the example server: %v", err)
	}
	env := execCode(t, h, `return await api.getMe();`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "mcp:tools") {
		t.Fatalf("a call with the example server's token: %s", envJSON(env))
	}
	if n := len(apiLog.find("/me")); n != 1 {
		t.Errorf("the API got %d calls, want 1", n)
	}
}

// signIns is source's sign-in states in the hub's status.
func signIns(t *testing.T, h *Hub, source string) []signin.Status {
	t.Helper()
	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Sources {
		if s.Name == source {
			return s.SignIns
		}
	}
	t.Fatalf("no source %s in the status", source)
	return nil
}

// A REST API with no connection yet, whose operations wait for its
// document's OAuth flow, is offered a sign-in of its first connection
// (the window's Sign in); signing in adds that connection, marked OAuth,
// and the status then says it is signed in.
func TestOpenAPISignInAddsItsConnection(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	kc, _ := signInBrowser(t)
	doc, _, apiLog := signInAPI(t, a, codeFlow(a.Srv.URL+"/authorize", a.Srv.URL+"/token"))
	h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: doc}, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})

	if got := signIns(t, h, "api"); len(got) != 1 || got[0].Connection != "default" || got[0].SignedIn || !got[0].Offered {
		t.Fatalf("the sign-ins offered before one: %+v; want the first connection's, not signed in", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A run that calls it waits for a token, which a sign-in gives too.
	env := execCode(t, h, `return await api.getMe();`)
	if env.Status != StatusAwaitingConnection {
		t.Fatalf("a call before the sign-in: %s", envJSON(env))
	}
	pend, err := h.Pending(ctx, env.RunID)
	if err != nil || len(pend) != 1 || pend[0].SignIn || !pend[0].OffersSignIn || pend[0].SecretWhere != "header Authorization" {
		t.Fatalf("the pending input: %+v, %v; want a token in header Authorization, or a sign-in", pend, err)
	}
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatal(err)
	}
	c := h.Config().Sources["api"].Connections["default"]
	if c == nil || c.OAuth == nil || h.Config().Sources["api"].DefaultConnection() != "default" {
		t.Fatalf("the sign-in did not add its connection: %+v", h.Config().Sources["api"])
	}
	if got := signIns(t, h, "api"); len(got) != 1 || !got[0].SignedIn {
		t.Fatalf("the sign-ins after one: %+v", got)
	}
	if env := resumeCode(t, h, env.RunID); env.Status != StatusCompleted || len(apiLog.find("/me")) != 1 {
		t.Fatalf("the run resumed after the sign-in: %s", envJSON(env))
	}

	// Signing out revokes the tokens at the authorization server and
	// deletes them; the next call waits for a sign-in again.
	revoked, err := h.SignIns().Logout(ctx, "api", "")
	if err != nil || !revoked {
		t.Fatalf("Logout: revoked %v, %v", revoked, err)
	}
	a.Mu.Lock()
	nRevoked, live := len(a.Revoked), len(a.Access)
	a.Mu.Unlock()
	if nRevoked != 2 || live != 0 {
		t.Errorf("the authorization server revoked %d tokens and keeps %d access tokens live; want both revoked", nRevoked, live)
	}
	if got := signIns(t, h, "api"); len(got) != 1 || got[0].SignedIn {
		t.Errorf("the sign-ins after the sign-out: %+v", got)
	}
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusAwaitingConnection || len(apiLog.find("/me")) != 1 {
		t.Errorf("a call after the sign-out: %s", envJSON(env))
	}
}

// A document whose token URL is on another origin than its authorization
// URL, where no authorization server metadata vouches for it, gets no
// sign-in: the person would sign in on one site and the code would go to
// another.
func TestOpenAPISignInRefusesATokenURLElsewhere(t *testing.T) {
	kc, opened := signInBrowser(t)
	var authMux http.ServeMux
	authMux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "not here", http.StatusTeapot) })
	as, asLog := startLoggingServer(t, "127.0.0.1:0", &authMux)
	thief, thiefLog := startLoggingServer(t, "127.0.0.2:0", http.NotFoundHandler())
	doc, _, _ := signInAPI(t, hubtest.NewAuthServer(t), codeFlow(as.URL+"/authorize", thief.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{ClientID: "preregistered"}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.SignIns().Login(ctx, "api", "")
	if err == nil || !strings.Contains(err.Error(), "on another origin than its authorization URL") {
		t.Fatalf("a token URL on another origin: %v", err)
	}
	if n := len(thiefLog.all()); n != 0 {
		t.Errorf("the token URL's server got %d requests", n)
	}
	for _, r := range asLog.all() {
		if strings.HasPrefix(r.URI, "/authorize") {
			t.Errorf("the authorization page was opened: %s", r.URI)
		}
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("the browser was opened: %s", b)
	}
}

// An openIdConnect scheme signs in with the flow its discovery document
// names; an answer that names another issuer than the authorization
// server (a mix-up, RFC 9207) is not taken.
func TestOpenAPISignInWithOpenIDConnect(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	kc, _ := signInBrowser(t)
	doc, _, apiLog := signInAPI(t, a, `{"type":"openIdConnect","openIdConnectUrl":"`+a.Srv.URL+`/.well-known/openid-configuration"}`)
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	a.Mu.Lock()
	a.Iss = "https://elsewhere.example.test"
	a.Mu.Unlock()
	if _, err := h.SignIns().Login(ctx, "api", ""); err == nil || !strings.Contains(err.Error(), `came from issuer "https://elsewhere.example.test"`) {
		t.Fatalf("an answer from another issuer: %v", err)
	}
	if n := a.Count("authorization_code"); n != 0 {
		t.Fatalf("its code was exchanged (%d token requests)", n)
	}
	a.Mu.Lock()
	a.Iss = ""
	a.Mu.Unlock()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatalf("signing in with the discovery document's flow: %v", err)
	}
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusCompleted || len(apiLog.find("/me")) != 1 {
		t.Fatalf("a call after the sign-in: %s", envJSON(env))
	}
}

// A connection that signs in but is not signed in (its sign-in failed, or
// never ran) holds back only the operations that take its token: a
// public operation runs, one that takes the token waits for the sign-in.
func TestOpenAPIPublicOperationDoesNotWaitForASignIn(t *testing.T) {
	var mux http.ServeMux
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	api, apiLog := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"`+api.URL+`"}],
		"components":{"securitySchemes":{"oauth":`+codeFlow("https://auth.example.test/authorize", "https://auth.example.test/token")+`}},
		"security":[{"oauth":["read"]}],
		"paths":{"/health":{"get":{"operationId":"health","security":[],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},
			"/me":{"get":{"operationId":"getMe","responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := &svcMemKeychain{m: map[string]string{}}
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})
	t.Setenv("BROWSER", "false") // the hub's own offer to sign in goes nowhere

	if env := execCode(t, h, `return await api.health();`); env.Status != StatusCompleted || len(apiLog.find("/health")) != 1 {
		t.Fatalf("a public operation of a connection not signed in: %s", envJSON(env))
	}
	env := execCode(t, h, `return await api.getMe();`)
	if env.Status != StatusAwaitingConnection || len(apiLog.find("/me")) != 0 || !strings.Contains(envJSON(env), "needs a sign-in") {
		t.Fatalf("an operation that takes the token: %s", envJSON(env))
	}
}

// An authorization server that cannot be reached is named as such, not
// as one that takes no registration.
func TestOpenAPISignInNamesAnUnreachableServer(t *testing.T) {
	kc, opened := signInBrowser(t)
	gone := fmt.Sprintf("http://127.0.0.1:%d", hubtest.FreePort(t))
	doc, _, _ := signInAPI(t, hubtest.NewAuthServer(t), codeFlow(gone+"/authorize", gone+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.SignIns().Login(ctx, "api", ""); err == nil || !strings.Contains(err.Error(), "reading the metadata of the authorization server of api (scheme oauth) at "+gone+", to register with it") {
		t.Fatalf("an authorization server that is down: %v", err)
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("the browser was opened: %s", b)
	}
}

// A token endpoint that refuses the code is quoted by its OAuth error and
// description only, not by whatever else its answer holds.
func TestOpenAPISignInQuotesARefusalByItsError(t *testing.T) {
	kc, _ := signInBrowser(t)
	var mux http.ServeMux
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		u.RawQuery = url.Values{"code": {"c1"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"invalid_grant","error_description":"the code is spent","debug":"echo of the request: code_verifier=..."}`)
	})
	as, asLog := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc, _, _ := signInAPI(t, hubtest.NewAuthServer(t), codeFlow(as.URL+"/authorize", as.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{ClientID: "preregistered"}}}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.SignIns().Login(ctx, "api", "")
	if err == nil || !strings.HasSuffix(err.Error(), "exchanging the sign-in's code at "+as.URL+"/token: invalid_grant (the code is spent)") {
		t.Fatalf("a refused code: %v", err)
	}
	tokenReqs := asLog.find("/token")
	if len(tokenReqs) != 1 || !strings.Contains(tokenReqs[0].Body, "code_verifier=") || !strings.Contains(tokenReqs[0].Body, "client_id=preregistered") {
		t.Errorf("the token request: %+v; want the code with its PKCE verifier, by the preregistered client", tokenReqs)
	}
}

// A REST API whose document names a client credentials flow gets its
// tokens from the connection's client, with no person: Login takes the
// client's id from the config and its secret from the keychain, and a
// token that expired or that the API refuses is renewed the same way.
// Without the client's secret nothing is sent.
func TestOpenAPIClientCredentials(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	a.Clients = map[string]string{"svc": "s3cret-" + strings.Repeat("7", 20)}
	kc, opened := signInBrowser(t)
	doc, _, apiLog := signInAPI(t, a, `{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"`+a.Srv.URL+`/token","scopes":{"read":"read"}}}}`)
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{ClientID: "svc"}}}}
	h := newOpenAPIHub(t, "api", src, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if _, err := h.SignIns().Login(ctx, "api", ""); err == nil || !strings.Contains(err.Error(), "--client-id ID --client-secret-stdin") || a.Count("client_credentials") != 0 ||
		!errors.Is(err, oauth.ErrNeedsClientCredentials) || errors.Is(err, oauth.ErrNeedsClient) {
		t.Fatalf("a client without its secret: %v (%d token requests)", err, a.Count("client_credentials"))
	}
	// The window's client form gives the id and secret, and no port.
	if err := h.SignIns().SetClient(ctx, "api", "default", "svc", a.Clients["svc"], 0); err != nil {
		t.Fatal(err)
	}
	g, err := h.SignIns().Login(ctx, "api", "")
	if err != nil || !g.Refreshable || !slices.Equal(g.Scopes, []string{"read"}) {
		t.Fatalf("Login with the client: %+v, %v", g, err)
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("a browser was opened for a client's token: %s", b)
	}
	if got := signIns(t, h, "api"); len(got) != 1 || !got[0].SignedIn || !strings.Contains(got[0].Summary, "refreshed as needed") {
		t.Errorf("the status: %+v", got)
	}
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusCompleted || len(apiLog.find("/me")) != 1 {
		t.Fatalf("a call with the client's token: %s", envJSON(env))
	}

	// Expired: a new token before the call. Refused: a new one, once.
	rec, err := oauth.LoadRecord(kc, "api", "default")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	rec.Expiry, rec.Issued = time.Now().Add(-time.Second), time.Now().Add(-time.Hour)
	if err := oauth.SaveRecord(kc, "api", "default", rec); err != nil {
		t.Fatal(err)
	}
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusCompleted || a.Count("client_credentials") != 2 {
		t.Fatalf("a call after the token expired: %s, %d token requests", envJSON(env), a.Count("client_credentials"))
	}
	a.Drop()
	if env := execCode(t, h, `return await api.getMe();`); env.Status != StatusCompleted || a.Count("client_credentials") != 3 {
		t.Fatalf("a call after the API forgot the token: %s, %d token requests", envJSON(env), a.Count("client_credentials"))
	}
	for _, r := range apiLog.all() {
		if strings.Contains(r.String(), a.Clients["svc"]) {
			t.Errorf("the client's secret went to the API: %s", r.String())
		}
	}
}

// expiredSignIn is a hub whose REST API "api" (signInAPI, getMe allowed)
// signed in at a's, with the access token since expired.
func expiredSignIn(t *testing.T) (*hubtest.AuthServer, *Hub, *requestLog) {
	t.Helper()
	a := hubtest.NewAuthServer(t)
	kc, _ := signInBrowser(t)
	doc, _, apiLog := signInAPI(t, a, codeFlow(a.Srv.URL+"/authorize", a.Srv.URL+"/token"))
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {OAuth: &config.OAuthConfig{}}}}
	h := newOpenAPIHub(t, "api", src, map[string]config.Mode{"api.getMe": config.Allow}, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatal(err)
	}
	rec, err := oauth.LoadRecord(kc, "api", "default")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	rec.Expiry, rec.Issued = time.Now().Add(-time.Second), time.Now().Add(-time.Hour)
	if err := oauth.SaveRecord(kc, "api", "default", rec); err != nil {
		t.Fatal(err)
	}
	return a, h, apiLog
}

// Calls made together that find the sign-in's token expired, or refused
// by the API, renew it once: the authorization server replaces a refresh
// token on use, so a second refresh with the old one would fail and
// leave the connection needing a sign-in.
func TestOpenAPISignInRenewsOnceForCallsTogether(t *testing.T) {
	a, h, apiLog := expiredSignIn(t)
	const together = `return await Promise.all([api.getMe(), api.getMe(), api.getMe(), api.getMe()]);`
	if env := execCode(t, h, together); env.Status != StatusCompleted || a.Count("refresh_token") != 1 {
		t.Fatalf("four calls with an expired token: %s, %d refreshes, want 1", envJSON(env), a.Count("refresh_token"))
	}
	a.Drop()
	if env := execCode(t, h, together); env.Status != StatusCompleted || a.Count("refresh_token") != 2 {
		t.Fatalf("four calls with a refused token: %s, %d refreshes, want 2", envJSON(env), a.Count("refresh_token"))
	}
	if n := len(apiLog.find("/me")); n < 8 {
		t.Errorf("the API got %d calls, want at least 8", n)
	}
	if got := signIns(t, h, "api"); len(got) != 1 || !got[0].SignedIn {
		t.Errorf("the sign-in after the calls: %+v", got)
	}
}

// An authorization server that takes no registration (no metadata, as
// many real ones) needs a client registered beforehand: the sign-in says
// so (oauth.ErrNeedsClient), SetOAuthClient (the window's client form)
// keeps the client's id and redirect port, and the sign-in then goes
// through as that client, on that port.
func TestOpenAPISignInWithAPreregisteredClient(t *testing.T) {
	kc, _ := signInBrowser(t)
	var mux http.ServeMux
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		u.RawQuery = url.Values{"code": {"c-" + r.URL.Query().Get("client_id")}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		id, secret, _ := r.BasicAuth()
		if r.PostForm.Get("code") != "c-"+id || id != "pre-1" || secret != "shh-"+strings.Repeat("4", 20) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_client"}`)
			return
		}
		fmt.Fprint(w, `{"access_token":"at-pre","token_type":"Bearer","expires_in":3600}`)
	})
	as, asLog := startLoggingServer(t, "127.0.0.1:0", &mux)
	doc, _, _ := signInAPI(t, hubtest.NewAuthServer(t), codeFlow(as.URL+"/authorize", as.URL+"/token"))
	h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: doc}, nil, Options{Keychain: kc})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if _, err := h.SignIns().Login(ctx, "api", ""); !errors.Is(err, oauth.ErrNeedsClient) {
		t.Fatalf("a sign-in at a server that takes no registration: %v", err)
	}
	port := hubtest.FreePort(t)
	if err := h.SignIns().SetClient(ctx, "api", "", " pre-1 ", "shh-"+strings.Repeat("4", 20), port); err != nil {
		t.Fatal(err)
	}
	c := h.Config().Sources["api"].Connections["default"]
	if c == nil || c.OAuth == nil || c.OAuth.ClientID != "pre-1" || c.OAuth.RedirectPort != port {
		t.Fatalf("the connection after SetOAuthClient: %+v", c)
	}
	if b, err := os.ReadFile(h.paths.Config()); err != nil || strings.Contains(string(b), "shh-") {
		t.Fatalf("the client's secret is in config.json (%v)", err)
	}
	if _, err := h.SignIns().Login(ctx, "api", ""); err != nil {
		t.Fatalf("a sign-in as the preregistered client: %v", err)
	}
	auth := asLog.find("/authorize")
	if len(auth) != 1 || !strings.Contains(auth[0].URI, url.QueryEscape(fmt.Sprintf("http://127.0.0.1:%d/callback", port))) {
		t.Errorf("the authorization request: %+v; want the redirect on port %d", auth, port)
	}
	if rec, err := oauth.LoadRecord(kc, "api", "default"); err != nil || rec == nil || rec.AccessToken != "at-pre" {
		t.Errorf("the sign-in kept: %+v, %v", rec, err)
	}
	if err := h.SignIns().SetClient(ctx, "api", "", "  ", "", 0); err == nil {
		t.Errorf("an empty client id was taken")
	}
}

// A token that expired while its authorization server cannot be reached
// fails the call as unavailable, to be tried again: the sign-in is kept
// (a laptop that wakes up offline does not lose it), and no run waits
// for a sign-in the person already made.
func TestOpenAPISignInKeptWhenItsServerIsDown(t *testing.T) {
	a, h, _ := expiredSignIn(t)
	a.Srv.Close()
	env := execCode(t, h, `return await api.getMe();`)
	if env.Status != StatusFailed || !strings.Contains(envJSON(env), "the sign-in is kept") {
		t.Fatalf("a call whose token could not be refreshed: %s", envJSON(env))
	}
	if got := signIns(t, h, "api"); len(got) != 1 || !got[0].SignedIn {
		t.Errorf("the sign-in after its server was down: %+v", got)
	}
}
