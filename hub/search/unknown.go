package search

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What a search could not read, and the words it can. A request in words
// no tool uses ("find the starship Enterprise" over a catalog that says
// spacecraft) ranks on its other words, and its first hits say nothing of
// what it asked for. The caller, a model that knows a starship is a
// spacecraft, can ask again in the catalog's words once it knows which of
// its words were not read (Unknown) and what the catalog's resources are
// called (Resources).

// Unknown returns the words of query that no tool of namespace uses (of
// the catalog, with ""), nor any word the index reads for them (a synonym,
// an acronym's long form, a verb of its own vocabulary), lower-cased, in
// the order written, each once. It leaves out stop words and what names a
// value rather than a thing: a word with a capital after the request's
// first word (a name: Enterprise, Erin), digits or other marks (README.md,
// PROJ-7, 2.0), a time ("friday", "yesterday"), a word that names no
// thing ("much", "anywhere"; fillerWords), text in quotes or that a
// message is to say ("with the message fix typo"), a name after "called",
// "named" or "titled" (and that word), a word in lower case where a
// request names someone ("add bob to the team", personAt) or something
// ("the acme org", kindAfter), and text beyond ASCII letters (other
// scripts are read as character pairs).
func (ix *Index) Unknown(query, namespace string) []string {
	ns := int32(-1)
	if namespace != "" {
		id, ok := ix.nsIDs[namespace]
		if !ok {
			return nil
		}
		ns = id
	}
	var out []string
	var buf [maxUnknownLen]byte
	quoted, named, noVerb := false, false, false
	// A two-word verb reads as its plain verb ("turn off the workflow":
	// disable), as Search reads it; a word the request does not say is
	// not reported.
	query = withoutQuotedText(query)
	plain := plainVerb(query)
	said := strings.Fields(query)
	fields := said
	if plain != query {
		fields = strings.Fields(plain)
	}
	for i, w := range fields {
		if plain != query && !slices.Contains(said, w) {
			continue
		}
		// The name after "called" ("a folder called reports") is a
		// value, which Search leaves out too (stripValues), and
		// "called" says only that one follows.
		wasNamed := named
		named = namesNext(w)
		if i == 0 {
			// "which ...", "the ...": no verb first.
			noVerb = whWords[strings.ToLower(w)] || determiners[strings.ToLower(w)]
		}
		// Text in quotes is a value's: a filter named "my open bugs".
		opens := strings.HasPrefix(w, "\"") || strings.HasPrefix(w, "\u201c")
		closes := len(w) > 1 && (strings.HasSuffix(w, "\"") || strings.HasSuffix(w, "\u201d"))
		inQuotes := quoted || opens
		quoted = inQuotes && !closes
		w = strings.TrimRight(strings.TrimLeft(w, edgeMarks), edgeMarks)
		bare := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "\u2019s")
		possessive, w := bare != w, bare
		if inQuotes || wasNamed || named || len(w) < 2 || len(w) > maxUnknownLen || !plainWord(w, i == 0) {
			continue
		}
		lower := appendLower(buf[:0], w)
		if _, stop := stopWords[string(lower)]; stop || selfWords[string(lower)] || timeWords[string(lower)] || fillerWords[string(lower)] || string(lower) == "who" {
			continue
		}
		if ix.reads(lower, ns) || slices.Contains(out, string(lower)) {
			continue
		}
		if personWord(lower) && (personAt(fields, i, possessive, noVerb) || ix.kindAfter(fields, i)) {
			// Where a request names someone ("dave's repos", "invite
			// carol", "add bob to the team", "assigned to bob") or
			// something ("the acme org"): a name, in lower case.
			continue
		}
		out = append(out, string(lower))
	}
	return out
}

// edgeMarks are the marks a word of a request may stand between ("why
// not?", "(the audit log)").
const edgeMarks = "\"'`()[],.;:!?“”‘’"

// maxUnknownLen is the longest word Unknown reports: a longer run of
// letters is no word a person types.
const maxUnknownLen = 40

// plainWord reports whether w is ASCII letters, lower-case but for a
// capital first letter when w begins the request ("Find the ...").
func plainWord(w string, first bool) bool {
	if !asciiLetters(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if c := w[k]; 'A' <= c && c <= 'Z' && (k > 0 || !first) {
			return false
		}
	}
	return true
}

