package store

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPinToolsMovesAllows: accepting a changed tool pins its stored
// definition and moves the remembered allows of its old pin, in one
// transaction; a tool pinned where it is already, or whose stored
// definition moved on, is not pinned.
func TestPinToolsMovesAllows(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli())
	tx, err := db.BeginCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// send is listed, then changed (its pin stays at the first); read is
	// listed once.
	for _, put := range []struct{ name, def, hash string }{
		{"send", `{"name":"send"}`, "h1"},
		{"send", `{"name":"send","v":2}`, "h2"},
		{"read", `{"name":"read"}`, "r1"},
	} {
		if err := tx.PutTool(ctx, "notes", put.name, []byte(put.def), put.hash, now); err != nil {
			t.Fatal(err)
		}
		if err := tx.PinFirst(ctx, "notes", put.name, put.hash, []byte(put.def), now); err != nil {
			t.Fatal(err)
		}
	}
	if hash, def, err := tx.Pin(ctx, "notes", "send"); err != nil || hash != "h1" || string(def) != `{"name":"send"}` {
		t.Fatalf("the pin of send after its change = %s %s %v, want the first definition", hash, def, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	p := &Pending{ID: "p_1", RunID: "r_1", Seq: 1, Kind: "approval", Address: "notes.send", Connection: "work", ArgsHash: "a", DefHash: "h1", Created: now, Expires: now.Add(time.Hour)}
	if err := db.CreateRun(ctx, &Run{ID: "r_1", Status: "awaiting_approval", Created: now, Updated: now}, Lease{}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutPending(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := db.Decide(ctx, p, "allow", true, "cli", "test", now); err != nil {
		t.Fatal(err)
	}

	moved, err := db.PinTools(ctx, []Pin{
		{Source: "notes", Name: "send", Address: "notes.send", Hash: "h2", Was: "h1"},
		{Source: "notes", Name: "read", Address: "notes.read", Hash: "r1", Was: "r1"},
		{Source: "notes", Name: "send", Address: "notes.send", Hash: "h3", Was: "h1"}, // not the stored definition
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false}; len(moved) != 3 || moved[0] != want[0] || moved[1] != want[1] || moved[2] != want[2] {
		t.Errorf("PinTools moved %v, want %v", moved, want)
	}
	tools, err := db.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Pinned != tool.Hash || string(tool.PinnedDefinition) != string(tool.Definition) {
			t.Errorf("%s is pinned at %s (%s), want its stored definition %s (%s)", tool.Name, tool.Pinned, tool.PinnedDefinition, tool.Hash, tool.Definition)
		}
	}
	rem, err := db.Remembered(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rem) != 1 || rem[0].Address != "notes.send" || rem[0].Hash != "h2" || rem[0].Mode != "allow" || rem[0].Connection != "work" || rem[0].AllConnections {
		t.Errorf("remembered = %+v, want the allow of notes.send on work moved to h2", rem)
	}
	if err := db.Decide(ctx, p, "deny", false, "cli", "test", now); err == nil {
		t.Error("a second decision on the same input succeeded")
	}
}

// TestDropRetiredPins: the pins of tools and skills a source no longer
// lists are kept up to a count and a size of definitions, the newest
// first; those of what it lists, and of other sources, stay. Deleting
// any notes it for the source.
func TestDropRetiredPins(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	ctx := context.Background()
	t0 := time.UnixMilli(time.Now().UnixMilli())
	tx, err := db.BeginCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	def := []byte(`{"description":"` + strings.Repeat("x", 100) + `"}`) // 119 bytes
	// listed is listed; old0 (oldest) to old4 are not; skill:kept is a
	// listed skill's; other's belongs to another source.
	if err := tx.PutTool(ctx, "s", "listed", def, "h", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.tx.ExecContext(ctx, `INSERT INTO skills (source, path, entry, seen) VALUES ('s', 'kept', '{}', 0)`); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"listed", "skill:kept", "old0", "old1", "old2", "old3", "old4"} {
		if err := tx.PinFirst(ctx, "s", name, "h", def, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.PinFirst(ctx, "other", "old", "h", def, t0); err != nil {
		t.Fatal(err)
	}
	pinned := func(source string) []string {
		p, err := tx.PinHashes(ctx, source)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(maps.Keys(p))
	}
	for _, step := range []struct {
		keep     int
		maxBytes int64
		dropped  bool
		want     []string
	}{
		{10, 1 << 20, false, []string{"listed", "old0", "old1", "old2", "old3", "old4", "skill:kept"}},
		{3, 1 << 20, true, []string{"listed", "old2", "old3", "old4", "skill:kept"}},
		{3, 2*119 + 50, true, []string{"listed", "old3", "old4", "skill:kept"}},
	} {
		dropped, err := tx.DropRetiredPins(ctx, "s", step.keep, step.maxBytes, t0)
		if got := pinned("s"); err != nil || dropped != step.dropped || !slices.Equal(got, step.want) {
			t.Errorf("keep %d, %d bytes: pins %q, dropped %v (%v); want %q, %v", step.keep, step.maxBytes, got, dropped, err, step.want, step.dropped)
		}
	}
	if got := pinned("other"); !slices.Equal(got, []string{"old"}) {
		t.Errorf("another source's pins: %q", got)
	}
	for source, want := range map[string]bool{"s": true, "other": false} {
		if got, err := tx.PinsDropped(ctx, source); err != nil || got != want {
			t.Errorf("PinsDropped(%s) = %v, %v", source, got, err)
		}
	}
}
