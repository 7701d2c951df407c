package localapi

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestSignInFromATerminalReachesTheHub: a run waits for a sign-in while
// the hub runs, the person signs in from a terminal as `capabilities
// connection login` does (its own sign-in, then POST /v1/signed-in): the
// resumed run uses the tokens at once, the hub's own sign-in page closes,
// and the status says signed in.
func TestSignInFromATerminalReachesTheHub(t *testing.T) {
	endpoint := hubtest.OAuthDemoServer(t)
	browser, _ := hubtest.RecordingBrowser(t) // nobody answers the hub's own page
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	home := t.TempDir()
	src := &config.Source{URL: endpoint}
	cfg := &config.Config{Sources: map[string]*config.Source{"demo": src}, Policy: map[string]config.Mode{"demo.greet": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := hub.New(context.Background(), hub.Options{Home: home, ConfigPoll: -1, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc, err := Listen(ServiceOptions{Paths: h.Paths(), Logger: svcTestLogger(t), Handler: NewHandler(h, APIOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	serveSvcTestHub(t, svc)
	ctx := context.Background()

	env := execOn(t, h, `return await demo.greet({ name: "Ada" });`)
	if env.Status != hub.StatusAwaitingConnection {
		t.Fatalf("a call before sign-in: %s", env.Line())
	}
	signingIn := func() bool {
		st, err := h.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st.Sources {
			for _, si := range s.SignIns {
				return si.SigningIn
			}
		}
		return false
	}
	if !signingIn() {
		t.Fatal("the hub opened no sign-in page for the waiting run")
	}

	follow := func(ctx context.Context, u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	if _, err := oauth.SignIn(ctx, oauth.SignInOptions{Source: "demo", Def: src, Keychain: kc, Open: follow}); err != nil {
		t.Fatalf("signing in from the terminal: %v", err)
	}
	c, err := Dial(ctx, h.Paths())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.NoteSignIn(ctx, "demo", ""); err != nil {
		t.Fatalf("POST /v1/signed-in: %v", err)
	}
	if signingIn() {
		t.Error("the hub's own sign-in page is still open after the terminal's sign-in")
	}
	env, err = h.Execute(ctx, hub.ExecuteRequest{Resume: env.RunID, Client: "test"})
	if err != nil || env.Status != hub.StatusCompleted || !strings.Contains(string(env.Result), "Hello, Ada!") {
		t.Fatalf("the resume right after the terminal's sign-in: %v %s", err, env.Line())
	}

	if err := c.NoteSignIn(ctx, "nope", ""); err == nil || !strings.Contains(err.Error(), `no source "nope"`) {
		t.Errorf("a sign-in of an unknown source: %v", err)
	}
}