// reads reports whether the index reads the lower-cased word w in
// namespace ns (any, when -1): a tool there uses it, in it or without an
// un- ("unwatch"), or a word the index puts for it (a synonym, an
// acronym's long form), or it is a verb of the index's own vocabulary of
// requests.
func (ix *Index) reads(w []byte, ns int32) bool {
	var buf [maxUnknownLen]byte
	s := stem(append(buf[:0], w...))
	if actionVerbs[string(s)] != 0 || readVerbs[string(s)] {
		return true
	}
	if id, ok := ix.terms[string(s)]; ok && ix.usedIn(id, ns) {
		return true
	}
	for _, t := range ix.synTerms[string(s)] {
		if ix.usedIn(t, ns) {
			return true
		}
	}
	if _, _, ok := ix.acronym(string(w)); ok {
		return true
	}
	if len(w) > 4 && string(w[:2]) == "un" {
		return ix.reads(w[2:], ns)
	}
	return false
}

// usedIn reports whether a tool of namespace ns (any, when -1) has term t.
func (ix *Index) usedIn(t, ns int32) bool {
	if ns < 0 {
		return true
	}
	for _, p := range ix.postings[ix.offsets[t]:ix.offsets[t+1]] {
		if ix.docNS[p.doc] == ns {
			return true
		}
	}
	return false
}

// Resources returns the resources the paths of one source's operations
// name, most operations first: each fixed segment after the prefix nine
// in ten of them share (/v1/customers/{customer}/sources: customers and
// sources), and of a segment that names a method (Slack's
// /chat.postMessage) the part before its first dot. It leaves out a
// segment that is an action (search, list) or holds more than letters and
// the marks of a name (_ and -), and counts a segment once a path. Ties go
// in alphabetical order.
func Resources(paths []string) []string {
	prefix := commonPrefix(paths)
	counts := map[string]int{}
	var fixed []string
	for _, p := range paths {
		fixed = pathFixed(p, prefix, fixed)
		countResources(counts, fixed, prefix)
	}
	return rankResources(counts)
}

// countResources counts in counts the resources the fixed segments of one
// path name, past prefix (Resources). A name new to counts is copied, so
// that it keeps no path alive.
func countResources(counts map[string]int, fixed []string, prefix pathPrefix) {
	for k, seg := range fixed {
		name, _, _ := strings.Cut(seg, ".")
		if !resourceName(name) || slices.Contains(prefix, name) || slices.Contains(fixed[:k], seg) {
			continue
		}
		if _, ok := counts[name]; !ok {
			name = strings.Clone(name)
		}
		counts[name]++
	}
}

// rankResources returns the names of counts that are no action, most
// counted first, ties in alphabetical order.
func rankResources(counts map[string]int) []string {
	var names []string
	for name := range counts {
		if actionVerbs[string(stem([]byte(strings.ToLower(name))))] == 0 {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})
	return names
}

// maxResourcesNamed bounds the resources UnknownNote names: about a
// hundred and fifty tokens.
const maxResourcesNamed = 40

