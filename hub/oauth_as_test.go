package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// oauthTestHub is a hub with one source "p" on a's MCP endpoint, signed in.
// unregisteredHub is a hub whose source "p" is a's MCP endpoint, not
// signed in, a taking no registration (a client registered beforehand
// signs in); opened logs the pages the sign-ins open.
func unregisteredHub(t *testing.T, a *hubtest.AuthServer) (h *Hub, opened string) {
	t.Helper()
	a.NoRegistration = true
	browser, opened := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	home := t.TempDir()
	if err := testConfig(map[string]*config.Source{"p": {URL: a.Endpoint()}}).Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: hubtest.OAuthKeychain(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, opened
}

func oauthTestHub(t *testing.T, a *hubtest.AuthServer) (*Hub, func() *Hub) {
	browser, _ := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	home := t.TempDir()
	cfg := testConfig(map[string]*config.Source{"p": {URL: a.Endpoint()}})
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
	if _, err := h.SignIns().Login(ctx, "p", ""); err != nil {
		t.Fatal(err)
	}
	// The sign-in lists the source again, in the background, on a session
	// that holds the sign-in as it was: a test that edits the sign-in in
	// the keychain restarts the source after that listing (editSignIn).
	testwait.For(t, 0, "the source to be listed after its sign-in", func() bool {
		st, err := h.Status(ctx)
		return err == nil && len(st.Sources) == 1 && st.Sources[0].State == upstream.SourceUp
	})
	return h, open
}

// editSignIn changes the sign-in of source p in the keychain with edit,
// and restarts p so that its next session reads it.
func editSignIn(t *testing.T, h *Hub, edit func(*oauth.Record)) {
	t.Helper()
	rec, err := oauth.LoadRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	edit(rec)
	if err := oauth.SaveRecord(h.kc, "p", "", rec); err != nil {
		t.Fatal(err)
	}
	h.up.Restart("p")
}

const whoami = `return await p.whoami({});`

// An access token about to expire is refreshed before the call, and a
// short-lived one is not refreshed on every call; one the server dropped
// is refreshed after its 401 and the call retried; each new token is kept
// in the keychain and scrubbed.
func TestOAuthRefresh(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	// The hour-long token has 30 seconds left.
	editSignIn(t, h, func(rec *oauth.Record) {
		rec.Expiry, rec.Issued = time.Now().Add(30*time.Second), time.Now().Add(-time.Hour+30*time.Second)
	})
	a.Mu.Lock()
	a.ExpiresIn = 200 // refreshed when 50 s are left
	a.Mu.Unlock()
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call with an expiring token: %s", env.Line())
	}
	if n := a.Count("refresh_token"); n < 1 {
		t.Fatalf("no refresh before expiry (%d refreshes)", n)
	}
	if env := execOn(t, h, whoami); env.Status != StatusCompleted || a.Count("refresh_token") != 1 {
		t.Fatalf("a second call with a fresh short-lived token: %s, %d refreshes", env.Line(), a.Count("refresh_token"))
	}
	rec, err := oauth.LoadRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	a.Mu.Lock()
	_, live := a.Access[rec.AccessToken]
	a.Mu.Unlock()
	if !live {
		t.Error("the keychain does not hold the refreshed access token")
	}
	if !slices.Contains(h.secrets.Values(), rec.AccessToken) || !slices.Contains(h.secrets.Values(), rec.RefreshToken) {
		t.Error("the refreshed tokens are not in the secret registry")
	}

	a.Mu.Lock()
	a.ExpiresIn = 3600
	a.Mu.Unlock()
	execOn(t, h, whoami) // takes a long-lived token
	before := a.Count("refresh_token")
	a.Drop()
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call after the server dropped the token: %s", env.Line())
	}
	if a.Count("refresh_token") != before+1 {
		t.Errorf("refreshes %d -> %d, want one after the 401", before, a.Count("refresh_token"))
	}
}

// A refresh the server refuses turns the connection into needs sign-in:
// the call awaits the connection, the state says why, and a restarted hub
// still knows.
func TestOAuthRefreshFails(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, open := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("first call: %s", env.Line())
	}
	a.Mu.Lock()
	a.Refuse = true
	a.Mu.Unlock()
	a.Drop()
	t.Setenv("BROWSER", "false") // the hub's own sign-in attempt must not succeed
	env := execOn(t, h, whoami)
	if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 {
		t.Fatalf("a call whose refresh fails: %s", env.Line())
	}
	st, err := oauth.ReadState(h.kc, "p", "", nil)
	if err != nil || st.SignedIn || !strings.Contains(st.Reason, "invalid_grant") {
		t.Fatalf("state after a failed refresh: %+v, %v", st, err)
	}
	if us := h.up.State()["p"]; us.State != upstream.SourceNeedsSignIn {
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
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	a.Mu.Lock()
	a.NeedScope = "admin"
	a.Mu.Unlock()
	t.Setenv("BROWSER", "false")
	env := execOn(t, h, whoami)
	if env.Status != StatusAwaitingConnection {
		t.Fatalf("a call needing more scope: %s", env.Line())
	}
	st, _ := oauth.ReadState(h.kc, "p", "", nil)
	if st.SignedIn || !strings.Contains(st.Reason, "admin") {
		t.Fatalf("state %+v", st)
	}
	browser, _ := hubtest.BrowserScript(t)
	t.Setenv("BROWSER", browser)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := h.SignIns().Login(ctx, "p", "")
	if err != nil || !slices.Contains(g.Scopes, "admin") {
		t.Fatalf("step-up sign-in: %+v, %v", g, err)
	}
	a.Mu.Lock()
	last := a.Asked[len(a.Asked)-1]
	a.Mu.Unlock()
	if !strings.Contains(last, "admin") {
		t.Errorf("the sign-in asked for %q, want admin", last)
	}
	if env := resumeOn(t, h, env.RunID); env.Status != StatusCompleted {
		t.Fatalf("resume after step-up: %s", env.Line())
	}
}

