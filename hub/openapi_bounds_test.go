package hub

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deepSchemaDoc is a document whose one component nests n objects.
func deepSchemaDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Deep"}}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":{"Deep":`)
	for range n {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range n {
		b.WriteString(`}}`)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// sharedSchemaDoc is a document with ops operations that each take and
// return one shared component of about kb KB: small as a document, each
// operation's schemas hold the component whole.
func sharedSchemaDoc(ops, kb int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{`)
	for i := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/op%d":{"post":{"operationId":"op%d","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"200":{"description":"ok"}}}}`, i, i)
	}
	b.WriteString(`},"components":{"schemas":{"Big":{"type":"object","properties":{`)
	for i := range kb * 1024 / 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","description":"%s"}`, i, strings.Repeat("x", 24))
	}
	b.WriteString(`}}}}}`)
	return []byte(b.String())
}

// TestOpenAPIDocumentBounds hits each bound of an OpenAPI document with a
// hostile one, and checks the error names the limit and the place, and
// that the hub's Go heap allocations (in-process, TotalAlloc, which counts
// what was read and dropped too) stay far below what the document would
// cost unbounded.
func TestOpenAPIDocumentBounds(t *testing.T) {
	ctx := context.Background()

	// A 64 GB file (sparse: no disk) is refused by its size, unread.
	big := filepath.Join(t.TempDir(), "huge.json")
	sparse(t, big, 64<<30)
	var err error
	n := allocated(func() { _, err = readOpenAPI(ctx, http.DefaultClient, big) })
	if err == nil || !strings.Contains(err.Error(), big+": it is 65536.0 MB, above 32 MB, the limit of an OpenAPI document's size; nothing of it was read") || n > 1<<20 {
		t.Errorf("a 64 GB file: %v (%d bytes allocated)", err, n)
	}

	// Over HTTP: an answer that says it is 1 GB is refused before its body
	// is read; one that does not say, and does not end, is cut at the limit.
	sent := make(chan int64, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		}
		chunk := make([]byte, 64<<10)
		var total int64
		defer func() { sent <- total }()
		for total < 1<<30 {
			k, err := w.Write(chunk)
			total += int64(k)
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	n = allocated(func() { _, err = readOpenAPI(ctx, srv.Client(), srv.URL+"/declared") })
	if err == nil || !strings.Contains(err.Error(), "it is 1024.0 MB, above 32 MB, the limit of an OpenAPI document's size") || n > 1<<20 {
		t.Errorf("an answer of 1 GB by its length: %v (%d bytes allocated)", err, n)
	}
	<-sent
	n = allocated(func() { _, err = readOpenAPI(ctx, srv.Client(), srv.URL+"/endless") })
	if err == nil || !strings.Contains(err.Error(), "it is longer than 32 MB, the limit of an OpenAPI document's size") || n > 200<<20 {
		t.Errorf("an endless answer: %v (%d bytes allocated)", err, n)
	}
	if got := <-sent; got >= 1<<30 {
		t.Errorf("the whole endless answer was read: %d bytes", got)
	}

	// 2,000 nested objects in 70 KB: refused before the model is built (it
	// costs the builder seconds and hundreds of MB), with the place.
	deep := deepSchemaDoc(2000)
	n = allocated(func() { _, err = parseOpenAPI("deep.json", deep) })
	if err == nil || !strings.Contains(err.Error(), "deep.json: it nests objects and arrays more than 100 levels deep at /components/schemas/Deep/properties/a/properties/a/") ||
		!strings.Contains(err.Error(), "(line 1), the limit of an OpenAPI document's nesting") || n > 64<<20 {
		t.Errorf("a deep document: %v (%d bytes allocated)", err, n)
	}
	// Within the limit, the same shape is served.
	if _, err := parseOpenAPI("ok.json", deepSchemaDoc(20)); err != nil {
		t.Errorf("20 levels: %v", err)
	}

	// A 300 KB component shared by 200 operations: 600 KB of document,
	// 60 MB of schemas if each operation held it; refused where the sum
	// passes its limit.
	shared := sharedSchemaDoc(200, 300)
	n = allocated(func() { _, err = parseOpenAPI("shared.json", shared) })
	if err == nil || !strings.Contains(err.Error(), "shared.json: the schemas of its operations pass 32 MB at POST /op") ||
		!strings.Contains(err.Error(), "(the limit of one document's schemas, where a shared schema counts in each operation that uses it)") {
		t.Errorf("a shared schema in 200 operations: %v", err)
	}
	if n > raceScaled(400<<20) {
		t.Errorf("the shared schema allocated %d MB", n>>20)
	}
	// One operation over its own limit is left out, and said so.
	doc, err := parseOpenAPI("one.json", sharedSchemaDoc(1, 1100))
	if err != nil || len(doc.tools) != 0 || len(doc.skipped) != 1 ||
		!strings.Contains(doc.skipped[0], "skipped POST /op0: its schemas are 1.1 MB, above 1.0 MB, the limit of one operation's schemas") {
		t.Errorf("an operation over its limit: %v, skipped %q", err, doc.skipped)
	}
}

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
	sparse(t, filepath.Join(home, "skills", "huge", "SKILL.md"), 64<<30)
	huge := filepath.Join(dir, "huge.json")
	sparse(t, huge, 64<<30)
	deep := filepath.Join(dir, "deep.json")
	shared := filepath.Join(dir, "shared.json")
	for p, b := range map[string][]byte{deep: deepSchemaDoc(2000), shared: sharedSchemaDoc(200, 300)} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &Config{Sources: map[string]*Source{"huge": {OpenAPI: huge}, "deep": {OpenAPI: deep}, "shared": {OpenAPI: shared}}, Policy: map[string]Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	var h *Hub
	var errs map[string]error
	var found string
	n := allocated(func() {
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
	if n > raceScaled(512<<20) {
		t.Errorf("the hostile home cost %d MB of allocations", n>>20)
	}
	if err := h.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// raceScaled is an allocation bound as the race detector sees it: its
// instrumentation makes the same parse allocate about 1.8 times as much
// (the hostile home: 346 MB without it, 611 MB with it), so the bound
// doubles. Without the document bounds these parses allocate gigabytes.
func raceScaled(n uint64) uint64 {
	if raceEnabled {
		return 2 * n
	}
	return n
}