// UnknownNote is what a search answer that shows the docs shown, best
// first, says after them when the tools of the first one's namespace (of
// namespace, when given) do not use some words of query (Unknown): those
// words, and the resources the paths of its docs the caller does not hide
// name (at most 40) or, without paths, how to list its tools when the
// answer shows fewer than it has. The model, which knows a starship is a
// spacecraft, can then ask again in the catalog's words. It is "" when
// they use every word, when nothing is shown, and when a hidden doc (a
// skill) comes first without namespace: its words are its own. It ends
// with a newline.
func (ix *Index) UnknownNote(query, namespace string, shown []int) string {
	if len(shown) == 0 || namespace == "" && ix.isHidden(shown[0]) {
		return ""
	}
	ns, ok := ix.nsIDs[namespace]
	if namespace == "" {
		ns, ok = ix.docNS[shown[0]], true
		namespace = ix.nsNames[ns]
	}
	words := ix.Unknown(query, namespace)
	if !ok || len(words) == 0 {
		return ""
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = strconv.Quote(w)
	}
	var b strings.Builder
	if len(words) == 1 {
		fmt.Fprintf(&b, "No tool of %s uses the word %s.", namespace, quoted[0])
	} else {
		fmt.Fprintf(&b, "No tool of %s uses the words %s and %s.", namespace, strings.Join(quoted[:len(quoted)-1], ", "), quoted[len(quoted)-1])
	}
	switch names := ix.resources[ns]; {
	case len(names) == 0:
		// No paths to name resources by: its tools' names say them, and
		// a listing of the namespace shows those the answer does not.
		tools, listed := 0, 0
		for _, d := range ix.byNS[ns] {
			if !ix.isHidden(int(d)) {
				tools++
			}
		}
		for _, d := range shown {
			if !ix.isHidden(d) && ix.docNS[d] == ns {
				listed++
			}
		}
		if tools > listed {
			fmt.Fprintf(&b, " List its %d tools with namespace %s and an empty query.", tools, strconv.Quote(namespace))
		}
	case len(names) <= maxResourcesNamed:
		fmt.Fprintf(&b, " Its resources, to search by: %s.", strings.Join(names, ", "))
	default:
		fmt.Fprintf(&b, " Its resources, most operations first, to search by: %s and %d more.", strings.Join(names[:maxResourcesNamed], ", "), len(names)-maxResourcesNamed)
	}
	return b.String() + "\n"
}

// isHidden reports whether doc d is one the caller hides (Doc.Hidden).
func (ix *Index) isHidden(d int) bool { return ix.hidden[d>>6]&(1<<(d&63)) != 0 }

// maxResourceLen is the longest path segment Resources reports: a name
// longer than that is no resource's.
const maxResourceLen = 64

// resourceName reports whether a path segment can name a resource: up to
// maxResourceLen letters, with _ or - between words, starting with a
// letter.
func resourceName(seg string) bool {
	if seg == "" || len(seg) > maxResourceLen || !('a' <= seg[0]|0x20 && seg[0]|0x20 <= 'z') {
		return false
	}
	for k := 0; k < len(seg); k++ {
		if c := seg[k]; !('a' <= c|0x20 && c|0x20 <= 'z') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// personAt reports whether fields[i] stands where a request names
// someone: with an 's and no article ("dave's repos", not "the
// starship's crew"), after "to", "from" or "by", or right after the
// request's first word, a verb, with nothing or a stop word after it
// ("invite carol", "add bob to the team", where "delete old rows" and
// "make promo code" name a kind of thing).
func personAt(fields []string, i int, possessive, noVerb bool) bool {
	prev := ""
	if i > 0 {
		prev = strings.ToLower(fields[i-1])
	}
	switch {
	case possessive:
		return !determiners[prev]
	case namePreps[prev] && prev != "and":
		// "and" joins things as often as names: "food and drink".
		return true
	case i != 1 || noVerb:
		return false
	case i+1 == len(fields):
		return true
	}
	_, stop := stopWords[strings.ToLower(strings.Trim(fields[i+1], edgeMarks))]
	return stop
}

// personWord reports whether w, a word no tool uses, may be someone's
// name: not in the plural, nor a verb's -ing or -ed form.
func personWord(w []byte) bool {
	return w[len(w)-1] != 's' && !bytes.HasSuffix(w, []byte("ing")) && !bytes.HasSuffix(w, []byte("ed"))
}

// kindAfter reports whether fields[i] comes between "the" and the
// singular word for a thing some tool takes by its id: the name of that
// one ("the acme org", "the platform team"; not "a promo code").
func (ix *Index) kindAfter(fields []string, i int) bool {
	if i == 0 || i+1 >= len(fields) || !strings.EqualFold(fields[i-1], "the") {
		return false
	}
	next := strings.ToLower(strings.Trim(fields[i+1], edgeMarks))
	if next == "" || next[len(next)-1] == 's' {
		return false
	}
	id, ok := ix.terms[string(stem([]byte(next)))]
	return ok && ix.itemNouns[id]
}

// fillerWords say how much, how far or where in general: no thing a
// catalog could name ("how much cache storage", "we don't use it
// anymore", "is there a TODO.md anywhere").
var fillerWords = map[string]bool{
	"much": true, "anymore": true, "already": true, "ever": true, "still": true, "together": true,
	"anywhere": true, "everywhere": true, "somewhere": true, "elsewhere": true, "nowhere": true,
}
