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
	"capabilities.sh/capabilities/internal/hubtest"
)

// A sign-in belongs to the URL it was made for. When the source's URL
// changes to another server, the connection needs a sign-in, and the new
// server (on 127.0.0.2, logging what it receives) never gets the token:
// neither the hub's calls nor its listing carry it there.
func TestOAuthSignInBoundToItsSource(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call while signed in: %s", env.Line())
	}
	rec, err := oauth.LoadRecord(h.kc, "p", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}

	other := hubtest.NewLoggingMCP(t, "127.0.0.2:0")
	t.Setenv("BROWSER", "false") // the hub's own offer to sign in goes nowhere
	cfg := testConfig(map[string]*config.Source{"p": {URL: other.URL}})
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
	st, err := oauth.ReadState(h.kc, "p", "", cfg.Sources["p"])
	want := "the sign-in was made for " + a.Endpoint() + ", and the source's URL is now " + other.URL
	if err != nil || st.SignedIn || st.Reason != want {
		t.Errorf("the state after the URL changed: %+v, %v; want the reason %q", st, err, want)
	}
	if sts := h.SignIns().States(); len(sts) != 1 || sts[0].SignedIn {
		t.Errorf("the hub's sign-ins after the URL changed: %+v", sts)
	}
	if errs := h.Refresh(context.Background(), "p"); errs["p"] == nil || !errors.Is(errs["p"], oauth.ErrNeedsSignIn) {
		t.Errorf("listing the source at its new URL: %v, want it to need a sign-in", errs)
	}
	for _, r := range other.Received() {
		if strings.Contains(r, rec.AccessToken) || strings.Contains(r, rec.RefreshToken) || strings.Contains(r, "Authorization") {
			t.Errorf("the new server received a credential: %s", r)
		}
	}
}

// A sign-in belongs to the authorization server that issued it: when the
// server's resource metadata names another one, a refused token is not
// refreshed; the connection needs a sign-in, and says why.
func TestOAuthIssuerChangeNeedsSignIn(t *testing.T) {
	a := hubtest.NewAuthServer(t)
	h, _ := oauthTestHub(t, a)
	if env := execOn(t, h, whoami); env.Status != StatusCompleted {
		t.Fatalf("a call while signed in: %s", env.Line())
	}
	t.Setenv("BROWSER", "false")
	a.Mu.Lock()
	a.Servers = []string{"http://127.0.0.2:9"}
	a.Mu.Unlock()
	a.Drop()
	before := a.Count("refresh_token")
	if env := execOn(t, h, whoami); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call after the server named another authorization server: %s", env.Line())
	}
	if n := a.Count("refresh_token"); n != before {
		t.Errorf("the sign-in was refreshed %d times after its issuer was dropped", n-before)
	}
	st, err := oauth.ReadState(h.kc, "p", "", h.Config().Sources["p"])
	if err != nil || st.SignedIn || !strings.Contains(st.Reason, "another authorization server, http://127.0.0.2:9") {
		t.Errorf("the state: %+v, %v", st, err)
	}
}

// A preregistered client's secret belongs to the authorization server of
// its first sign-in. When the server's resource metadata names another one
// (a server gone hostile, or moved), the next sign-in stops before it
// reaches that one, and says what to do; the first server got the secret,
// the other nothing. A new client given for the new server signs in there.
func TestOAuthClientSecretStaysWithItsIssuer(t *testing.T) {
	a, b := hubtest.NewAuthServer(t), hubtest.NewAuthServer(t)
	b.NoRegistration = true
	h, opened := unregisteredHub(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	port := hubtest.FreePort(t)
	// signInAs gives the connection a client and signs in as it, which
	// sends its secret to the authorization server as (only).
	signInAs := func(id, secret string, as *hubtest.AuthServer) {
		t.Helper()
		if err := h.SignIns().SetClient(ctx, "p", "", id, secret, port); err != nil {
			t.Fatal(err)
		}
		if _, err := h.SignIns().Login(ctx, "p", ""); err != nil {
			t.Fatalf("a sign-in as %s: %v", id, err)
		}
		if got := as.SentSecrets(); !slices.Equal(got, []string{secret}) {
			t.Fatalf("the authorization server got the secrets %q, want %s's", got, id)
		}
	}
	signInAs("pre-1", "pre-secret", a)
	a.Mu.Lock()
	a.Servers = []string{b.Srv.URL}
	a.Mu.Unlock()
	os.Remove(opened)
	_, err := h.SignIns().Login(ctx, "p", "")
	if !errors.Is(err, oauth.ErrNeedsClient) || !strings.Contains(err.Error(), "the authorization server of p is now "+b.Srv.URL+"; the secret of its client pre-1 goes only to "+a.Srv.URL+", where its first sign-in sent it;") || !errors.Is(err, oauth.ErrClientElsewhere) {
		t.Fatalf("a sign-in at another authorization server: %v", err)
	}
	b.Mu.Lock()
	reached := len(b.Secrets) + len(b.AuthClients) + len(b.Grants)
	b.Mu.Unlock()
	if reached > 0 {
		t.Errorf("the other authorization server got %d requests for a sign-in", reached)
	}
	if p, _ := os.ReadFile(opened); len(p) > 0 {
		t.Errorf("a sign-in page was opened: %s", p)
	}
	signInAs("pre-2", "other-secret", b)
}
