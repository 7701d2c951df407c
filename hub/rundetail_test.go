package hub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
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
	if err != nil || len(calls) != 1 || calls[0].Decision != "" || calls[0].Args != `{"text":"again"}` || !strings.Contains(calls[0].Result, "sent") {
		t.Fatalf("the allowed call: %+v, %v", calls, err)
	}
	if calls, err := h.RunCalls(ctx, "run_none"); err != nil || len(calls) != 0 {
		t.Fatalf("an unknown run: %+v, %v", calls, err)
	}
}

// A call policy lets through keeps its arguments in the journal: scrubbed
// of a secret the hub knows (typed into the code as a literal), cut to
// store.MaxArgsBytes with the cut marked, and counted against the run's
// share of the store, so arguments beyond it are not recorded (and show
// none, as rows journaled before arguments were kept) while the calls
// still run.
func TestRunCallsShowJournaledArgs(t *testing.T) {
	ctx := context.Background()
	notes := newNotesServer()
	home := t.TempDir()
	const secret = "tok-9f3a7c-Qz8\"<&>"
	cfg := &config.Config{Sources: map[string]*config.Source{"notes": {URL: httpUpstream(t, notes.server, "", "").URL}},
		Policy: map[string]config.Mode{"notes.sendNote": config.Allow},
		// 40,000 bytes: a run's share is a quarter, room for two calls'
		// 4 KB of arguments and not three.
		Retention: config.Retention{MaxSizeMB: 40000.0 / (1 << 20)}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHubAt(t, home)
	defer h.Close()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	h.secrets.Set(secrets.ConnectionOwner("notes", "main"), secret)
	env := execOn(t, h, `const secret = `+quoteJS(secret)+`;
await notes.sendNote({ text: "use " + secret + " once" });
for (let i = 0; i < 3; i++) await notes.sendNote({ text: "é".repeat(3000) + i });
return "done";`)
	if env.Status != StatusCompleted {
		t.Fatalf("the run: %s", env.Line())
	}
	calls, err := h.RunCalls(ctx, env.RunID)
	if err != nil || len(calls) != 4 {
		t.Fatalf("RunCalls = %+v, %v", calls, err)
	}
	if want := `{"text":"use ` + secrets.Mark + ` once"}`; calls[0].Args != want || calls[0].ArgsCut || calls[0].State != "ok" {
		t.Errorf("the call with the secret: args %q (cut %v), want %q", calls[0].Args, calls[0].ArgsCut, want)
	}
	if c := calls[1]; !c.ArgsCut || !strings.HasPrefix(c.Args, `{"text":"éé`) || len(c.Args) > store.MaxArgsBytes || c.State != "ok" {
		t.Errorf("the long call: cut %v, %d bytes, %q…", c.ArgsCut, len(c.Args), c.Args[:min(len(c.Args), 16)])
	}
	if c := calls[2]; !c.ArgsCut || c.State != "ok" {
		t.Errorf("the second long call: cut %v, state %s", c.ArgsCut, c.State)
	}
	if c := calls[3]; c.Args != "" || c.State != "ok" || !strings.Contains(c.Result, "sent") {
		t.Errorf("the call beyond the run's share: args %d bytes, state %s; want them not recorded and the call sent", len(c.Args), c.State)
	}
	// Nor does the journal's row hold it, as typed or JSON-escaped.
	journal, err := h.db.ReadJournal(ctx, env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if e := journal[1]; e == nil || !strings.Contains(e.Args, secrets.Mark) {
		t.Fatalf("the stored row: %+v", e)
	}
	for seq, e := range journal {
		for _, leak := range []string{secret, quoteJS(secret)[1 : len(quoteJS(secret))-1]} {
			if strings.Contains(e.Args, leak) {
				t.Errorf("the journal row of call %d holds the secret: %q", seq, e.Args)
			}
		}
	}
}
