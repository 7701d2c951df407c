package tsgen

import "capabilities.sh/capabilities/internal/editdist"

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
	return editdist.Closest(s, editdist.LastPart(s), cands, n)
}
