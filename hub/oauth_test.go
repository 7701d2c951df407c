package hub

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/keychain"
)

// freePort returns a loopback port nothing listens on right now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// oauthDemoServer starts the TypeScript SDK's example server with its
// in-memory authorization server and the strict resource check, and
// returns its MCP endpoint.
func oauthDemoServer(t testing.TB) string {
	t.Helper()
	script := filepath.Join(repoRoot(t), "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the TypeScript SDK's example server is not installed: %v", err)
	}
	mcpPort, authPort := freePort(t), freePort(t)
	cmd := exec.Command("node", script, "--oauth", "--oauth-strict")
	cmd.Env = append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	var out logBuffer
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
	waitFor(t, 30*time.Second, "the example server to listen", func() bool {
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

// browserScript writes a $BROWSER for the example server: its
// authorization page redirects at once, so following the redirects lands
// on the hub's loopback redirect. Each URL it opened is appended to a log.
func browserScript(t testing.TB) (browser, opened string) {
	t.Helper()
	dir := t.TempDir()
	opened = filepath.Join(dir, "opened.log")
	browser = filepath.Join(dir, "browser.sh")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + opened + "\nexec curl -sSfL -o /dev/null \"$1\"\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return browser, opened
}

// oauthTestKeychain is the real keychain under a service of the test's
// own, emptied when the test ends.
func oauthTestKeychain(t *testing.T) keychain.Keychain {
	t.Helper()
	requireTestKeychain(t)
	home, err := keychain.ForHome(keychain.System{}, fmt.Sprintf("oauth-%d", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { home.DeleteAll() })
	return home
}

func TestOAuthSignInExampleServer(t *testing.T) {
	endpoint := oauthDemoServer(t)
	browser, opened := browserScript(t)
	t.Setenv("BROWSER", browser)
	kc := oauthTestKeychain(t)
	def := &Source{URL: endpoint, Connections: map[string]*Connection{"work": {Default: true, OAuth: &OAuthConfig{}}}}

	st, err := ReadOAuthState(kc, "demo", "work")
	if err != nil || st.SignedIn {
		t.Fatalf("before sign-in: %+v, %v", st, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := SignIn(ctx, SignInOptions{Source: "demo", Conn: "work", Def: def, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(g.Scopes, "mcp:tools") {
		t.Errorf("granted scopes %v, want mcp:tools", g.Scopes)
	}
	if g.Expiry.IsZero() || g.Issuer == "" {
		t.Errorf("grant %+v: want an expiry and the issuer", g)
	}
	log, _ := os.ReadFile(opened)
	for _, want := range []string{"code_challenge_method=S256", "resource=" + url.QueryEscape(endpoint), "state=", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the authorization URL lacks %q:\n%s", want, log)
		}
	}
	st, err = ReadOAuthState(kc, "demo", "work")
	if err != nil || !st.SignedIn || !slices.Contains(st.Scopes, "mcp:tools") {
		t.Fatalf("after sign-in: %+v, %v", st, err)
	}
	if !strings.HasPrefix(st.Summary(), "signed in until ") {
		t.Errorf("summary %q", st.Summary())
	}

	// The stored token is accepted by the strict server.
	rec, err := loadOAuthRecord(kc, "demo", "work")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: &upstreamHeaders{base: http.DefaultTransport, headers: map[string]string{"Authorization": "Bearer " + rec.AccessToken}}}}, nil)
	if err != nil {
		t.Fatalf("connecting with the stored token: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()

	revoked, err := SignOut(ctx, kc, "demo", "work", nil)
	if err != nil || revoked {
		t.Fatalf("sign-out: revoked %v, %v (the example server offers no revocation)", revoked, err)
	}
	if st, err := ReadOAuthState(kc, "demo", "work"); err != nil || st.SignedIn || st.Reason != "not signed in" {
		t.Fatalf("after sign-out: %+v, %v", st, err)
	}
}

// A record larger than one keychain item is split across items and read
// back whole; shrinking it removes the extra items.
func TestOAuthRecordChunks(t *testing.T) {
	kc := oauthTestKeychain(t)
	big := &oauthRecord{AccessToken: strings.Repeat("a", 5000), RefreshToken: strings.Repeat("r", 3000), ClientID: "c", TokenURL: "http://127.0.0.1/t"}
	if err := saveOAuthRecord(kc, "big", "", big); err != nil {
		t.Fatal(err)
	}
	head, err := kc.Get(oauthTokenKey("big", ""))
	if err != nil || !strings.HasPrefix(head, oauthChunkedPrefix) {
		t.Fatalf("head item %q, %v", head, err)
	}
	for i := 1; ; i++ {
		v, err := kc.Get(fmt.Sprintf("%s.%d", oauthTokenKey("big", ""), i))
		if err != nil {
			if i < 6 {
				t.Fatalf("item %d: %v", i, err)
			}
			break
		}
		if len(v) > 2560 {
			t.Errorf("item %d holds %d bytes, more than Windows' 2,560", i, len(v))
		}
	}
	got, err := loadOAuthRecord(kc, "big", "")
	if err != nil || got.AccessToken != big.AccessToken || got.RefreshToken != big.RefreshToken {
		t.Fatalf("read back: %v", err)
	}
	small := &oauthRecord{AccessToken: "short-token", ClientID: "c"}
	if err := saveOAuthRecord(kc, "big", "", small); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Get(oauthTokenKey("big", "") + ".1"); err == nil {
		t.Error("a shrunk record left its old chunks behind")
	}
	if got, err := loadOAuthRecord(kc, "big", ""); err != nil || got.AccessToken != "short-token" {
		t.Fatalf("read back the small record: %+v, %v", got, err)
	}
	if err := deleteOAuthRecord(kc, "big", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := loadOAuthRecord(kc, "big", ""); err != nil || got != nil {
		t.Fatalf("after delete: %+v, %v", got, err)
	}
}

func TestOAuthConfigErrors(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"clientSecret":"x"}}}}}}`, "sources.s.connections.c.oauth.clientSecret"},
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"scopes":"a b"}}}}}}`, "sources.s.connections.c.oauth.scopes"},
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"clientMetadataUrl":"http://x.example/c"}}}}}}`, "sources.s.connections.c.oauth.clientMetadataUrl"},
		{`{"sources":{"s":{"command":"x","connections":{"c":{"oauth":{}}}}}}`, "only an HTTP source"},
	} {
		_, err := ParseConfig("config.json", []byte(tc.conf))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.conf, err, tc.want)
		}
	}
	cfg, err := ParseConfig("config.json", []byte(`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"default":true,"oauth":{"clientId":"abc","scopes":["read","write"],"redirectPort":8765}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Sources["s"].Connections["c"].OAuth
	if o == nil || o.ClientID != "abc" || len(o.Scopes) != 2 || o.RedirectPort != 8765 || !cfg.Sources["s"].IsOAuth("c") {
		t.Fatalf("parsed %+v", o)
	}
	if err := cfg.Validate("config.json"); err != nil {
		t.Fatalf("a saved oauth object does not parse again: %v", err)
	}
}
