package hub

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// sinceLog is a log's output that a test reads, a part at a time, while
// the hub writes.
type sinceLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *sinceLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// levels returns the level and message of each line written since the
// last call.
func levels(b *sinceLog) []string {
	b.mu.Lock()
	text := b.buf.String()
	b.buf.Reset()
	b.mu.Unlock()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		lvl, msg := "", ""
		for _, f := range []string{"level=", "msg="} {
			i := strings.Index(line, f)
			if i < 0 {
				continue
			}
			v := line[i+len(f):]
			if strings.HasPrefix(v, `"`) {
				v = v[1 : strings.Index(v[1:], `"`)+1]
			} else if j := strings.IndexByte(v, ' '); j >= 0 {
				v = v[:j]
			}
			if f == "level=" {
				lvl = v
			} else {
				msg = v
			}
		}
		out = append(out, lvl+" "+msg)
	}
	return out
}

func TestRepeatsWarnOncePerProblem(t *testing.T) {
	var buf sinceLog
	q := newRepeats(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log := slog.New(q)
	conn := log.With("source", "gh") // as a session's logger carries its source
	steps := []struct {
		do   func()
		want []string
	}{
		{func() { log.Warn("listing tools failed", "source", "gh", "err", "no secret") }, []string{"WARN listing tools failed"}},
		{func() { log.Warn("listing tools failed", "source", "gh", "err", "no secret") }, []string{"DEBUG listing tools failed"}},
		{func() { log.Warn("listing tools failed", "source", "gh", "err", "exit status 1") }, []string{"WARN listing tools failed"}},
		{func() { log.Warn("listing tools failed", "source", "jira", "err", "exit status 1") }, []string{"WARN listing tools failed"}},
		{func() { log.Warn("a source is not served", "key", "sources.a b", "problem", "bad name") }, []string{"WARN a source is not served"}},
		{func() { log.Warn("a source is not served", "key", "sources.c d", "problem", "bad name") }, []string{"WARN a source is not served"}},
		{func() { log.Warn("a source is not served", "key", "sources.a b", "problem", "bad name") }, []string{"DEBUG a source is not served"}},
		{func() { conn.Warn("session failed", "err", "boom") }, []string{"WARN session failed"}},
		{func() { conn.Warn("session failed", "err", "boom") }, []string{"DEBUG session failed"}},
		{func() { q.forget("gh") }, nil},
		{func() { conn.Warn("session failed", "err", "boom") }, []string{"WARN session failed"}},
		{func() { log.Warn("listing tools failed", "source", "gh", "err", "exit status 1") }, []string{"WARN listing tools failed"}},
		{func() { log.Warn("listing tools failed", "source", "jira", "err", "exit status 1") }, []string{"DEBUG listing tools failed"}},
		{func() { log.Info("config reloaded"); log.Info("config reloaded") }, []string{"INFO config reloaded", "INFO config reloaded"}},
		{func() {
			log.Error("config.json has problems", "err", "x")
			log.Error("config.json has problems", "err", "x")
		}, []string{"ERROR config.json has problems", "DEBUG config.json has problems"}},
	}
	for i, s := range steps {
		s.do()
		if got := levels(&buf); strings.Join(got, "|") != strings.Join(s.want, "|") {
			t.Errorf("step %d: wrote %q, want %q", i, got, s.want)
		}
	}

	// Below DEBUG's handler, a repeat is not written at all.
	quiet := slog.New(newRepeats(slog.NewTextHandler(&buf, nil)))
	quiet.Warn("listing tools failed", "source", "gh", "err", "no secret")
	quiet.Warn("listing tools failed", "source", "gh", "err", "no secret")
	if got := levels(&buf); strings.Join(got, "|") != "WARN listing tools failed" {
		t.Errorf("at INFO, a repeat wrote %q", got)
	}
}

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
	var buf sinceLog
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{},
		Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ctx := context.Background()
	h.Refresh(ctx)
	first := strings.Join(levels(&buf), "|")
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
		if got := levels(&buf); strings.Join(got, "|") != "INFO config reloaded" {
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
		got = append(got, levels(&buf)...)
		return slices.Contains(got, "WARN listing tools failed")
	})
}
