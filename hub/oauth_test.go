package hub

import (
	"context"
	"encoding/json"
	"net/http"
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
)

// A call to a source whose server asks for a sign-in awaits the
// connection; the hub opens the sign-in page itself, and once the person
// signed in, resume completes the run. A restarted hub uses the tokens
// from the keychain; after logout the source needs a sign-in again.
func TestOAuthExecuteSignInResume(t *testing.T) {
	endpoint := hubtest.OAuthDemoServer(t)
	browser, opened := hubtest.RecordingBrowser(t)
	t.Setenv("BROWSER", browser)
	kc := hubtest.OAuthKeychain(t)
	home := t.TempDir()
	notes := newNotesServer()
	cfg := testConfig(map[string]*config.Source{"demo": {URL: endpoint}, "notes": {URL: httpUpstream(t, notes.server, "", "").URL}})
	cfg.Policy["demo.greet"] = config.Allow
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
	if st := h.up.State()["demo"]; st.State != upstream.SourceNeedsSignIn {
		t.Errorf("source state %+v, want %s", st, upstream.SourceNeedsSignIn)
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
	rec, err := oauth.LoadRecord(kc, "demo", "")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	if !slices.Contains(h.secrets.Values(), rec.AccessToken) {
		t.Error("the access token is not in the hub's secret registry")
	}
	if sts := h.SignIns().States(); len(sts) != 1 || !sts[0].SignedIn || sts[0].Source != "demo" {
		t.Errorf("OAuth states %+v", sts)
	}
	if s := demoStatus(); s.State != upstream.SourceUp || len(s.SignIns) != 1 || !s.SignIns[0].SignedIn || !slices.Contains(s.SignIns[0].Scopes, "mcp:tools") {
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
	if _, err := oauth.SignOut(context.Background(), kc, "demo", "", nil); err != nil {
		t.Fatal(err)
	}
	os.Remove(opened)
	h = open()
	defer h.Close()
	if env = execOn(t, h, code); env.Status != StatusAwaitingConnection {
		t.Fatalf("a call after logout: %s", env.Line())
	}
}
