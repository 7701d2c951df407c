package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
)

// oauthExampleServer starts the TypeScript SDK's example server with
// --oauth --oauth-strict on free loopback ports; it returns the MCP URL.
func oauthExampleServer(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the TypeScript SDK's example server is not installed: %v", err)
	}
	port := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	mcpPort, authPort := port(), port()
	cmd := exec.Command("node", script, "--oauth", "--oauth-strict")
	cmd.Env = append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	var out syncBuffer
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
	endpoint := fmt.Sprintf("http://localhost:%d/mcp", mcpPort)
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
	return endpoint
}

// connection login signs in through $BROWSER (a script that follows the
// example server's redirects to the loopback redirect), connection list
// shows the sign-in, no token lands in the home, and logout deletes it.
func TestConnectionLoginLogout(t *testing.T) {
	requireKeychain(t)
	endpoint := oauthExampleServer(t)
	dir := t.TempDir()
	browser := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nexec curl -sSfL -o /dev/null \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	if r := cli(t, home, "", "source", "add", "demo", "--url", endpoint); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := cli(t, home, "", "connection", "login", "demo", "work"); r.code != 0 ||
		!strings.Contains(r.stdout, "Signed in demo (connection work)") || !strings.Contains(r.stdout, "Granted scopes: mcp:tools") {
		t.Fatalf("login: %+v", r)
	}
	r := cli(t, home, "", "connection", "list", "demo")
	if r.code != 0 || !strings.Contains(r.stdout, "signed in until ") || !strings.Contains(r.stdout, "scopes mcp:tools") ||
		!regexp.MustCompile(`issued by http://localhost:[0-9]+/`).MatchString(r.stdout) {
		t.Fatalf("list after login does not show the sign-in and its issuer: %+v", r)
	}
	tok, err := kc.Get("oauth/demo/work/token")
	if err != nil || tok == "" {
		t.Fatalf("no sign-in in the keychain: %v", err)
	}
	assertNoSecretUnder(t, home, tok)
	if r := cli(t, home, "", "connection", "logout", "demo", "work"); r.code != 0 || !strings.Contains(r.stdout, "Signed out of demo") {
		t.Fatalf("logout: %+v", r)
	}
	if r := cli(t, home, "", "connection", "list", "demo"); !strings.Contains(r.stdout, "needs sign-in") {
		t.Fatalf("list after logout: %+v", r)
	}
	if r := cli(t, home, "", "connection", "login", "nosuch"); r.code == 0 {
		t.Fatalf("login to an unknown source: %+v", r)
	}

	// source remove takes the source's sign-ins out of the keychain, and
	// connection remove the connection's: a source or connection added
	// again under the name starts signed out.
	if r := cli(t, home, "", "connection", "login", "demo", "work"); r.code != 0 {
		t.Fatalf("login again: %+v", r)
	}
	if r := cli(t, home, "", "source", "remove", "demo"); r.code != 0 {
		t.Fatalf("source remove: %+v", r)
	}
	if _, err := kc.Get("oauth/demo/work/token"); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("after source remove the sign-in is still in the keychain: %v", err)
	}
	if r := cli(t, home, "", "source", "add", "demo", "--url", endpoint); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := cli(t, home, "", "connection", "login", "demo", "work"); r.code != 0 {
		t.Fatalf("login after adding the source again: %+v", r)
	}
	if r := cli(t, home, "", "connection", "remove", "demo", "work"); r.code != 0 {
		t.Fatalf("connection remove: %+v", r)
	}
	if _, err := kc.Get("oauth/demo/work/token"); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("after connection remove the sign-in is still in the keychain: %v", err)
	}
}

