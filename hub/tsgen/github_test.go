package tsgen

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/upstream"
)

var github struct {
	once  sync.Once
	tools []Tool
	err   error
}

// githubTools is GitHub's REST description (the 1,222 of its operations
// on api.github.com) as the hub's OpenAPI source lists them, in namespace
// "gh".
func githubTools(tb testing.TB) []Tool {
	tb.Helper()
	doc, err := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(doc); err != nil {
		tb.Skipf("GitHub's description (make test runs npm ci): %v", err)
	}
	github.once.Do(func() {
		src := openapi.New(openapi.Options{})
		defer src.Close()
		src.SetConfig(&config.Config{Sources: map[string]*config.Source{"gh": {OpenAPI: doc}}})
		listed, err := src.ListTools(context.Background(), "gh")
		if partial := (*upstream.ListingLimitError)(nil); err != nil && !errors.As(err, &partial) {
			github.err = err
			return
		}
		var names []string
		for _, t := range listed {
			names = append(names, t.Name)
		}
		js := naming.ToolNames(names)
		for _, t := range listed {
			tool := Tool{Namespace: "gh", Name: js[t.Name], Title: t.Title, Description: t.Description}
			if tool.InputSchema, err = json.Marshal(t.InputSchema); err != nil {
				github.err = err
				return
			}
			if t.OutputSchema != nil {
				if tool.OutputSchema, err = json.Marshal(t.OutputSchema); err != nil {
					github.err = err
					return
				}
			}
			github.tools = append(github.tools, tool)
		}
	})
	if github.err != nil {
		tb.Fatal(github.err)
	}
	return github.tools
}

// TestIndexKeepsNames: the index a Catalog keeps holds no decoded schema,
// and the documents a call decodes again get the names the whole
// namespace's trees gave their objects, over the fixtures and GitHub's
// 1,222 operations.
func TestIndexKeepsNames(t *testing.T) {
	catalogs := map[string][]Tool{}
	for _, tool := range loadCatalog(t) {
		catalogs[tool.Namespace] = append(catalogs[tool.Namespace], tool)
	}
	catalogs["gh"] = githubTools(t)
	for ns, tools := range catalogs {
		built := newIndex(ns, tools)
		// Each document's objects' names, by position, as built.
		var want [][]string
		for _, d := range built.docs() {
			var names []string
			eachObject(built.trees[d].root, func(_ int, o *object) {
				names = append(names, built.names[o])
			})
			want = append(want, names)
		}
		ix := built.seal()
		for name, nt := range ix.types {
			if _, ok := nt.node.(*object); ok {
				t.Fatalf("%s: the sealed index keeps type %s's tree", ns, name)
			}
		}
		v := ix.view()
		for i, d := range ix.docs() {
			var got []string
			eachObject(v.root(d), func(_ int, o *object) {
				got = append(got, v.names[o])
			})
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Fatalf("%s: document %s decoded again names its objects otherwise (-built +again):\n%s", ns, d.rootName, diff)
			}
		}
		for _, name := range ix.order {
			nt := ix.types[name]
			if got := v.nameOf(v.node(nt)); nt.ord >= 0 && got != name {
				t.Errorf("%s: type %s's node, decoded again, is named %q", ns, name, got)
			}
		}
	}
}