// Logout (the window's Sign out) revokes both tokens (RFC 7009) and
// deletes them, and the server's session no longer holds the token: the
// next call waits for a sign-in.
func TestOAuthRevoke(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call while signed in: %s", env.Line())
	}
	revoked, err := h.SignIns().Logout(context.Background(), "p", "")
	if err != nil || !revoked {
		t.Fatalf("sign-out: %v, %v", revoked, err)
	}
	a.Mu.Lock()
	got := slices.Clone(a.Revoked)
	live := len(a.Access) + len(a.Refresh)
	a.Mu.Unlock()
	if !slices.Equal(got, []string{"refresh_token", "access_token"}) || live != 0 {
		t.Errorf("revoked %v, %d tokens still live", got, live)
	}
	if rec, err := oauth.LoadRecord(h.kc, "p", ""); err != nil || rec != nil {
		t.Errorf("after sign-out the keychain holds %+v (%v)", rec, err)
	}
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Errorf("a call after the sign-out: %s", env.Line())
	}
}

// An access token that expired without a refresh token needs a sign-in:
// the call awaits the connection instead of going out with it.
func TestOAuthExpiredWithoutRefresh(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	editSignIn(t, h, func(rec *oauth.Record) { rec.RefreshToken, rec.Expiry = "", time.Now().Add(-time.Second) })
	if st, _ := oauth.ReadState(h.kc, "p", "", nil); st.SignedIn || st.Reason != "the access token expired" {
		t.Fatalf("state of an expired sign-in: %+v", st)
	}
	t.Setenv("BROWSER", "false")
	before := a.Count("refresh_token")
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call with an expired token: %s", env.Line())
	}
	if a.Count("refresh_token") != before {
		t.Error("a refresh was tried without a refresh token")
	}
}

// An MCP server whose authorization server takes no registration (as
// GitHub's and Google's) and a source without connections: the sign-in
// says how to give a client registered beforehand, without opening a
// page; SetClient keeps it in a "default" connection, and the sign-in
// then runs as that client.
func TestOAuthSignInWithAPreregisteredClient(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, opened := unregisteredHub(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, err := h.SignIns().Login(ctx, "p", "")
	if !errors.Is(err, oauth.ErrNeedsClient) || !strings.Contains(err.Error(), "capabilities connection login p default --client-id ID --redirect-port PORT") {
		t.Fatalf("a sign-in at a server that takes no registration: %v", err)
	}
	if b, _ := os.ReadFile(opened); len(b) != 0 {
		t.Errorf("a sign-in page was opened for a sign-in that cannot finish: %s", b)
	}
	// A sign-in the source kept as none (made before its server stopped
	// taking registrations) is left behind by the new connection.
	if err := oauth.SaveRecord(h.kc, "p", "", &oauth.Record{AccessToken: "at-old", ClientID: "dcr-1", SourceURL: a.Endpoint()}); err != nil {
		t.Fatal(err)
	}
	port := hubtest.FreePort(t)
	if err := h.SignIns().SetClient(ctx, "p", "", "pre-1", "", port); err != nil {
		t.Fatal(err)
	}
	if rec, err := oauth.LoadRecord(h.kc, "p", ""); err != nil || rec != nil {
		t.Errorf("the sign-in kept as none after the client's connection was added: %+v, %v", rec, err)
	}
	if c := h.Config().Sources["p"].Connections["default"]; c == nil || c.OAuth == nil || c.OAuth.ClientID != "pre-1" || c.OAuth.RedirectPort != port {
		t.Fatalf("the connection after SetClient: %+v", c)
	}
	if _, err := h.SignIns().Login(ctx, "p", ""); err != nil {
		t.Fatalf("a sign-in as the preregistered client: %v", err)
	}
	a.Mu.Lock()
	clients := slices.Clone(a.AuthClients)
	a.Mu.Unlock()
	if !slices.Equal(clients, []string{"pre-1"}) {
		t.Errorf("authorization requests by %q, want one by pre-1", clients)
	}
	// The source lists its tools once signed in: the window and the
	// status stop saying it waits for a sign-in.
	testwait.For(t, 0, "the source to be listed after its sign-in", func() bool {
		st, err := h.Status(ctx)
		return err == nil && len(st.Sources) == 1 && st.Sources[0].State == upstream.SourceUp && st.Sources[0].Tools == 1
	})
	if env := execCode(t, h, whoami); env.Status != StatusCompleted {
		t.Errorf("a call on the signed-in default connection: %s", envJSON(env))
	}
}