// A REST API whose document names an authorization code flow at a real
// authorization server (the TypeScript SDK's example one): source add
// says it signs in, connection login registers, signs in through
// $BROWSER and keeps the sign-in, connection list shows it, and no token
// lands in the home.
func TestConnectionLoginToARESTAPI(t *testing.T) {
	requireKeychain(t)
	auth := hubtest.OAuthDemoAuthServer(t)
	browser, _ := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.test"}],
		"components":{"securitySchemes":{"oauth":{"type":"oauth2","flows":{
			"authorizationCode":{"authorizationUrl":"`+auth+`/authorize","tokenUrl":"`+auth+`/token","scopes":{"mcp:tools":"tools"}}}}}},
		"paths":{"/me":{"get":{"operationId":"getMe","security":[{"oauth":["mcp:tools"]}],"responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, home, "", "source", "add", "api", "--openapi", doc); r.code != 0 ||
		!strings.Contains(r.stdout, "It signs in with OAuth; sign in with: capabilities connection login api") {
		t.Fatalf("source add: %+v", r)
	}
	r := cli(t, home, "", "connection", "login", "api")
	if r.code != 0 || !strings.Contains(r.stdout, "Added connection default of api.") ||
		!strings.Contains(r.stdout, "Opening the sign-in page of api in the browser (at "+auth+"; the token goes to https://api.example.test only)") ||
		!strings.Contains(r.stdout, "Signed in api (connection default) at "+auth+"/.") || !strings.Contains(r.stdout, "Granted scopes: mcp:tools") {
		t.Fatalf("login: %+v", r)
	}
	if r := cli(t, home, "", "connection", "list", "api"); r.code != 0 || !strings.Contains(r.stdout, "signed in") {
		t.Fatalf("list after login: %+v", r)
	}
	movedSignIn(t, home, doc)
	tok, err := kc.Get("oauth/api/default/token")
	if err != nil || tok == "" {
		t.Fatalf("no sign-in in the keychain: %v", err)
	}
	assertNoSecretUnder(t, home, tok)
	if r := cli(t, home, "", "connection", "logout", "api"); r.code != 0 || !strings.Contains(r.stdout, "Signed out of api") {
		t.Fatalf("logout: %+v", r)
	}
}

// A REST API whose document names a client credentials flow: connection
// login without the client's id and secret says how to give them and
// changes nothing; with them it gets a token, no browser, and the secret
// stays out of the home.
func TestConnectionLoginWithAClient(t *testing.T) {
	requireKeychain(t)
	a := hubtest.NewAuthServer(t)
	secret := "s3cret-" + strings.Repeat("5", 24)
	a.Clients = map[string]string{"svc": secret}
	browser, opened := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	home := t.TempDir()
	homeKeychain(t, home) // emptied when the test ends
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.test"}],
		"components":{"securitySchemes":{"svc":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"`+a.Srv.URL+`/token","scopes":{"read":"read"}}}}}},
		"paths":{"/me":{"get":{"operationId":"getMe","security":[{"svc":["read"]}],"responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, home, "", "source", "add", "api", "--openapi", doc); r.code != 0 {
		t.Fatalf("source add: %+v", r)
	}
	before, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if r := cli(t, home, "", "connection", "login", "api"); r.code == 0 ||
		!strings.Contains(r.stderr, "the API of api takes a token its client gets on its own (scheme svc, client credentials)") ||
		!strings.Contains(r.stderr, "capabilities connection login api default --client-id ID --client-secret-stdin") {
		t.Fatalf("login without the client: %+v", r)
	}
	if after, _ := os.ReadFile(filepath.Join(home, "config.json")); string(after) != string(before) {
		t.Errorf("a refused login changed the config:\n%s", after)
	}
	r := cli(t, home, secret+"\n", "connection", "login", "api", "--client-id", "svc", "--client-secret-stdin")
	if r.code != 0 || !strings.Contains(r.stdout, "Getting an access token of api at "+a.Srv.URL+"/token (the token goes to https://api.example.test only)") ||
		!strings.Contains(r.stdout, "Granted scopes: read") || !strings.Contains(r.stdout, "refreshed as needed") {
		t.Fatalf("login with the client: %+v", r)
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("a browser was opened: %s", b)
	}
	if a.Count("client_credentials") != 1 {
		t.Errorf("%d token requests, want 1", a.Count("client_credentials"))
	}
	assertNoSecretUnder(t, home, secret)
	if r := cli(t, home, "", "connection", "list", "api"); !strings.Contains(r.stdout, "signed in (refreshed as needed), scopes read") {
		t.Errorf("connection list: %+v", r)
	}
}

// movedSignIn: once a REST API signed in for https://api.example.test
// moves, connection list says it needs a sign-in: moved by its baseUrl,
// which the CLI reads, and moved by its document's server, which only a
// running hub has read.
func movedSignIn(t *testing.T, home, doc string) {
	t.Helper()
	path := filepath.Join(home, "config.json")
	edit := func(base string) {
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Sources["api"].BaseURL = base
		if err := cfg.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	edit("https://moved.example.test/v2")
	if r := cli(t, home, "", "connection", "list", "api"); !strings.Contains(r.stdout, "needs sign-in: the sign-in was made for https://api.example.test, and the API is now at https://moved.example.test") {
		t.Errorf("list with the API moved by its baseUrl: %+v", r)
	}
	edit("")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, bytes.Replace(b, []byte("https://api.example.test"), []byte("https://elsewhere.example.test"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, home, "", "connection", "list", "api"); !strings.Contains(r.stdout, "signed in") || strings.Contains(r.stdout, "needs sign-in") {
		t.Errorf("list without a hub, which cannot read the document's server: %+v", r)
	}
	stop := serveHub(t, home)
	defer stop()
	if r := cli(t, home, "", "connection", "list", "api"); !strings.Contains(r.stdout, "needs sign-in: its sign-in was made for https://api.example.test, and the API is now at https://elsewhere.example.test") {
		t.Errorf("list with a running hub that read the moved document: %+v", r)
	}
}

// An MCP server whose authorization server takes no registration, added
// without connections: connection login says how to give a client, and
// with --client-id it keeps the client in a new default connection and
// signs in as it.
func TestConnectionLoginWithAPreregisteredClient(t *testing.T) {
	requireKeychain(t)
	a := hubtest.NewAuthServer(t)
	a.NoRegistration = true
	browser, _ := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	home := t.TempDir()
	homeKeychain(t, home)
	if r := cli(t, home, "", "source", "add", "p", "--url", a.Endpoint()); r.code != 0 {
		t.Fatalf("source add: %+v", r)
	}
	// The server asks a running hub for a sign-in, which the keychain
	// does not know.
	stop := serveHub(t, home)
	if r := cli(t, home, "", "connection", "list", "p"); !strings.Contains(r.stdout, "needs sign-in") {
		t.Errorf("connection list with a running hub its server asked for a sign-in: %+v", r)
	}
	stop()
	if r := cli(t, home, "", "connection", "login", "p"); r.code == 0 || !strings.Contains(r.stderr, "capabilities connection login p default --client-id ID --redirect-port PORT") {
		t.Fatalf("login without a client: %+v", r)
	}
	port := fmt.Sprint(hubtest.FreePort(t))
	r := cli(t, home, "", "connection", "login", "p", "--client-id", "pre-1", "--redirect-port", port)
	if r.code != 0 || !strings.Contains(r.stdout, "Added connection default of p.") {
		t.Fatalf("login with a client: %+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.Sources["p"].Connections["default"]; c == nil || c.OAuth == nil || c.OAuth.ClientID != "pre-1" || fmt.Sprint(c.OAuth.RedirectPort) != port {
		t.Fatalf("the connection kept: %+v", c)
	}
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if !slices.Equal(a.AuthClients, []string{"pre-1"}) {
		t.Errorf("authorization requests by %q, want one by pre-1", a.AuthClients)
	}
}

// serveHub runs a hub on home's local API, in this process, with its
// sources listed; stop ends it.
func serveHub(t *testing.T, home string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h, err := hub.New(ctx, hub.Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := localapi.Listen(localapi.ServiceOptions{Paths: h.Paths(), Handler: localapi.NewHandler(h, localapi.APIOptions{})})
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- svc.Serve(ctx) }()
	h.Refresh(ctx)
	return func() {
		svc.Close()
		<-served
		cancel()
		h.Close()
	}
}