// TestDescribeSameAfterNamespace: a tool's or a type's declaration is the
// same from a fresh Catalog as from one that described its whole
// namespace, and other tools, before.
func TestDescribeSameAfterNamespace(t *testing.T) {
	catalog := loadCatalog(t)
	var targets []string
	seen := map[string]bool{}
	for _, tool := range catalog {
		if !seen[tool.Namespace] {
			seen[tool.Namespace] = true
			targets = append(targets, tool.Namespace)
		}
		targets = append(targets, tool.Namespace+"."+tool.Name)
	}
	for ns := range seen {
		for _, name := range newIndex(ns, catalog).order {
			targets = append(targets, ns+"."+name)
		}
	}
	gh := githubTools(t)
	for _, name := range []string{"pullsList", "issuesCreate", "Issue"} {
		targets = append(targets, "gh."+name)
	}
	catalog = append(catalog, gh...)
	used := NewCatalog(catalog)
	for _, ns := range slices.Sorted(func(yield func(string) bool) {
		for ns := range seen {
			if !yield(ns) {
				return
			}
		}
	}) {
		if _, err := used.Describe([]string{ns}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := used.Describe([]string{"gh"}, nil); err != nil {
		t.Fatal(err)
	}
	for i, target := range targets {
		budgets := []int{300, DefaultBudget}
		if strings.HasPrefix(target, "gh.") {
			budgets = budgets[1:] // each fresh Catalog names GitHub's types again
		}
		for _, budget := range budgets {
			fresh, err := NewCatalog(catalog).Describe([]string{target}, &Options{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			again, err := used.Describe([]string{target}, &Options{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fresh, again); diff != "" {
				t.Errorf("describe %s within %d after its namespace differs (-fresh +after):\n%s", target, budget, diff)
			}
		}
		// And after another tool of the same catalog.
		if _, err := used.Describe([]string{targets[(i*7+3)%len(targets)]}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkDescribeGitHub describes one tool (gh.pullsList, whose result
// is a large type) and the whole namespace of GitHub's 1,222 operations:
// from a fresh Catalog, which names the namespace's types first, and from
// one that has, as the hub's does between catalog changes. It reports the
// heap the kept index holds after GC.
func BenchmarkDescribeGitHub(b *testing.B) {
	tools := githubTools(b)
	Tokens("load") // the tokenizer loads once per process
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, target := range []string{"gh.pullsList", "gh"} {
		b.Run(target+"/fresh", func(b *testing.B) {
			for b.Loop() {
				if _, err := NewCatalog(tools).Describe([]string{target}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(target+"/kept", func(b *testing.B) {
			before := heap()
			c := NewCatalog(tools)
			if _, err := c.Describe([]string{target}, nil); err != nil {
				b.Fatal(err)
			}
			kept := float64(int64(heap())-int64(before)) / (1 << 20)
			for b.Loop() {
				if _, err := c.Describe([]string{target}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(kept, "MB-kept") // after the loop, which resets the metrics
			runtime.KeepAlive(c)
		})
	}
}

// TestLineCounter: counting a text line by line, where lineCounter cuts
// it, gives Tokens's count of the whole, over declarations of every
// fixture and of GitHub's operations at every budget and in full, and
// over texts made to join lines.
func TestLineCounter(t *testing.T) {
	texts := []string{
		"", "\n", "a\n", "a;\n/b", "x\n\n\ty", "x \n\t\n y", "*/\n/** a */\n", "};\n\tfoo: string;\n}\n",
		"a\n\u00a0b\n", "a\n\t\v\nb", "a\n\t\u3000\nb", "a\r\nb\r\n\r\nc", "x\n  \n", "a\n\t", "é\n\tß\n漢字\n\tかな\n",
		"1234\n5678\n", "don't\n've\n", "a\n\x80b\n\xff\n", "  \n\n  x\n//y\n",
	}
	catalog := append(loadCatalog(t), githubTools(t)...)
	seen := map[string]bool{}
	var targets []string
	for i, tool := range catalog {
		if !seen[tool.Namespace] {
			seen[tool.Namespace] = true
			targets = append(targets, tool.Namespace)
		}
		if tool.Namespace != "gh" || i%40 == 0 {
			targets = append(targets, tool.Namespace+"."+tool.Name)
		}
	}
	c := NewCatalog(catalog)
	for _, target := range targets {
		for _, budget := range []int{100, DefaultBudget, 1 << 30} {
			if target == "gh" && budget == 1<<30 {
				// GitHub's whole namespace declared without a budget
				// is some 2 MB; counting it twice under -race took most
				// of this test's 25 s, and adds no kind of line the
				// others lack.
				continue
			}
			res, err := c.Describe([]string{target}, &Options{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, res.Text)
		}
	}
	for _, s := range texts {
		if got, want := (lineCounter{}).tokens(s), Tokens(s); got != want {
			t.Errorf("%d tokens line by line, %d whole: %q", got, want, s)
		}
	}
}
