package tsgen

import (
	"cmp"
	"slices"
	"strings"

	"capabilities.sh/capabilities/internal/editdist"
)

// unknownTarget builds the error for a target that names nothing, with the
// closest namespaces, tool addresses and (when the namespace exists) type
// names.
func unknownTarget(target string, catalog []Tool, ix *nsIndex) error {
	var cands []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			cands = append(cands, s)
		}
	}
	for _, t := range catalog {
		add(t.Namespace)
		add(t.Namespace + "." + t.Name)
	}
	if ix != nil {
		for _, name := range ix.order {
			add(ix.name + "." + name)
		}
	}
	return &UnknownTargetError{Target: target, Closest: closest(target, cands, 3)}
}

// closest returns up to n candidates near s by edit distance (ignoring
// case), counting a candidate that contains the last part of s as closer.
func closest(s string, cands []string, n int) []string {
	ls := strings.ToLower(s)
	last := ls
	if i := strings.LastIndex(ls, "."); i >= 0 {
		last = ls[i+1:]
	}
	type scored struct {
		s     string
		score int
	}
	var out []scored
	limit := max(2, len(ls)/3)
	for _, c := range cands {
		lc := strings.ToLower(c)
		d := editdist.Levenshtein(ls, lc)
		if len(last) >= 4 && strings.Contains(lc, last) {
			d = min(d, limit)
		}
		if d <= limit {
			out = append(out, scored{c, d})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.s, b.s))
	})
	var names []string
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].s)
	}
	return names
}
