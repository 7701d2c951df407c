package bleve

import (
	"fmt"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/search"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

const (
	tools = 10_000
	seed  = 1
	limit = 8
)

// tool is the Bleve document for a search.Doc.
type tool struct {
	Name        string `json:"name"`
	Namespace   string `json:"namespace"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Params      string `json:"params"`
	ParamDocs   string `json:"paramDocs"`
}

// splitIdent spells an identifier as words ("createIssue" ->
// "create Issue") so Bleve's analyzer sees what hub/search's tokenizer sees.
func splitIdent(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == '_' || r == '-' {
			b.WriteByte(' ')
			continue
		}
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func toTool(d search.Doc) tool {
	params := make([]string, len(d.Params))
	for i, p := range d.Params {
		params[i] = splitIdent(p)
	}
	return tool{
		Name:        splitIdent(d.Name) + " " + splitIdent(d.OrigName),
		Namespace:   splitIdent(d.Namespace),
		Title:       d.Title,
		Description: d.Description,
		Params:      strings.Join(params, " "),
		ParamDocs:   strings.Join(d.ParamDocs, " "),
	}
}

var fieldBoosts = func() map[string]float64 {
	o := search.DefaultOptions()
	return map[string]float64{
		"name":        o.Name.Weight,
		"namespace":   o.Namespace.Weight,
		"title":       o.Title.Weight,
		"description": o.Description.Weight,
		"params":      o.Params.Weight,
		"paramDocs":   o.ParamDocs.Weight,
	}
}()

func buildBleve(tb testing.TB, docs []search.Doc) bleve.Index {
	tb.Helper()
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = index.BM25Scoring
	dm := bleve.NewDocumentMapping()
	for f := range fieldBoosts {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		dm.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = dm
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		tb.Fatal(err)
	}
	batch := idx.NewBatch()
	for i, d := range docs {
		if err := batch.Index(fmt.Sprint(i), toTool(d)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := idx.Batch(batch); err != nil {
		tb.Fatal(err)
	}
	return idx
}

func bleveQuery(q string) *bleve.SearchRequest {
	var qs []query.Query
	for f, boost := range fieldBoosts {
		if boost == 0 {
			continue
		}
		mq := bleve.NewMatchQuery(q)
		mq.SetField(f)
		mq.SetBoost(boost)
		qs = append(qs, mq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), limit, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	return req
}

// TestSameCatalog checks that both engines find something for every
// benchmark query, so the timings compare real work.
func TestSameCatalog(t *testing.T) {
	docs := search.SyntheticCatalog(tools, seed)
	ix := search.Build(docs, nil)
	bl := buildBleve(t, docs)
	defer bl.Close()
	req := bleveQuery("list issues")
	req.Explain = true
	res, err := bl.Search(req)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("bleve search: %v, %d hits", err, len(res.Hits))
	}
	if expl := fmt.Sprint(res.Hits[0].Expl); !strings.Contains(expl, "bm25") {
		t.Errorf("bleve is not scoring with BM25: %s", expl)
	}
	for _, q := range search.SyntheticQueries(64, seed) {
		hits, total := ix.Search(q, "", limit)
		res, err := bl.Search(bleveQuery(q))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || len(res.Hits) == 0 {
			t.Errorf("%q: hub/search %d hits of %d, bleve %d hits of %d", q, len(hits), total, len(res.Hits), res.Total)
		}
	}
}

// BenchmarkSearch10k times one query per iteration in Bleve, then in
// hub/search, and reports how many times faster hub/search is.
func BenchmarkSearch10k(b *testing.B) {
	docs := search.SyntheticCatalog(tools, seed)
	queries := search.SyntheticQueries(64, seed)
	bl := buildBleve(b, docs)
	defer bl.Close()
	reqs := make([]*bleve.SearchRequest, len(queries))
	for i, q := range queries {
		reqs[i] = bleveQuery(q)
	}
	ix := search.Build(docs, nil)

	var bleveNs float64
	b.Run("bleve", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := bl.Search(reqs[i%len(reqs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		bleveNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("hub", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ix.Search(queries[i%len(queries)], "", limit)
			i++
		}
		if ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N); ns > 0 && bleveNs > 0 {
			b.ReportMetric(bleveNs/ns, "x-faster")
		}
	})
}

// BenchmarkBuild10k indexes the catalog in Bleve, then in hub/search, and
// reports how many times faster hub/search builds.
func BenchmarkBuild10k(b *testing.B) {
	docs := search.SyntheticCatalog(tools, seed)
	var bleveNs float64
	b.Run("bleve", func(b *testing.B) {
		for b.Loop() {
			bl := buildBleve(b, docs)
			bl.Close()
		}
		bleveNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("hub", func(b *testing.B) {
		for b.Loop() {
			search.Build(docs, nil)
		}
		if ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N); ns > 0 && bleveNs > 0 {
			b.ReportMetric(bleveNs/ns, "x-faster")
		}
	})
}
