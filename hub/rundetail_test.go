package hub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// RunCalls shows each call of a run: the one that asked with its
// arguments as the approval showed them, the answer, the channel and who
// answered; the one policy allowed with its result and no decision.
func TestRunCallsShowDecisionsAndResults(t *testing.T) {
	ctx := context.Background()
	notes := newNotesServer()
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"notes": {URL: httpUpstream(t, notes.server, "", "").URL}},
		Policy: map[string]config.Mode{"notes.sendNote": config.Ask}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHubAt(t, home)
	defer h.Close()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	env := execOn(t, h, `return await notes.sendNote({ text: "hello from the test" });`)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("the asked call: %s", env.Line())
	}
	if err := h.Decide(ctx, env.Pending[0].ID, "allow_once", "dialog", "alice"); err != nil {
		t.Fatal(err)
	}
	if env = resumeOn(t, h, env.RunID); env.Status != StatusCompleted {
		t.Fatalf("after the allow: %s", env.Line())
	}
	calls, err := h.RunCalls(ctx, env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 {
		t.Fatalf("RunCalls = %+v, want one call", calls)
	}
	c := calls[0]
	if c.Seq != 1 || c.Address != "notes.sendNote" || c.State != "ok" || !strings.Contains(c.Args, "hello from the test") ||
		!strings.Contains(c.Result, "sent") || c.Decision != "allow" || c.Channel != "dialog" || c.Actor != "alice" || c.Reason == "" {
		t.Fatalf("the asked call: %+v", c)
	}

	if err := h.SetPolicy(ctx, "notes.sendNote", config.Allow); err != nil {
		t.Fatal(err)
	}
	env = execOn(t, h, `return await notes.sendNote({ text: "again" });`)
	if env.Status != StatusCompleted {
		t.Fatalf("the allowed call: %s", env.Line())
	}
	calls, err = h.RunCalls(ctx, env.RunID)
	if err != nil || len(calls) != 1 || calls[0].Decision != "" || calls[0].Args != "" || !strings.Contains(calls[0].Result, "sent") {
		t.Fatalf("the allowed call: %+v, %v", calls, err)
	}
	if calls, err := h.RunCalls(ctx, "run_none"); err != nil || len(calls) != 0 {
		t.Fatalf("an unknown run: %+v, %v", calls, err)
	}
}

func TestCutUTF8(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"aé", 2, "a"},
		{"日本", 4, "日"},
	} {
		if got := cutUTF8(tc.in, tc.n); got != tc.want {
			t.Errorf("cutUTF8(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
