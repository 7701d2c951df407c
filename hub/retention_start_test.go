package hub

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
)

// TestRetentionOnItsOwn (issue 14 item 13): nobody calls Prune; a hub
// opened on a home whose finished runs exceed config.json's retention
// deletes the oldest and shrinks the files by itself.
func TestRetentionOnItsOwn(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	// The runs are made under the default budget; the smaller one is set
	// while no hub runs.
	cfg := testConfig(map[string]*config.Source{"blobs": {URL: httpUpstream(t, blobServer(200<<10), "", "").URL}})
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHubAt(t, home)
	if errs := h.Refresh(ctx); len(errs) > 0 {
		h.Close()
		t.Fatal(errs)
	}
	var first string
	for i := range 30 {
		env := execOn(t, h, `const b = await blobs.getBlob({}); return b.length;`)
		if env.Status != StatusCompleted {
			h.Close()
			t.Fatal(env.Line())
		}
		if i == 0 {
			first = env.RunID
		}
	}
	runs := func(h *Hub) int {
		var n int
		if err := rawQueryRow(t, h.db, `SELECT COUNT(*) FROM runs`, nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The hub that made them applied retention when it started, with none.
	if n := runs(h); n != 30 {
		h.Close()
		t.Fatalf("%d runs before the restart, want 30", n)
	}
	grown := dbFileBytes(t, h)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Retention = config.Retention{MaxSizeMB: 1}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}

	h = openHubAt(t, home)
	defer h.Close()
	waitFor(t, time.Minute, "retention at start-up", func() bool { return runs(h) <= 6 })
	if _, err := h.Execute(ctx, ExecuteRequest{Resume: first}); err == nil {
		t.Error("the oldest run was kept")
	}
	waitFor(t, time.Minute, "the files to shrink", func() bool { return dbFileBytes(t, h) < grown/2 })
}
