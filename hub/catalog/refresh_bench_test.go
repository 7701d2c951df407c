package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// mapLister lists fixed tools by source.
type mapLister map[string][]*mcp.Tool

func (l mapLister) ListTools(_ context.Context, source string) ([]*mcp.Tool, error) {
	return l[source], nil
}

func (mapLister) OnToolsChanged(func(string)) {}

// catalogTools is n tools of source whose output schemas are about size
// bytes each, as a large REST catalog's responses are.
func catalogTools(source string, n, size int) []*mcp.Tool {
	out := make([]*mcp.Tool, n)
	for i := range out {
		props := make([]string, 0, size/40)
		for j := range size / 40 {
			props = append(props, fmt.Sprintf(`"field_%d_%d":{"type":"string","description":"field %d"}`, i, j, j))
		}
		out[i] = &mcp.Tool{
			Name:         fmt.Sprintf("%s_op_%d", source, i),
			Description:  fmt.Sprintf("Operation %d of %s.", i, source),
			InputSchema:  json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id_%d":{"type":"integer"}}}`, i)),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`),
		}
	}
	return out
}

// BenchmarkRefreshUnchanged refreshes a catalog of six sources (one of
// 1,200 tools with 6 KB output schemas, as GitHub's REST description
// lists, and five of 20) whose tools did not change, as the hub does when
// a person edits an unrelated setting, against the cold refresh that
// first stored them, in the same process: ms-unchanged and the ratio.
func BenchmarkRefreshUnchanged(b *testing.B) {
	ctx := context.Background()
	lister := mapLister{"big": catalogTools("big", 1200, 6000)}
	cfg := &config.Config{Sources: map[string]*config.Source{"big": {Command: "big"}}}
	for i := range 5 {
		name := fmt.Sprintf("small%d", i)
		lister[name] = catalogTools(name, 20, 400)
		cfg.Sources[name] = &config.Source{Command: name}
	}
	open := func() *Catalog {
		db, err := store.Open(ctx, filepath.Join(b.TempDir(), "state.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		c := New(db, lister, nil)
		b.Cleanup(c.Close)
		return c
	}
	refresh := func(c *Catalog) time.Duration {
		start := time.Now()
		for src, err := range c.Refresh(ctx, cfg) {
			if err != nil {
				b.Fatalf("%s: %v", src, err)
			}
		}
		return time.Since(start)
	}
	var cold, warm time.Duration
	rounds := 0
	c := open()
	cold += refresh(c)
	if n := len(c.Snapshot().Tools); n != 1300 {
		b.Fatalf("%d tools", n)
	}
	for b.Loop() {
		warm += refresh(c)
		rounds++
	}
	b.ReportMetric(float64(warm.Milliseconds())/float64(rounds), "ms-unchanged")
	b.ReportMetric(float64(cold.Milliseconds()), "ms-cold")
	b.ReportMetric(float64(warm)/float64(rounds)/float64(cold), "x-cold")
}

// TestRefreshReusesOnlyTheUnchanged: a refresh takes the tools whose
// definitions did not change from the snapshot before it, and reads and
// decodes the others; the snapshot is the one a catalog opened fresh
// over the same store reads, tool for tool, and a changed tool says what
// changed.
func TestRefreshReusesOnlyTheUnchanged(t *testing.T) {
	ctx := context.Background()
	lister := mapLister{}
	cfg := &config.Config{Sources: map[string]*config.Source{}}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		lister[name] = catalogTools(name, 90, 400) // more than maxPointReads in all
		cfg.Sources[name] = &config.Source{Command: name}
	}
	file := filepath.Join(t.TempDir(), "state.db")
	open := func() *Catalog {
		db, err := store.Open(ctx, file, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c := New(db, lister, nil)
		t.Cleanup(c.Close)
		return c
	}
	refresh := func(c *Catalog) *Snapshot {
		for src, err := range c.Refresh(ctx, cfg) {
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
		return c.Snapshot()
	}
	c := open()
	first := refresh(c)
	// One tool changes; a refresh of every source follows.
	changed := *lister["beta"][7]
	changed.Description = "Operation 7 of beta, now changed."
	lister["beta"][7] = &changed
	second := refresh(c)
	fresh := refresh(open())
	if len(second.Tools) != 270 || len(fresh.Tools) != 270 {
		t.Fatalf("%d tools, fresh %d", len(second.Tools), len(fresh.Tools))
	}
	for i, got := range second.Tools {
		want := fresh.Tools[i]
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tool %s: %+v\nread fresh: %+v", got.Address, got, want)
		}
		if got.Name == changed.Name {
			if !got.Changed() || got.Change != "description changed" || got.Description != changed.Description {
				t.Errorf("the changed tool: %+v", got)
			}
		} else if !reflect.DeepEqual(got, first.Tools[i]) {
			t.Errorf("tool %s changed in a refresh that did not change it", got.Address)
		}
	}
}

// TestReadPinnedOrigins: the pinned origins of a source are those of its
// pins' requests, and its server the newest pin's; a pin without a
// request, of another source, or not kept says nothing.
func TestReadPinnedOrigins(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "state.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginCatalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	at := time.Unix(1_700_000_000, 0)
	pin := func(source, name string, req *upstream.RESTRequest, kept bool, minutes int) {
		def, hash, err := Definition(&mcp.Tool{Name: name}, req)
		if err != nil {
			t.Fatal(err)
		}
		if !kept {
			def = nil
		}
		if err := tx.PinFirst(ctx, source, name, hash, def, at.Add(time.Duration(minutes)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	pin("api", "old", &upstream.RESTRequest{Method: "GET", Path: "/a", Server: "https://old.example.com/v1"}, true, 1)
	pin("api", "new", &upstream.RESTRequest{Method: "GET", Path: "/b", Server: "https://api.example.com/v2"}, true, 3)
	pin("api", "plain", nil, true, 5)
	pin("api", "unkept", &upstream.RESTRequest{Method: "GET", Path: "/c", Server: "https://unkept.example.com"}, false, 6)
	pin("other", "elsewhere", &upstream.RESTRequest{Method: "GET", Path: "/d", Server: "https://other.example.com"}, true, 7)
	p, err := readPinnedOrigins(ctx, tx, "api")
	if err != nil {
		t.Fatal(err)
	}
	if p.server != "https://api.example.com/v2" || len(p.origins) != 2 || p.foreign("https://old.example.com/v9") || p.foreign("https://api.example.com") || !p.foreign("https://other.example.com") {
		t.Errorf("pinned origins: server %q, origins %v", p.server, p.origins)
	}
}
