package upstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// The last stderr lines of a stdio source outlive the session that wrote
// them: a server that crashed still shows what it said last.
func TestUpstreamStderrTailOutlivesSession(t *testing.T) {
	ctx := context.Background()
	u := newTestUpstreams(t, Options{}, hubtest.Config(map[string]*config.Source{"fake": hubtest.FakeSource("crash", nil)}))
	if got := u.StderrTail("fake"); got != nil {
		t.Fatalf("StderrTail before any session = %q, want none", got)
	}
	if _, err := u.Call(ctx, "fake", "", "echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Call(ctx, "fake", "", "crash", nil); err == nil {
		t.Fatal("crash returned no error")
	}
	// The source is down as soon as its session ends; its last stderr
	// lines arrive while the child is reaped.
	var tail []string
	testwait.For(t, 10*time.Second, "the source to be down with the crash in its stderr tail", func() bool {
		tail = u.StderrTail("fake")
		return u.State()["fake"].State == SourceDown && len(tail) > 0 && strings.Contains(tail[len(tail)-1], "crashing now")
	})
	if len(tail) > upstreamStderrTail {
		t.Fatalf("StderrTail = %q, want at most %d lines", tail, upstreamStderrTail)
	}
	if got := u.StderrTail("nosuch"); got != nil {
		t.Errorf("StderrTail of an unknown source = %q", got)
	}
}

// Restart ends a source's session and the next call starts another
// process at once, also inside the back-off window after a crash.
func TestUpstreamRestartStartsAgain(t *testing.T) {
	ctx := context.Background()
	u := newTestUpstreams(t, Options{RestartBackoff: time.Hour}, hubtest.Config(map[string]*config.Source{"fake": hubtest.FakeSource("crash", nil)}))
	echo := func() string {
		t.Helper()
		res, err := u.Call(ctx, "fake", "", "echo", json.RawMessage(`{"message":"pid"}`))
		if err != nil {
			t.Fatal(err)
		}
		return hubtest.TextOf(res)
	}
	first := echo()
	if again := echo(); again != first {
		t.Fatalf("two calls without a restart: %s, then %s", first, again)
	}
	u.Restart("fake")
	second := echo()
	if second == first {
		t.Errorf("after Restart the same process answered (%s)", second)
	}

	u.Call(ctx, "fake", "", "crash", nil)
	testwait.For(t, 10*time.Second, "the source to be down", func() bool {
		return u.State()["fake"].State == SourceDown
	})
	if _, err := u.Call(ctx, "fake", "", "echo", json.RawMessage(`{"message":"pid"}`)); err == nil {
		t.Fatal("a call inside the back-off window went through")
	}
	u.Restart("fake")
	if third := echo(); third == second {
		t.Errorf("after a crash and Restart the same process answered (%s)", third)
	}
}

// A secret that a stderr line holds where the line is cut (4 KB) leaves no
// part of itself in the line kept: it was cut first and scrubbed after,
// and its first bytes, no longer the secret, stayed.
func TestUpstreamStderrCutAfterScrub(t *testing.T) {
	const secret = "s3cr3t-t0ken-0123456789abcdef"
	w := &upstreamStderr{log: slog.New(slog.DiscardHandler)}
	w.setSecrets([]string{secret})
	w.Write([]byte(strings.Repeat("x", upstreamMaxLogLine-10) + secret + " and more\n"))
	if got := w.tail(); strings.Contains(got, secret[:10]) || !strings.HasPrefix(got, strings.Repeat("x", upstreamMaxLogLine-10)) {
		t.Errorf("kept %q", got[upstreamMaxLogLine-20:])
	}
}

// A line written in pieces without its newline is logged whole up to its
// cut, a secret across the cut scrubbed even when the pieces split it,
// and nothing of the line past the cut is logged as lines of their own.
func TestUpstreamStderrLongLineInPieces(t *testing.T) {
	const secret = "s3cr3t-t0ken-0123456789abcdef"
	w := &upstreamStderr{log: slog.New(slog.DiscardHandler)}
	w.setSecrets([]string{secret})
	line := strings.Repeat("x", upstreamMaxLogLine-10) + secret + strings.Repeat("y", 3*upstreamMaxLogLine)
	for i := 0; i < len(line); i += 7 {
		w.Write([]byte(line[i:min(i+7, len(line))]))
	}
	w.Write([]byte("\nnext line\n"))
	w.mu.Lock()
	lines := append([]string(nil), w.lines...)
	w.mu.Unlock()
	if len(lines) != 2 || strings.Contains(lines[0], secret[:10]) || !strings.HasSuffix(lines[0], "…") || lines[1] != "next line" {
		t.Errorf("%d lines kept, the first ending %q", len(lines), lines[0][max(0, len(lines[0])-30):])
	}
}
