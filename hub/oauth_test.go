package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// on the hub's loopback redirect. Its whole command line is appended to a
// log, and the headers of every answer it followed to opened+".headers".
func browserScript(t testing.TB) (browser, opened string) {
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

	st, err := ReadOAuthState(kc, "demo", "work", nil)
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
	// The browser's command line holds a one-time local page, and that
	// page redirected to the authorization URL.
	argv, _ := os.ReadFile(opened)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/start/[A-Za-z0-9]+\n$`).Match(argv) {
		t.Errorf("the browser was given %q, want one local start page", argv)
	}
	headers, _ := os.ReadFile(opened + ".headers")
	authURL := regexp.MustCompile(`(?mi)^location: (\S+)`).FindSubmatch(headers)
	if authURL == nil {
		t.Fatalf("the start page did not redirect:\n%s", headers)
	}
	for _, want := range []string{"code_challenge_method=S256", "resource=" + url.QueryEscape(endpoint), "state=", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
		if !strings.Contains(string(authURL[1]), want) {
			t.Errorf("the authorization URL lacks %q: %s", want, authURL[1])
		}
	}
	st, err = ReadOAuthState(kc, "demo", "work", nil)
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
	if st, err := ReadOAuthState(kc, "demo", "work", nil); err != nil || st.SignedIn || st.Reason != "not signed in" {
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

// recordingBrowser writes a $BROWSER that only notes the URL it was asked
// to open, so the test decides when the person "signs in".
func recordingBrowser(t testing.TB) (browser, opened string) {
	t.Helper()
	dir := t.TempDir()
	opened = filepath.Join(dir, "opened.log")
	browser = filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+opened+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return browser, opened
}

// A call to a source whose server asks for a sign-in awaits the
// connection; the hub opens the sign-in page itself, and once the person
// signed in, resume completes the run. A restarted hub uses the tokens
// from the keychain; after logout the source needs a sign-in again.
func TestOAuthExecuteSignInResume(t *testing.T) {
	endpoint := oauthDemoServer(t)
	browser, opened := recordingBrowser(t)
	t.Setenv("BROWSER", browser)
	kc := oauthTestKeychain(t)
	home := t.TempDir()
	notes := newNotesServer()
	cfg := testConfig(map[string]*Source{"demo": {URL: endpoint}, "notes": {URL: httpUpstream(t, notes.server, "", "").URL}})
	cfg.Policy["demo.greet"] = Allow
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	open := func() *Hub {
		h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: kc})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := open()
	signedIn := make(chan string, 4)
	cancel := h.Subscribe(func(ev Event) {
		if ev.Kind == EventSignedIn {
			signedIn <- ev.ID
		}
	})
	const code = `await notes.sendNote({ text: "first" }); return await demo.greet({ name: "Ada" });`
	env := execOn(t, h, code)
	if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 || env.Pending[0].Kind != KindConnection {
		h.Close()
		t.Fatalf("a call before sign-in: %s", env.Line())
	}
	raw, _ := json.Marshal(env)
	for _, leak := range []string{"authorize", "127.0.0.1", "code_challenge"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the envelope shows the model %q: %s", leak, raw)
		}
	}
	if !strings.Contains(env.Pending[0].Message, "sign in") || !strings.Contains(env.Pending[0].Summary, "sign-in") {
		t.Errorf("pending %+v does not say a sign-in is needed", env.Pending[0])
	}
	if st := h.up.State()["demo"]; st.State != SourceNeedsSignIn {
		t.Errorf("source state %+v, want %s", st, SourceNeedsSignIn)
	}
	demoStatus := func() SourceStatus {
		st, err := h.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st.Sources {
			if s.Name == "demo" {
				return s
			}
		}
		t.Fatalf("no demo in the status: %+v", st.Sources)
		return SourceStatus{}
	}
	if s := demoStatus(); s.Summary != "needs sign-in: not signed in" || len(s.SignIns) != 1 || s.SignIns[0].SignedIn || s.SignIns[0].Summary != "needs sign-in: not signed in" {
		t.Errorf("status before sign-in: %+v", s)
	}

	// The person follows the page the hub opened.
	var authURL string
	waitFor(t, 30*time.Second, "the hub to open the sign-in page", func() bool {
		b, _ := os.ReadFile(opened)
		authURL = strings.TrimSpace(string(b))
		return authURL != ""
	})
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case id := <-signedIn:
		if id != "demo/" {
			t.Errorf("signed-in event for %q", id)
		}
	case <-time.After(time.Minute):
		t.Fatal("the sign-in did not finish")
	}
	env = resumeOn(t, h, env.RunID)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "Hello, Ada!") {
		h.Close()
		t.Fatalf("resume after sign-in: %s", env.Line())
	}
	if n := notes.calls.Load(); n != 1 {
		t.Errorf("the journaled call before the sign-in reached its server %d times, want once", n)
	}
	rec, err := loadOAuthRecord(kc, "demo", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	if !slices.Contains(h.secrets.Values(), rec.AccessToken) {
		t.Error("the access token is not in the hub's secret registry")
	}
	if sts := h.OAuthStates(); len(sts) != 1 || !sts[0].SignedIn || sts[0].Source != "demo" {
		t.Errorf("OAuth states %+v", sts)
	}
	if s := demoStatus(); s.State != SourceUp || len(s.SignIns) != 1 || !s.SignIns[0].SignedIn || !slices.Contains(s.SignIns[0].Scopes, "mcp:tools") {
		t.Errorf("status after sign-in: %+v", s)
	}
	cancel()
	h.Close()

	// A restarted hub reads the tokens from the keychain.
	h = open()
	env = execOn(t, h, code)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "Hello, Ada!") {
		h.Close()
		t.Fatalf("a call after a restart: %s", env.Line())
	}
	h.Close()

	// After logout the connection needs a sign-in again.
	if _, err := SignOut(context.Background(), kc, "demo", "", nil); err != nil {
		t.Fatal(err)
	}
	os.Remove(opened)
	h = open()
	defer h.Close()
	if env = execOn(t, h, code); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call after logout: %s", env.Line())
	}
}
