package search

import (
	"runtime"
	"testing"
)

const (
	benchTools = 10_000
	benchSeed  = 1
)

// BenchmarkBuild10k indexes the 10,000-tool synthetic catalog; the target
// is under 100 ms per Build. It reports the heap the built index keeps per
// 1,000 tools.
func BenchmarkBuild10k(b *testing.B) {
	docs := SyntheticCatalog(benchTools, benchSeed)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := Build(docs, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	perK := float64(after.HeapAlloc-before.HeapAlloc) / (benchTools / 1000)

	b.ReportAllocs()
	for b.Loop() {
		Build(docs, nil)
	}
	b.ReportMetric(perK, "bytes/1k-tools")
}

// BenchmarkSearch10k runs a fixed set of queries over the synthetic catalog,
// one query per iteration, limit 8 as the search tool's default.
func BenchmarkSearch10k(b *testing.B) {
	ix := Build(SyntheticCatalog(benchTools, benchSeed), nil)
	queries := SyntheticQueries(64, benchSeed)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)], "", 8)
		i++
	}
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
