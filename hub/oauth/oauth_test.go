package oauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

func TestOAuthSignInExampleServer(t *testing.T) {
	endpoint := hubtest.OAuthDemoServer(t)
	browser, opened := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	def := &config.Source{URL: endpoint, Connections: map[string]*config.Connection{"work": {Default: true, OAuth: &config.OAuthConfig{}}}}

	st, err := ReadState(kc, "demo", "work", nil)
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
	st, err = ReadState(kc, "demo", "work", nil)
	if err != nil || !st.SignedIn || !slices.Contains(st.Scopes, "mcp:tools") {
		t.Fatalf("after sign-in: %+v, %v", st, err)
	}
	if !strings.HasPrefix(st.Summary(), "signed in until ") {
		t.Errorf("summary %q", st.Summary())
	}

	// The stored token is accepted by the strict server.
	rec, err := LoadRecord(kc, "demo", "work")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer(rec.AccessToken)}}, nil)
	if err != nil {
		t.Fatalf("connecting with the stored token: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()

	// Signing in again signs in as the client registered the first time,
	// on the same redirect URI: no second client is left at the server.
	// With that URI's port taken, it registers a new one.
	if !rec.Registered {
		t.Fatalf("the record does not say its client was registered: %+v", rec.Registered)
	}
	if _, err := SignIn(ctx, SignInOptions{Source: "demo", Conn: "work", Def: def, Keychain: kc}); err != nil {
		t.Fatalf("signing in again: %v", err)
	}
	again, err := LoadRecord(kc, "demo", "work")
	if err != nil || again.ClientID != rec.ClientID || again.RedirectURL != rec.RedirectURL || !again.Registered || again.AccessToken == rec.AccessToken {
		t.Fatalf("the second sign-in: client %q at %s (first %q at %s), %v", again.ClientID, again.RedirectURL, rec.ClientID, rec.RedirectURL, err)
	}
	taken, err := net.Listen("tcp", strings.TrimSuffix(strings.TrimPrefix(rec.RedirectURL, "http://"), "/callback"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SignIn(ctx, SignInOptions{Source: "demo", Conn: "work", Def: def, Keychain: kc}); err != nil {
		t.Fatalf("signing in with the redirect port taken: %v", err)
	}
	taken.Close()
	third, err := LoadRecord(kc, "demo", "work")
	if err != nil || third.ClientID == rec.ClientID || third.RedirectURL == rec.RedirectURL || !third.Registered {
		t.Fatalf("the sign-in with the port taken: client %q at %s, %v", third.ClientID, third.RedirectURL, err)
	}

	revoked, err := SignOut(ctx, kc, "demo", "work", nil)
	if err != nil || revoked {
		t.Fatalf("sign-out: revoked %v, %v (the example server offers no revocation)", revoked, err)
	}
	if st, err := ReadState(kc, "demo", "work", nil); err != nil || st.SignedIn || st.Reason != "not signed in" {
		t.Fatalf("after sign-out: %+v, %v", st, err)
	}
}

// A record larger than one keychain item is split across items and read
// back whole; shrinking it removes the extra items.
func TestOAuthRecordChunks(t *testing.T) {
	kc := hubtest.OAuthKeychain(t)
	big := &Record{AccessToken: strings.Repeat("a", 5000), RefreshToken: strings.Repeat("r", 3000), ClientID: "c", TokenURL: "http://127.0.0.1/t"}
	if err := SaveRecord(kc, "big", "", big); err != nil {
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
	got, err := LoadRecord(kc, "big", "")
	if err != nil || got.AccessToken != big.AccessToken || got.RefreshToken != big.RefreshToken {
		t.Fatalf("read back: %v", err)
	}
	small := &Record{AccessToken: "short-token", ClientID: "c"}
	if err := SaveRecord(kc, "big", "", small); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Get(oauthTokenKey("big", "") + ".1"); err == nil {
		t.Error("a shrunk record left its old chunks behind")
	}
	if got, err := LoadRecord(kc, "big", ""); err != nil || got.AccessToken != "short-token" {
		t.Fatalf("read back the small record: %+v, %v", got, err)
	}
	if err := deleteRecord(kc, "big", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadRecord(kc, "big", ""); err != nil || got != nil {
		t.Fatalf("after delete: %+v, %v", got, err)
	}
}

// An authorization response from another issuer (RFC 9207) is refused, and
// nothing is kept. (One with another state never reaches the flow: the
// loopback listener refuses it, TestOAuthSignInStartPageAndState.)
func TestOAuthSignInRefusesForgedResponse(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	browser, _ := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	def := &config.Source{URL: a.Endpoint()}
	for _, tc := range []struct{ iss, state, want string }{
		{iss: "https://evil.example", want: "issuer"},
	} {
		a.Mu.Lock()
		a.Iss, a.State = tc.iss, tc.state
		a.Mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := SignIn(ctx, SignInOptions{Source: "p", Def: def, Keychain: kc})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("iss %q state %q: %v, want an error about %s", tc.iss, tc.state, err, tc.want)
		}
		if rec, err := LoadRecord(kc, "p", ""); rec != nil || err != nil {
			t.Errorf("a refused sign-in was kept: %+v, %v", rec, err)
		}
	}
}

// The browser is given a one-time page on the loopback listener, never
// the authorization URL: its command line holds no client_id, state or
// PKCE challenge. The page redirects to the authorization URL once; a
// second opening stops the sign-in. The redirect back is taken only with
// the exact state of the sign-in, once.
func TestOAuthSignInStartPageAndState(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	browser, opened := hubtest.RecordingBrowser(t)
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	def := &config.Source{URL: a.Endpoint()}
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
		testwait.For(t, time.Minute, "the sign-in to open the browser", func() bool {
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
		authURL.Query().Get("resource") != a.Endpoint() || !strings.HasPrefix(authURL.String(), a.Srv.URL+"/authorize?") {
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
	rec, err := LoadRecord(kc, "p", "")
	if err != nil || rec == nil || rec.SourceURL != a.Endpoint() || rec.Issuer != a.Srv.URL {
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
	if rec, err := LoadRecord(kc, "p", "second"); rec != nil || err != nil {
		t.Errorf("a stopped sign-in was kept: %+v, %v", rec, err)
	}
}

// bearer sends each request with the token as its bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
