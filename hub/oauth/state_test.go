package oauth

import (
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/keychain"
)

// TestNeedsSignInAndStates: a connection waits for a sign-in when it is
// OAuth by its config, its sign-in stopped working or its server asked,
// and not when it is signed in, sends its own Authorization header or is
// not HTTP; States lists the same connections, and asks the server last.
func TestNeedsSignInAndStates(t *testing.T) {
	kc := hubtest.OAuthKeychain(t)
	src := &config.Source{URL: "https://mcp.example.com/mcp", Connections: map[string]*config.Connection{
		"work":     {OAuth: &config.OAuthConfig{}},
		"personal": {},
		"token":    {Headers: map[string]string{"Authorization": "Bearer ${secret:TOKEN}"}},
		"signed":   {},
		"stale":    {},
	}}
	if err := SaveRecord(kc, "gh", "signed", &Record{AccessToken: "a", ClientID: "c", SourceURL: src.URL}); err != nil {
		t.Fatal(err)
	}
	if err := SaveRecord(kc, "gh", "stale", &Record{AccessToken: "a", ClientID: "c", SourceURL: src.URL, NeedsSignIn: true, Reason: "the refresh failed"}); err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	ask := func(conn string) func() bool {
		return func() bool { asked[conn] = true; return conn == "personal" }
	}
	for conn, want := range map[string]bool{"work": true, "personal": true, "token": false, "signed": false, "stale": true, "other": false} {
		if got := NeedsSignIn(kc, "gh", conn, src, ask(conn)); got != want {
			t.Errorf("NeedsSignIn(%s) = %v, want %v", conn, got, want)
		}
	}
	if asked["work"] || asked["signed"] || asked["stale"] || asked["token"] {
		t.Errorf("the server was asked about a connection the keychain or the config decided: %v", asked)
	}
	if NeedsSignIn(kc, "files", "", &config.Source{Command: "files"}, func() bool { return true }) || NeedsSignIn(kc, "gone", "", nil, func() bool { return true }) {
		t.Error("a stdio or missing source waits for a sign-in")
	}

	states := States(kc, "gh", src, func(conn string) bool { return conn == "personal" })
	got := map[string]bool{}
	for _, st := range states {
		got[st.Conn] = st.SignedIn
	}
	want := map[string]bool{"personal": false, "signed": true, "stale": false, "work": false}
	if len(got) != len(want) {
		t.Errorf("States = %+v, want the connections %v", states, want)
	}
	for conn, signedIn := range want {
		if s, ok := got[conn]; !ok || s != signedIn {
			t.Errorf("States: %s signed in %v (listed %v), want %v", conn, s, ok, signedIn)
		}
	}
	if States(kc, "files", &config.Source{Command: "files"}, nil) != nil {
		t.Error("a stdio source has sign-in states")
	}

	// A keychain that cannot be read: the connections that sign in by
	// their config or whose server asked say why; the others, and an API
	// with no connection that never asked, list no sign-in to make.
	locked := &hubtest.MemKeychain{Err: keychain.ErrUnavailable}
	got = map[string]bool{}
	for _, st := range States(locked, "gh", src, func(conn string) bool { return conn == "personal" }) {
		got[st.Conn] = true
		if st.SignedIn || !strings.Contains(st.Summary(), "the sign-in cannot be read") {
			t.Errorf("%s with the keychain locked: %+v (%s)", st.Conn, st, st.Summary())
		}
	}
	if !got["work"] || !got["personal"] || len(got) != 2 {
		t.Errorf("States with the keychain locked lists %v, want work and personal", got)
	}
	if st := States(locked, "api", &config.Source{OpenAPI: "api.json"}, func(string) bool { return false }); len(st) != 0 {
		t.Errorf("an API without sign-in, keychain locked: %+v", st)
	}
}
