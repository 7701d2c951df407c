//go:build !headless

package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/keychain"
)

// emptyKeychain holds no secret.
type emptyKeychain struct{}

func (emptyKeychain) Get(key string) (string, error) {
	return "", fmt.Errorf("keychain: reading %q: %w", key, keychain.ErrNotFound)
}
func (emptyKeychain) Set(string, string) error { return errors.New("keychain: read-only in this test") }
func (emptyKeychain) Delete(key string) error {
	return fmt.Errorf("keychain: deleting %q: %w", key, keychain.ErrNotFound)
}

// TestTraySaysWhatTheHubSays: the tray shows each source in the hub's own
// state and words, a real hub over the memory server, a source that cannot
// start, one whose secret is missing and one disabled.
func TestTraySaysWhatTheHubSays(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "mcp-server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("memory server not installed (make test runs npm ci): %v", err)
		}
		t.Skip("memory server not installed")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{
		"memory": {Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}},
		"gone":   {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"locked": {Command: bin, Connections: map[string]*config.Connection{"work": {Default: true, Env: map[string]string{"TOKEN": "${secret:TOKEN}"}}}},
		"off":    {Command: bin, Disabled: true},
	}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, ConfigPoll: -1, Keychain: emptyKeychain{}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.Refresh(ctx)
	st, err := h.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tray, err := FromHub(ctx, h).Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(tray.Sources) != len(st.Sources) {
		t.Fatalf("the tray shows %d sources, the hub has %d", len(tray.Sources), len(st.Sources))
	}
	want := map[string]string{"memory": SourceUp, "gone": SourceDown, "locked": SourceNeedsSecret, "off": SourceDisabled}
	for i, s := range st.Sources {
		ts := tray.Sources[i]
		if ts.Name != s.Name || ts.State != string(s.State) || ts.Error != s.Error || ts.State != want[s.Name] {
			t.Errorf("%s: the tray shows %s (%q), the hub %s (%q); want %s", s.Name, ts.State, ts.Error, s.State, s.Error, want[s.Name])
		}
		label := sourceLabel(ts)
		if s.Error != "" && s.State != upstream.SourceDisabled && !strings.Contains(label, s.Error[:min(20, len(s.Error))]) {
			t.Errorf("%s: the tray's label %q lacks the hub's reason %q", s.Name, label, s.Error)
		}
	}
	if anyDown(tray.Sources) != true {
		t.Error("the tray does not count the source that cannot start as down")
	}
}
