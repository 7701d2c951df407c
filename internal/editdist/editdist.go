// Package editdist measures how far apart two words are, for the
// "did you mean" hints of the CLI, the config and the policy.
package editdist

import (
	"cmp"
	"slices"
	"strings"
)

// Levenshtein is the number of single-rune insertions, deletions and
// substitutions that turn a into b.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Closest returns up to n of cands near s by edit distance, ignoring case,
// nearest first and then in name order. A candidate that contains part (in
// lower case, at least 4 bytes long) counts as close whatever its
// distance, so "issues" finds "github.searchIssues".
func Closest(s, part string, cands []string, n int) []string {
	ls := strings.ToLower(s)
	type scored struct {
		s string
		d int
	}
	var out []scored
	limit := max(2, len(ls)/3)
	for _, c := range cands {
		lc := strings.ToLower(c)
		d := Levenshtein(ls, lc)
		if len(part) >= 4 && strings.Contains(lc, part) {
			d = min(d, limit)
		}
		if d <= limit {
			out = append(out, scored{c, d})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.s, b.s)) })
	var names []string
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].s)
	}
	return names
}

// LastPart is s in lower case after its last ".", or all of it.
func LastPart(s string) string {
	ls := strings.ToLower(s)
	if i := strings.LastIndex(ls, "."); i >= 0 {
		return ls[i+1:]
	}
	return ls
}
