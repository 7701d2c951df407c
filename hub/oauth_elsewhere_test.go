package hub

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestOAuthSignInElsewhereIsUsedAtOnce: while a hub runs and a run waits
// for a sign-in (the hub's own sign-in page open and unanswered), the
// person signs in from a terminal, as `capabilities connection login`
// does: the next call uses the new tokens at once, with no wait and no
// second sign-in, and the hub's status says signed in, with no sign-in
// page still waiting beside it.
func TestOAuthSignInElsewhereIsUsedAtOnce(t *testing.T) {
	endpoint := hubtest.OAuthDemoServer(t)
	browser, _ := hubtest.RecordingBrowser(t) // the hub's own page stays unanswered
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	home := t.TempDir()
	cfg := testConfig(map[string]*config.Source{"demo": {URL: endpoint}})
	cfg.Policy["demo.greet"] = config.Allow
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const code = `return await demo.greet({ name: "Ada" });`
	env := execOn(t, h, code)
	if env.Status != StatusAwaitingConnection {
		t.Fatalf("a call before sign-in: %s", env.Line())
	}

	// The terminal's sign-in: its own loopback listener, the same
	// keychain, a browser that follows the pages at once.
	follow := func(ctx context.Context, u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	if _, err := oauth.SignIn(context.Background(), oauth.SignInOptions{Source: "demo", Def: cfg.Sources["demo"], Keychain: kc, Open: follow}); err != nil {
		t.Fatalf("signing in from the terminal: %v", err)
	}
	// The terminal tells the running hub, as the CLI does through the
	// local API; the window hears it.
	heard := make(chan string, 4)
	defer h.Subscribe(func(ev Event) {
		if ev.Kind == EventSignedIn {
			heard <- ev.ID
		}
	})()
	if err := h.SignIns().Note(context.Background(), "demo", ""); err != nil {
		t.Fatalf("NoteSignIn: %v", err)
	}
	select {
	case id := <-heard:
		if id != "demo/" {
			t.Errorf("signed-in event for %q", id)
		}
	case <-time.After(time.Minute):
		t.Error("the window never heard of the sign-in")
	}

	env = resumeOn(t, h, env.RunID)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "Hello, Ada!") {
		t.Fatalf("the resume right after the terminal's sign-in: %s", env.Line())
	}
	env = execOn(t, h, code)
	if env.Status != StatusCompleted {
		t.Fatalf("a new call after the terminal's sign-in: %s", env.Line())
	}
	if err := h.SignIns().Note(context.Background(), "nope", ""); err == nil || !strings.Contains(err.Error(), `no source "nope"`) {
		t.Errorf("NoteSignIn of an unknown source: %v", err)
	}
	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Sources {
		if s.Name != "demo" {
			continue
		}
		if len(s.SignIns) != 1 || !s.SignIns[0].SignedIn || s.SignIns[0].SigningIn {
			t.Errorf("the hub's view of the sign-in: %+v", s.SignIns)
		}
	}
}
