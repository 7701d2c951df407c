// Package bleve benchmarks hub/search against Bleve on the same synthetic
// tool catalog and queries. It is its own module so that Bleve never
// enters the product's dependency graph; run it with
//
//	cd bench/bleve && go test -bench . -run '^$'
//
// Bleve gets the fields hub/search ranks (name, namespace, title,
// description, parameter names and descriptions) as text fields analysed
// with its English analyzer (Porter stemming, stop words), the same field
// boosts as search.DefaultOptions, and BM25 scoring (mapping.ScoringModel =
// index.BM25Scoring) on an in-memory scorch index.
package bleve
