package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergedPostings: a word that expands to several terms is scored from
// one merged list once its list is made, and the ranking, the scores and
// the total are those of adding up its terms' lists, with or without a
// namespace; the lists kept never hold more postings than their budget.
func TestMergedPostings(t *testing.T) {
	docs := SyntheticCatalog(3_000, benchSeed)
	queries := append(SyntheticQueries(64, benchSeed), "show me my files", "remove the folder", "what is in the directory")
	merged, summed := Build(docs, nil), Build(docs, nil)
	summed.mergedLeft.Store(0) // no list fits: every word adds its terms up
	const budget = 20_000
	merged.mergedLeft.Store(budget)
	for _, ns := range []string{"", docs[0].Namespace} {
		for _, q := range queries {
			for range 2 { // the second search reads the lists the first made
				want, wantTotal := summed.Search(q, ns, 20)
				got, total := merged.Search(q, ns, 20)
				if total != wantTotal || !cmp.Equal(got, want) {
					t.Fatalf("Search(%q, %q): %v (%d), want %v (%d)", q, ns, got, total, want, wantTotal)
				}
			}
		}
	}
	lists, held := 0, int64(0)
	merged.mergedLists.Range(func(_, v any) bool {
		lists++
		held += int64(len(v.([]posting)))
		return true
	})
	if lists == 0 {
		t.Fatal("no word's list was merged")
	}
	if held > budget || merged.mergedLeft.Load() != budget-held {
		t.Errorf("%d merged lists hold %d postings, %d left of %d", lists, held, merged.mergedLeft.Load(), budget)
	}
	summed.mergedLists.Range(func(k, _ any) bool {
		t.Errorf("a list was kept past its budget: %q", k)
		return true
	})
}
