package hub

import (
	"context"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/testwait"
)

// hangSource is a server that never answers the MCP handshake.
var hangSource = &config.Source{Command: "node", Args: []string{"-e", "setInterval(() => {}, 1000)"}}

// TestCachedCatalogAnswersAtOnce: sources the catalog listed before are
// never waited for, even while they start: search answers from the stored
// tools at once.
func TestCachedCatalogAnswersAtOnce(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"memory": memorySource(t)}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(home + "/config.json"); err != nil {
		t.Fatal(err)
	}
	opts := Options{Home: home, ConfigPoll: -1, Keychain: &svcMemKeychain{}}
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	h.Close()
	// The same source now takes forever to start; its tools are stored.
	cfg.Sources["memory"] = hangSource
	if err := cfg.Save(home + "/config.json"); err != nil {
		t.Fatal(err)
	}
	h, err = New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	listing := make(chan struct{})
	go func() {
		defer close(listing)
		h.Refresh(h.bg)
	}()
	testwait.For(t, 0, "the listing to start", func() bool { st, _ := h.catalog.Listings().Get("memory"); return st.Queued > 0 })
	start := time.Now()
	out, err := h.Search(context.Background(), SearchRequest{Query: "read the knowledge graph"})
	took := time.Since(start)
	if err != nil || !strings.Contains(out, "memory.readGraph(") {
		t.Fatalf("search from the stored catalog: %v\n%s", err, out)
	}
	select {
	case <-listing:
		t.Fatal("the listing of a source that never starts finished")
	default:
	}
	if took >= DefaultStartupWait/2 {
		t.Errorf("search took %v with a cached catalog; it waited for the start-up", took)
	}
}
