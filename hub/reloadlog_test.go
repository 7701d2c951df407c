package hub

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestConfigReloadLogsOnce: a config.json change that leaves the sources'
// problems as they were logs the reload at INFO and no warning; a new
// problem still warns.
func TestConfigReloadLogsOnce(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	const sources = `"sources": {"gh": {"command": "/bin/false", "connections": {"work": {"env": {"TOKEN": "${secret:TOKEN}"}}}}, "bad name!": {"command": "x"}}`
	if err := os.WriteFile(path, []byte(`{`+sources+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf hubtest.LogBuffer
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{},
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	h.Refresh(ctx)
	first := strings.Join(buf.Levels(), "|")
	for _, want := range []string{"WARN config.json: a source is not served", "WARN listing tools failed"} {
		if !strings.Contains(first, want) {
			t.Fatalf("the first start lacks %q: %s", want, first)
		}
	}

	for i, policy := range []string{`{"gh.*": "ask"}`, `{"gh.*": "deny"}`} {
		if err := os.WriteFile(path, []byte(`{`+sources+`, "policy": `+policy+`}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		h.Refresh(ctx)
		if got := buf.Levels(); strings.Join(got, "|") != "INFO config reloaded" {
			t.Errorf("reload %d with the same problems logged %q, want one INFO line", i+1, got)
		}
	}

	// A problem that changes warns again.
	if err := os.WriteFile(path, []byte(`{"sources": {"gh": {"command": "/bin/false", "connections": {"work": {"env": {"TOKEN": "${secret:OTHER}"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.ReloadConfig(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	testwait.For(t, 10*time.Second, "a warning of the changed problem", func() bool {
		got = append(got, buf.Levels()...)
		return slices.Contains(got, "WARN listing tools failed")
	})
}

// TestARequestReadsTheConfigFirst: with no watching at all, a source
// written into config.json a moment ago is there for the next request,
// which reads the file again first; one more request with the file as
// it was reads nothing.
func TestARequestReadsTheConfigFirst(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	if err := hubtest.Config(map[string]*config.Source{"added": fakeSource("crash", nil)}).Save(path); err != nil {
		t.Fatal(err)
	}
	out, err := h.Search(ctx, SearchRequest{Query: "echo"})
	if err != nil || !strings.Contains(out, "added.echo(") {
		t.Fatalf("search right after the source was written = %q, %v", out, err)
	}
	before := h.Config()
	if _, err := h.Search(ctx, SearchRequest{Query: "echo"}); err != nil || h.Config() != before {
		t.Errorf("a request over an unchanged file loaded it again (%v)", err)
	}
}
