package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
)

// TestStoreKeepsListedOrder: the store keeps a definition with its
// schemas' members as listed, so declarations follow the author's order
// (an operation's parameters as its description lists them). A store
// written by an earlier version, which kept them sorted, holds the listed
// form after the next listing, with the same hash and pin: nothing asks
// again, and the catalog serves it as listed from then on. A changed tool's accepted definition is handed out sorted, as its
// current one is, for the two to line up.
func TestStoreKeepsListedOrder(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "state.db")
	db, err := store.Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := `{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"enum":["open","closed"]},"head":{"type":"string"}},"required":["owner","repo"]}`
	list := &partLister{tools: []*mcp.Tool{{Name: "pulls_list", InputSchema: json.RawMessage(schema)}}}
	listed, hash, err := Definition(list.tools[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	sorted, err := canonicalJSON(json.RawMessage(listed))
	if err != nil {
		t.Fatal(err)
	}
	// As an earlier version stored it; its pin kept as listed.
	tx, err := db.BeginCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := tx.PutTool(ctx, "gh", "pulls_list", sorted, hash, now); err != nil {
		t.Fatal(err)
	}
	if err := tx.PinFirst(ctx, "gh", "pulls_list", hash, listed, now); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	cfg := &config.Config{Sources: map[string]*config.Source{"gh": {Command: "gh"}}}
	refresh := func(c *Catalog) {
		t.Helper()
		for src, err := range c.Refresh(ctx, cfg) {
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
	}
	c := New(db, list, nil)
	if err := c.Load(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	wasSorted := mustSchema(t, c, "gh.pullsList")
	refresh(c)
	// The same catalog serves it as listed at once, as a new snapshot.
	if got := mustSchema(t, c, "gh.pullsList"); got == wasSorted || got != schema {
		t.Errorf("after listing: input schema %s, want %s (loaded as %s)", got, schema, wasSorted)
	}
	c.Close()
	tools, err := db.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || !bytes.Equal(tools[0].Definition, listed) || tools[0].Hash != hash || tools[0].Pinned != hash {
		t.Fatalf("stored after listing: %+v\nwant definition %s, hash and pin %s", tools, listed, hash)
	}

	// A new catalog reads it as listed.
	c = New(db, list, nil)
	defer c.Close()
	if err := c.Load(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	tool, ok := c.Snapshot().Lookup("gh.pullsList")
	if !ok || tool.Changed() || string(tool.InputSchema) != schema {
		t.Fatalf("loaded: %+v, want unchanged with input schema %s", tool, schema)
	}

	// Changed: the accepted definition, stored as listed, comes sorted.
	list.tools = []*mcp.Tool{{Name: "pulls_list", Description: "Lists pull requests.", InputSchema: json.RawMessage(schema)}}
	refresh(c)
	tool, ok = c.Snapshot().Lookup("gh.pullsList")
	if !ok || !tool.Changed() {
		t.Fatalf("after a new description: %+v, want changed", tool)
	}
	was, is, _, err := c.Snapshot().ChangedDefinition("gh.pullsList")
	if err != nil {
		t.Fatal(err)
	}
	for _, def := range []json.RawMessage{was, is} {
		if canon, err := canonicalJSON(def); err != nil || !bytes.Equal(canon, def) {
			t.Errorf("a changed tool's definition is not in canonical form: %s", def)
		}
	}
	if !bytes.Equal(was, sorted) {
		t.Errorf("accepted definition %s, want %s", was, sorted)
	}
}

// mustSchema is the input schema of the tool at address in c's snapshot.
func mustSchema(t *testing.T, c *Catalog, address string) string {
	t.Helper()
	tool, ok := c.Snapshot().Lookup(address)
	if !ok {
		t.Fatalf("no %s in the catalog", address)
	}
	return string(tool.InputSchema)
}
