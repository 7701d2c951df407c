package hub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
)

// stateHub opens a hub over sources in every state once listed: memory
// (the memory server: up), gone (a command that does not exist: down, for
// good), broken (a server that exits at start: down, may come back), locked
// (a default connection whose secret is not in the keychain) and off
// (disabled). It does not list them.
func stateHub(t *testing.T) *Hub {
	t.Helper()
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{
		"memory": memorySource(t),
		"gone":   {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"locked": {Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"},
			Connections: map[string]*config.Connection{"work": {Default: true, Env: map[string]string{"API_TOKEN": "${secret:API_TOKEN}"}}}},
		"off": {Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"}, Disabled: true},
		// A server that fails at start, saying why on stderr.
		"broken": {Command: "node", Args: []string{"-e", `console.error("boom: cannot open the database"); process.exit(3)`}},
	}, Policy: map[string]config.Mode{"locked": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: &svcMemKeychain{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestSourceStatesOneVocabulary(t *testing.T) {
	h := stateHub(t)
	h.Refresh(context.Background())
	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		state   upstream.SourceStateKind
		summary string
	}{
		"memory": {upstream.SourceUp, "up"},
		"gone":   {upstream.SourceDown, "down: starting "},
		"broken": {upstream.SourceDown, "down: starting the server: it exited (exit status 3); its last output: boom: cannot open the database"},
		"locked": {upstream.SourceNeedsSecret, "needs a secret: connection \"work\": secret \"API_TOKEN\" is not in the keychain"},
		"off":    {upstream.SourceDisabled, "disabled"},
	}
	up := h.up.State()
	for _, s := range st.Sources {
		w := want[s.Name]
		if s.State != w.state || !strings.HasPrefix(s.Summary, w.summary) {
			t.Errorf("status of %s: %s, %q; want %s, %q...", s.Name, s.State, s.Summary, w.state, w.summary)
		}
		if u := up[s.Name]; u.State != s.State || u.Summary() != s.Summary {
			t.Errorf("%s: the upstreams say %s (%q), the status %s (%q)", s.Name, u.State, u.Summary(), s.State, s.Summary)
		}
	}
	if g := up["gone"]; g.Retryable || !strings.Contains(g.Err, "no-such-server") {
		t.Errorf("gone: %+v; want not retryable, naming the command", g)
	}
	if l := up["locked"]; l.Retryable {
		t.Errorf("locked: %+v; a missing secret is the person's to fix", l)
	}
}
