package search

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// An HTTP operation's path names the resources it acts on, outermost
// first: /repos/{owner}/{repo}/issues/{issue_number}/comments reaches the
// comments of an issue of a repository. Its fixed segments are indexed as a
// field of their own, and the second stage reads the action and the object
// from them (rerank.go).
//
// Two things about a path are the catalog's rather than the operation's:
//
//   - a prefix nearly all of a namespace's paths share (/rest/api/3 in
//     Jira's description, /v1 in many) names no resource and is left out;
//   - the segment the catalog keeps the caller's own things under: GitHub
//     puts them under /user ("List repositories for the authenticated
//     user"), others under /me or /myself, while Jira's /user takes any
//     user's account id. A first segment is the caller's when "me", "self"
//     or "myself", or when most of the tools under it (three at least) say
//     in their name or title that they act for the caller (selfPhrases).

// pathPrefix is the leading fixed segments nearly all paths of a namespace
// share.
type pathPrefix []string

// pathPrefixes finds, for each namespace with paths, the longest run of
// leading segments that nine in ten of its paths start with.
func pathPrefixes(docs []Doc) map[string]pathPrefix {
	byNS := map[string][]string{}
	for i := range docs {
		if docs[i].Path != "" {
			byNS[docs[i].Namespace] = append(byNS[docs[i].Namespace], docs[i].Path)
		}
	}
	out := map[string]pathPrefix{}
	for ns, paths := range byNS {
		if prefix := commonPrefix(paths); len(prefix) > 0 {
			out[ns] = prefix
		}
	}
	return out
}

// commonPrefix is the longest run of leading fixed segments that nine in
// ten of paths start with.
func commonPrefix(paths []string) pathPrefix {
	var prefix pathPrefix
	for {
		counts := map[string]int{}
		for _, p := range paths {
			fixed := pathFixed(p, nil, nil)
			if len(fixed) > len(prefix)+1 && slices.Equal(fixed[:len(prefix)], prefix) {
				counts[fixed[len(prefix)]]++
			}
		}
		next, n := "", 0
		for _, s := range slices.Sorted(maps.Keys(counts)) {
			if counts[s] > n {
				next, n = s, counts[s]
			}
		}
		if n < 2 || 10*n < 9*len(paths) {
			return prefix
		}
		prefix = append(prefix, next)
	}
}

// isParam reports whether a path segment is a parameter ({id}, :id).
func isParam(seg string) bool {
	return strings.HasPrefix(seg, "{") || strings.HasPrefix(seg, ":")
}

// containerFirst reports whether a parameter follows the first fixed
// segment of path after prefix, first: the segment names a container of
// what comes after it, as /orgs/{org} and /repos/{owner}/{repo} do.
func containerFirst(path string, prefix pathPrefix, first string) bool {
	skip := len(prefix)
	after := false
	for seg := range strings.SplitSeq(strings.Trim(path, "/"), "/") {
		switch {
		case after:
			return isParam(seg)
		case seg == "" || isParam(seg):
		case skip > 0:
			skip--
		default:
			after = seg == first
			if !after {
				return false
			}
		}
	}
	return false
}

// pathFixed appends to dst the fixed segments of path after prefix (when
// path starts with it).
func pathFixed(path string, prefix pathPrefix, dst []string) []string {
	dst = dst[:0]
	skip := len(prefix)
	for seg := range strings.SplitSeq(strings.Trim(path, "/"), "/") {
		if seg == "" || isParam(seg) {
			continue
		}
		dst = append(dst, seg)
	}
	if skip > 0 && len(dst) > skip && slices.Equal(dst[:skip], prefix) {
		dst = append(dst[:0], dst[skip:]...)
	}
	return dst
}

// pathItem reports whether path ends at one item (a parameter) rather
// than a collection.
func pathItem(path string) bool {
	p := strings.TrimRight(path, "/")
	return isParam(p[strings.LastIndexByte(p, '/')+1:])
}

// selfSegments finds the first path segments under which a catalog keeps
// the caller's things, per namespace: see the comment at the top of this
// file. self[i] says whether docs[i] acts for the caller by its name or
// title.
func selfSegments(docs []Doc, prefixes map[string]pathPrefix, self func(i int) bool) map[[2]string]bool {
	type tally struct{ all, self int }
	counts := map[[2]string]*tally{}
	var fixed []string
	for i := range docs {
		if docs[i].Path == "" {
			continue
		}
		fixed = pathFixed(docs[i].Path, prefixes[docs[i].Namespace], fixed)
		if len(fixed) == 0 {
			continue
		}
		k := [2]string{docs[i].Namespace, fixed[0]}
		c := counts[k]
		if c == nil {
			c = &tally{}
			counts[k] = c
		}
		c.all++
		if self(i) {
			c.self++
		}
	}
	out := map[[2]string]bool{}
	for _, k := range slices.SortedFunc(maps.Keys(counts), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		c := counts[k]
		switch strings.ToLower(k[1]) {
		case "me", "self", "myself":
			out[k] = true
		default:
			if c.all >= 3 && 2*c.self > c.all {
				out[k] = true
			}
		}
	}
	return out
}
