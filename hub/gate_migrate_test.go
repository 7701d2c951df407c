package hub

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
)

// A database from before pins: remembered decisions become scoped rules
// (an allow pinned to the definition the person had accepted, on the
// connection of its approval; a deny on every connection), and a tool
// with an open change stays changed.
func TestMigrationPinsRememberedDecisions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	v1, err := fs.ReadFile(store.Migrations(), "0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	old, err := store.Open(ctx, filepath.Join(home, "capabilities.db"), &store.Options{Migrations: fstest.MapFS{"0001_init.sql": {Data: v1}}})
	if err != nil {
		t.Fatal(err)
	}
	note, noteHash, err := catalog.Definition(&mcp.Tool{Name: "send_note", Description: "Send a note.", InputSchema: map[string]any{"type": "object"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wipe, wipeHash, err := catalog.Definition(&mcp.Tool{Name: "wipe", Description: "Now it wipes everything.", InputSchema: map[string]any{"type": "object"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw := rawSQL(t, old)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tools (source, name, definition, hash, first_seen, updated) VALUES ('notes', 'send_note', ?, ?, 1, 1), ('notes', 'wipe', ?, ?, 1, 2)`,
			[]any{string(note), noteHash, string(wipe), wipeHash}},
		// wipe was accepted at another definition, then changed.
		{`INSERT INTO tool_changes (source, name, old_hash, new_hash, at) VALUES ('notes', 'send_note', '', ?, 1), ('notes', 'wipe', 'accepted-hash', ?, 2)`,
			[]any{noteHash, wipeHash}},
		{`INSERT INTO runs (id, code, seed, clock, status, created, updated) VALUES ('r_1', '', 1, 1, 'completed', 1, 1)`, nil},
		{`INSERT INTO pending (id, run_id, seq, kind, address, connection, args_hash, created, expires, decision, remember, channel, decided)
			VALUES ('p_1', 'r_1', 1, 'approval', 'notes.sendNote', 'personal', 'a', 1, 2, 'allow', 1, 'dialog', 1)`, nil},
		{`INSERT INTO remembered (address, mode, channel, at) VALUES ('notes.sendNote', 'allow', 'dialog', 1), ('notes.wipe', 'deny', 'cli', 2)`, nil},
	} {
		if _, err := raw.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	raw.Close()
	old.Close()

	// The source is down: the catalog comes from the store.
	cfg := testConfig(map[string]*config.Source{"notes": {URL: "http://127.0.0.1:1/mcp"}})
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHubAt(t, home)
	defer h.Close()
	rules, err := h.PolicyRules(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.ListedRule{
		{Order: 1, Target: "notes.wipe", Mode: config.Deny, From: "cli", Remembered: true, Scope: "every connection"},
		{Order: 2, Target: "notes.sendNote", Mode: config.Allow, From: "dialog", Remembered: true, Scope: "connection personal, definition " + noteHash[:12]},
	}
	if len(rules) != len(want) {
		t.Fatalf("rules = %+v", rules)
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i+1, rules[i], want[i])
		}
	}
	snap := h.catalog.Snapshot()
	if tl, _ := snap.Lookup("notes.sendNote"); tl == nil || tl.Changed() || tl.Pinned != noteHash {
		t.Errorf("send_note = %+v, want pinned where it is", tl)
	}
	if tl, _ := snap.Lookup("notes.wipe"); tl == nil || !tl.Changed() || tl.Pinned != "accepted-hash" || tl.Change != "its definition changed (the accepted one was not kept)" {
		t.Errorf("wipe = %+v, want changed since accepted-hash", tl)
	}
	send, _ := snap.Lookup("notes.sendNote")
	d := policy.Gate(h.currentPolicy(), policy.InputFor(send, "personal", h.Config()))
	if d.Mode != config.Allow || d.By == nil || !d.By.Remembered {
		t.Errorf("the migrated allow does not hold on its connection: %+v", d)
	}
}
