package quietlog

import (
	"log/slog"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
)

// TestRepeatsWarnOncePerProblem: a warning repeated about the same subject
// in the same words is written at DEBUG (or not at all below DEBUG's
// handler); changed words, another subject, or Forget warn again.
func TestRepeatsWarnOncePerProblem(t *testing.T) {
	var buf hubtest.LogBuffer
	q := New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
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
		{func() { q.Forget("gh") }, nil},
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
		if got := buf.Levels(); strings.Join(got, "|") != strings.Join(s.want, "|") {
			t.Errorf("step %d: wrote %q, want %q", i, got, s.want)
		}
	}

	// Below DEBUG's handler, a repeat is not written at all.
	quiet := slog.New(New(slog.NewTextHandler(&buf, nil)))
	quiet.Warn("listing tools failed", "source", "gh", "err", "no secret")
	quiet.Warn("listing tools failed", "source", "gh", "err", "no secret")
	if got := buf.Levels(); strings.Join(got, "|") != "WARN listing tools failed" {
		t.Errorf("at INFO, a repeat wrote %q", got)
	}
}
