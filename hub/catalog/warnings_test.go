package catalog

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// partLister lists fixed tools, served in part while warn is set.
type partLister struct {
	tools []*mcp.Tool
	warn  string
}

func (l *partLister) ListTools(_ context.Context, source string) ([]*mcp.Tool, error) {
	if l.warn != "" {
		return l.tools, &upstream.ListingLimitError{Source: source, Warnings: []string{l.warn}}
	}
	return l.tools, nil
}

func (*partLister) OnToolsChanged(func(string)) {}

// TestWarningsReachSubscribers: what a listing skipped can change while
// the tools listed do not (a catalog loaded from the store at start, then
// listed). The subscribers, which tell the window, hear of it, and of
// nothing when neither changed.
func TestWarningsReachSubscribers(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	lister := &partLister{tools: catalogTools("api", 3, 100)}
	c := New(db, lister, nil)
	t.Cleanup(c.Close)
	cfg := &config.Config{Sources: map[string]*config.Source{"api": {Command: "api"}}}
	heard := 0
	c.Subscribe(func(*Snapshot) { heard++ })
	refresh := func() {
		t.Helper()
		for src, err := range c.Refresh(ctx, cfg) {
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
	}
	refresh()
	if heard != 1 {
		t.Fatalf("the first listing: %d notices", heard)
	}
	lister.warn = "skipped POST /upload: its own server is not on the API's origin"
	refresh()
	if heard != 2 || !slices.Equal(c.Warnings("api"), []string{lister.warn}) {
		t.Fatalf("a listing served in part with the same tools: %d notices, warnings %q", heard, c.Warnings("api"))
	}
	refresh()
	if heard != 2 {
		t.Fatalf("the same listing again: %d notices", heard)
	}
	lister.warn = ""
	refresh()
	if heard != 3 || len(c.Warnings("api")) != 0 {
		t.Fatalf("the listing whole again: %d notices, warnings %q", heard, c.Warnings("api"))
	}
}
