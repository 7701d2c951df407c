package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestHostileHomeStaysResponsive opens a hub on a home with every hostile
// input at once: a 64 GB SKILL.md and a 64 GB OpenAPI document (sparse),
// a document nested 2,000 levels deep and one whose shared schema would
// fill 60 MB of operations. Refresh reports each source's limit, search
// answers, the Go heap allocations stay bounded (in-process, TotalAlloc),
// and Close returns.
func TestHostileHomeStaysResponsive(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	dir := t.TempDir()
	hubtest.Sparse(t, filepath.Join(home, "skills", "huge", "SKILL.md"), 64<<30)
	huge := filepath.Join(dir, "huge.json")
	hubtest.Sparse(t, huge, 64<<30)
	deep := filepath.Join(dir, "deep.json")
	shared := filepath.Join(dir, "shared.json")
	for p, b := range map[string][]byte{deep: hubtest.DeepSchemaDoc(2000), shared: hubtest.SharedSchemaDoc(200, 300)} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{Sources: map[string]*config.Source{"huge": {OpenAPI: huge}, "deep": {OpenAPI: deep}, "shared": {OpenAPI: shared}}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	var h *Hub
	var errs map[string]error
	var found string
	n := hubtest.Allocated(func() {
		var err error
		if h, err = New(ctx, Options{Home: home, ConfigPoll: -1}); err != nil {
			t.Fatal(err)
		}
		errs = h.Refresh(ctx)
		if found, err = h.Search(ctx, SearchRequest{Query: "anything"}); err != nil {
			t.Fatal(err)
		}
	})
	for src, want := range map[string]string{
		"huge":   "the limit of an OpenAPI document's size",
		"deep":   "the limit of an OpenAPI document's nesting",
		"shared": "the limit of one document's schemas",
	} {
		if errs[src] == nil || !strings.Contains(errs[src].Error(), want) {
			t.Errorf("source %s: %v; want %q", src, errs[src], want)
		}
	}
	if strings.Contains(found, "skill:huge") {
		t.Errorf("the 64 GB skill is served:\n%s", found)
	}
	t.Logf("the hostile home allocated %d MB of Go heap in all", n>>20)
	if n > hubtest.RaceScaled(512<<20) {
		t.Errorf("the hostile home cost %d MB of allocations", n>>20)
	}
	if err := h.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
