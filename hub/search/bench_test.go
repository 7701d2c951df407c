package search

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

const (
	benchTools = 10_000
	bigTools   = 100_000
	benchSeed  = 1
)

// The benchmarks report, beside Go's own figures, ratios to a reference
// run in the same process, which a loaded or slower machine changes much
// less than the times themselves:
//
//   - x-tokenize: a Build against splitting every field of every doc into
//     words once, the least any index of the catalog must do;
//   - x-scan: a search against reading every posting of the request's
//     words and their synonyms once, which counting the matches (total)
//     needs anyway.
//
// Run them with
//
//	go test -bench . -run '^$' ./hub/search/

// BenchmarkBuild10k indexes the 10,000-tool synthetic catalog. It reports
// the heap the built index keeps per 1,000 tools.
func BenchmarkBuild10k(b *testing.B) { benchmarkBuild(b, benchTools) }

// BenchmarkBuild100k indexes the 100,000-tool synthetic catalog; the
// target is under 2 s per Build.
func BenchmarkBuild100k(b *testing.B) { benchmarkBuild(b, bigTools) }

func benchmarkBuild(b *testing.B, n int) {
	docs := SyntheticCatalog(n, benchSeed)
	ref := referenceTokenize(docs)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := Build(docs, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	perK := float64(after.HeapAlloc-before.HeapAlloc) / float64(n/1000)

	b.ReportAllocs()
	for b.Loop() {
		Build(docs, nil)
	}
	b.ReportMetric(perK, "bytes/1k-tools")
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(ref), "x-tokenize")
}

// referenceTokenize is the least time, over three runs, to split every
// field of every doc into words.
func referenceTokenize(docs []Doc) time.Duration {
	var buf []byte
	n := 0
	count := func(tok []byte) { n++ }
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		for i := range docs {
			d := &docs[i]
			for _, s := range [...]string{d.Namespace, d.Name, d.OrigName, d.Title, d.Description, d.Path} {
				buf = forEachToken(s, buf, count)
			}
			for _, s := range d.Params {
				buf = forEachToken(s, buf, count)
			}
			for _, s := range d.ParamDocs {
				buf = forEachToken(s, buf, count)
			}
		}
		best = min(best, time.Since(start))
	}
	return best
}

// BenchmarkSearch10k runs a fixed set of queries over the synthetic catalog,
// one query per iteration, limit 8 as the search tool's default.
func BenchmarkSearch10k(b *testing.B) { benchmarkSearch(b, SyntheticCatalog(benchTools, benchSeed)) }

// BenchmarkSearch100k is BenchmarkSearch10k over 100,000 tools; the target
// is a median (p50) under 0.3 ms.
func BenchmarkSearch100k(b *testing.B) { benchmarkSearch(b, SyntheticCatalog(bigTools, benchSeed)) }

// BenchmarkSearch100kUneven is BenchmarkSearch100k over namespaces of
// unlike size, which search weighs for each request (namespaces.go): nine
// tools in ten in one namespace, the rest in the catalog's others.
func BenchmarkSearch100kUneven(b *testing.B) {
	docs := SyntheticCatalog(bigTools, benchSeed)
	for i := range docs {
		if i%10 != 0 {
			docs[i].Namespace = "large"
		}
	}
	benchmarkSearch(b, docs)
}

func benchmarkSearch(b *testing.B, docs []Doc) {
	ix := Build(docs, nil)
	queries := SyntheticQueries(64, benchSeed)
	ref := make([]time.Duration, len(queries))
	for i, q := range queries {
		ref[i] = ix.referenceScan(q)
	}
	var times []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		ix.Search(queries[i%len(queries)], "", 8)
		times = append(times, time.Since(start))
		i++
	}
	slices.Sort(times)
	slices.Sort(ref)
	p50 := times[len(times)/2]
	b.ReportMetric(float64(p50.Nanoseconds())/1e6, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e6, "p99-ms")
	b.ReportMetric(float64(p50)/float64(ref[len(ref)/2]), "x-scan")
}

// referenceScan is the least time, over three runs, to read every posting
// of query's words and their synonyms once.
func (ix *Index) referenceScan(query string) time.Duration {
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	ix.analyze(sc, query)
	best := time.Duration(1 << 62)
	var sum float32
	for range 3 {
		start := time.Now()
		from := 0
		for _, end := range sc.ends {
			w := string(sc.stems[from:end])
			from = end
			ids := ix.synTerms[w]
			if id, ok := ix.terms[w]; ok {
				ids = append([]int32{id}, ids...)
			}
			for _, t := range ids {
				for _, p := range ix.postings[ix.offsets[t]:ix.offsets[t+1]] {
					sum += p.tf
				}
			}
		}
		best = min(best, time.Since(start))
	}
	runtime.KeepAlive(sum)
	return best
}

// BenchmarkSearch10kNamespace is BenchmarkSearch10k restricted to one
// namespace.
func BenchmarkSearch10kNamespace(b *testing.B) {
	docs := SyntheticCatalog(benchTools, benchSeed)
	ix := Build(docs, nil)
	queries := SyntheticQueries(64, benchSeed)
	ns := docs[0].Namespace
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)], ns, 8)
		i++
	}
}

func BenchmarkSearchParallel10k(b *testing.B) {
	ix := Build(SyntheticCatalog(benchTools, benchSeed), nil)
	queries := SyntheticQueries(64, benchSeed)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			ix.Search(queries[i%len(queries)], "", 8)
			i++
		}
	})
}

// BenchmarkUnknown100k is what the hub adds to a search that has words
// the best hit's namespace does not use: Unknown over the request (with
// a word no tool uses) in that namespace, beside the search itself in the
// same loop. Every word the catalog knows elsewhere is looked for among
// the namespace's tools, the most Unknown reads. It reports both medians
// and their ratio.
func BenchmarkUnknown100k(b *testing.B) {
	docs := SyntheticCatalog(bigTools, benchSeed)
	ix := Build(docs, nil)
	queries := SyntheticQueries(64, benchSeed)
	var searches, unknowns []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)] + " starships"
		start := time.Now()
		hits, _ := ix.Search(q, "", 8)
		mid := time.Now()
		if len(hits) > 0 && len(ix.Unknown(q, docs[hits[0].Doc].Namespace)) == 0 {
			b.Fatalf("Unknown(%q) found every word", q)
		}
		unknowns = append(unknowns, time.Since(mid))
		searches = append(searches, mid.Sub(start))
		i++
	}
	slices.Sort(searches)
	slices.Sort(unknowns)
	s, u := searches[len(searches)/2], unknowns[len(unknowns)/2]
	b.ReportMetric(float64(s.Nanoseconds())/1e6, "search-p50-ms")
	b.ReportMetric(float64(u.Nanoseconds())/1e6, "unknown-p50-ms")
	b.ReportMetric(float64(u)/float64(s), "x-search")
}
