package hub

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The browser is given a one-time page on the loopback listener, never
// the authorization URL: its command line holds no client_id, state or
// PKCE challenge. The page redirects to the authorization URL once; a
// second opening stops the sign-in. The redirect back is taken only with
// the exact state of the sign-in, once.
func TestOAuthSignInStartPageAndState(t *testing.T) {
	a := newTestAS(t)
	browser, opened := recordingBrowser(t)
	t.Setenv("BROWSER", browser)
	kc := oauthTestKeychain(t)
	def := &Source{URL: a.endpoint()}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) *http.Response {
		t.Helper()
		resp, err := noFollow.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	signIn := func(conn string) (<-chan error, string) {
		t.Helper()
		os.Remove(opened)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		done := make(chan error, 1)
		go func() {
			defer cancel()
			_, err := SignIn(ctx, SignInOptions{Source: "p", Conn: conn, Def: def, Keychain: kc})
			done <- err
		}()
		var argv string
		waitFor(t, time.Minute, "the sign-in to open the browser", func() bool {
			b, _ := os.ReadFile(opened)
			argv = string(b)
			return argv != ""
		})
		return done, strings.TrimSpace(argv)
	}

	done, start := signIn("")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/start/[A-Za-z0-9]{16,}$`).MatchString(start) {
		t.Fatalf("the browser was given %q, want one local start page", start)
	}
	for _, secret := range []string{"client_id", "state", "code_challenge", "redirect_uri", "authorize"} {
		if strings.Contains(start, secret) {
			t.Errorf("the browser's command line shows %s: %s", secret, start)
		}
	}
	su, _ := url.Parse(start)
	callback := "http://" + su.Host + "/callback"

	// A response with another state is refused and changes nothing.
	if resp := get(callback + "?code=stolen&state=forged"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a callback with a forged state answered %s", resp.Status)
	}
	if resp := get(callback + "?code=stolen"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a callback without a state answered %s", resp.Status)
	}
	if resp := get("http://" + su.Host + "/start/guessed"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a guessed start page answered %s", resp.Status)
	}

	resp := get(start)
	authURL, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || authURL == nil || authURL.Query().Get("state") == "" || authURL.Query().Get("code_challenge") == "" ||
		authURL.Query().Get("resource") != a.endpoint() || !strings.HasPrefix(authURL.String(), a.srv.URL+"/authorize?") {
		t.Fatalf("the start page answered %s, Location %v", resp.Status, authURL)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("the start page's Referrer-Policy is %q", resp.Header.Get("Referrer-Policy"))
	}
	// The person signs in: the authorization server redirects back with the
	// code and the state.
	resp = get(authURL.String())
	back := resp.Header.Get("Location")
	if !strings.HasPrefix(back, callback+"?") {
		t.Fatalf("the authorization server redirected to %q", back)
	}
	if resp := get(back); resp.StatusCode != http.StatusOK {
		t.Fatalf("the callback with the right state answered %s", resp.Status)
	}
	if err := <-done; err != nil {
		t.Fatalf("the sign-in: %v", err)
	}
	rec, err := loadOAuthRecord(kc, "p", "")
	if err != nil || rec == nil || rec.SourceURL != a.endpoint() || rec.Issuer != a.srv.URL {
		t.Fatalf("the kept sign-in: %+v, %v", rec, err)
	}
	if _, err := http.Get(back); err == nil {
		t.Error("the loopback listener still answers after the sign-in")
	}

	// Whoever opens the start page second stops the sign-in: the first
	// may be another local user who read the browser's command line.
	done, start = signIn("second")
	if resp := get(start); resp.StatusCode != http.StatusFound {
		t.Fatalf("the start page answered %s", resp.Status)
	}
	if resp := get(start); resp.StatusCode != http.StatusGone {
		t.Errorf("the start page opened twice answered %s", resp.Status)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "opened more than once") {
		t.Errorf("a sign-in whose page was opened twice: %v", err)
	}
	if rec, err := loadOAuthRecord(kc, "p", "second"); rec != nil || err != nil {
		t.Errorf("a stopped sign-in was kept: %+v, %v", rec, err)
	}
}

// A sign-in belongs to the URL it was made for. When the source's URL
// changes to another server, the connection needs a sign-in, and the new
// server (on 127.0.0.2, logging what it receives) never gets the token:
// neither the hub's calls nor its listing carry it there.
func TestOAuthSignInBoundToItsSource(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call while signed in: %s", env.Line())
	}
	rec, err := loadOAuthRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}

	other := newLoggingMCP(t, "127.0.0.2:0")
	t.Setenv("BROWSER", "false") // the hub's own offer to sign in goes nowhere
	cfg := testConfig(map[string]*Source{"p": {URL: other.URL}})
	if err := cfg.Save(filepath.Join(h.Paths().Home, "config.json")); err != nil {
		t.Fatal(err)
	}
	if err := h.ReloadConfig(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := execOn(t, h, whoami)
	if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 || env.Pending[0].Kind != KindConnection {
		t.Errorf("a call after the URL changed: %s", env.Line())
	}
	st, err := ReadOAuthState(h.kc, "p", "", cfg.Sources["p"])
	want := "the sign-in was made for " + a.endpoint() + ", and the source's URL is now " + other.URL
	if err != nil || st.SignedIn || st.Reason != want {
		t.Errorf("the state after the URL changed: %+v, %v; want the reason %q", st, err, want)
	}
	if sts := h.OAuthStates(); len(sts) != 1 || sts[0].SignedIn {
		t.Errorf("the hub's sign-ins after the URL changed: %+v", sts)
	}
	if errs := h.Refresh(context.Background(), "p"); errs["p"] == nil || !errors.Is(errs["p"], ErrNeedsSignIn) {
		t.Errorf("listing the source at its new URL: %v, want it to need a sign-in", errs)
	}
	for _, r := range other.received() {
		if strings.Contains(r, rec.AccessToken) || strings.Contains(r, rec.RefreshToken) || strings.Contains(r, "Authorization") {
			t.Errorf("the new server received a credential: %s", r)
		}
	}
}

// A sign-in belongs to the authorization server that issued it: when the
// server's resource metadata names another one, a refused token is not
// refreshed; the connection needs a sign-in, and says why.
func TestOAuthIssuerChangeNeedsSignIn(t *testing.T) {
	a := newTestAS(t)
	h, _ := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call while signed in: %s", env.Line())
	}
	t.Setenv("BROWSER", "false")
	a.mu.Lock()
	a.servers = []string{"http://127.0.0.2:9"}
	a.mu.Unlock()
	a.drop()
	before := a.count("refresh_token")
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call after the server named another authorization server: %s", env.Line())
	}
	if n := a.count("refresh_token"); n != before {
		t.Errorf("the sign-in was refreshed %d times after its issuer was dropped", n-before)
	}
	st, err := ReadOAuthState(h.kc, "p", "", h.Config().Sources["p"])
	if err != nil || st.SignedIn || !strings.Contains(st.Reason, "another authorization server, http://127.0.0.2:9") {
		t.Errorf("the state: %+v, %v", st, err)
	}
}
