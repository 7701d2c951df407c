package search

import (
	"maps"
	"slices"
	"strings"
)

// Acronyms. People write "PR" for a pull request and "SBOM" for a
// software bill of materials; a catalog says the long form nearly
// everywhere and the acronym here and there. Build learns a catalog's
// acronyms from its own text, the way acronym finders read a corpus
// (Schwartz and Hearst 2003, without the parentheses): an acronym is a
// word of two to five capitals (a plural "s" allowed) that a tool's
// title or description writes, and its long form the run of as many
// consecutive words, with those initials, that the same text most often
// says beside it. A pairing counts when at least acronymMin tools say
// both and at least a third of the tools that say the acronym say that
// long form. "API" or "ID", said everywhere and beside no such run,
// pair with nothing.
//
// A request's word that is a learned acronym, in any case, reads as its
// long form: "list PRs" as "list pull requests".

// acronymMin is how many tools must say an acronym beside its long form.
const acronymMin = 2

// acronymScanMax bounds the bytes of one tool's text the finder reads.
const acronymScanMax = 16 << 10

// acronymFinder counts, over a catalog's tools, the acronyms each says and
// the runs of words beside them that spell them.
type acronymFinder struct {
	tools map[string]int            // acronym -> tools that say it
	pairs map[string]map[string]int // acronym -> stems of a long form -> tools
	forms map[string]string         // stems of a long form -> its words as first written, singular when seen so
	caps  []string
	words []string
	buf   []byte
	found []string
	// The words of the text being read, end to end in text, each ending
	// at its ends entry: no string per word.
	text []byte
	ends []int32
}

// word is the i-th word of the text being read.
func (a *acronymFinder) word(i int) []byte {
	start := int32(0)
	if i > 0 {
		start = a.ends[i-1]
	}
	return a.text[start:a.ends[i]]
}

// add reads one tool's title and description.
func (a *acronymFinder) add(title, desc string) {
	text := desc
	if title != "" && !strings.HasPrefix(desc, title) {
		text = title + ".\n" + desc
	}
	if len(text) > acronymScanMax {
		text = text[:acronymScanMax]
	}
	a.caps = capsWords(text, a.caps[:0])
	if len(a.caps) == 0 {
		return
	}
	if a.tools == nil {
		a.tools, a.pairs, a.forms = map[string]int{}, map[string]map[string]int{}, map[string]string{}
	}
	a.text, a.ends = a.text[:0], a.ends[:0]
	a.buf = forEachToken(text, a.buf, func(tok []byte) {
		a.text = append(a.text, tok...)
		a.ends = append(a.ends, int32(len(a.text)))
	})
	for _, acr := range a.caps {
		a.tools[acr]++
		a.found = a.found[:0]
		n := len(acr)
	runs:
		for i := 0; i+n <= len(a.ends); i++ {
			for j := range n {
				w := a.word(i + j)
				if w[0] != acr[j] || len(w) < 2 || w[0] >= '0' && w[0] <= '9' {
					continue runs
				}
			}
			if isStopWord(string(a.word(i))) || isStopWord(string(a.word(i+n-1))) {
				continue
			}
			a.words = a.words[:0]
			stems := make([]string, n)
			for j := range n {
				w := string(a.word(i + j))
				a.words = append(a.words, w)
				stems[j] = string(stem([]byte(w)))
			}
			key := strings.Join(stems, " ")
			if slices.Contains(a.found, key) {
				continue
			}
			a.found = append(a.found, key)
			form := strings.Join(a.words, " ")
			if f, ok := a.forms[key]; !ok || strings.HasSuffix(f, "s") && !strings.HasSuffix(form, "s") {
				a.forms[key] = form
			}
			if a.pairs[acr] == nil {
				a.pairs[acr] = map[string]int{}
			}
			a.pairs[acr][key]++
		}
	}
}

// result is each acronym's long form, in words. Where several runs of
// words spell one acronym often enough beside it ("pull requests" and
// "private repo" both beside "PR"), the one more titles say wins: label
// is a tool's title, or the first sentence of its description.
func (a *acronymFinder) result(n int, label func(int) string) map[string]string {
	var out map[string]string
	for _, acr := range slices.Sorted(maps.Keys(a.pairs)) {
		var keys []string
		for _, key := range slices.Sorted(maps.Keys(a.pairs[acr])) {
			if c := a.pairs[acr][key]; c >= acronymMin && 3*c >= a.tools[acr] {
				keys = append(keys, key)
			}
		}
		if len(keys) == 0 {
			continue
		}
		best := keys[0]
		if len(keys) > 1 {
			best = a.mostTitled(keys, n, label)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[acr] = a.forms[best]
	}
	return out
}

// mostTitled is the long form of keys that most labels say, the first
// on a tie.
func (a *acronymFinder) mostTitled(keys []string, n int, label func(int) string) string {
	counts := make([]int, len(keys))
	for d := range n {
		a.words = a.words[:0]
		a.buf = forEachToken(label(d), a.buf, func(tok []byte) { a.words = append(a.words, string(stem(slices.Clone(tok)))) })
		line := " " + strings.Join(a.words, " ") + " "
		for i, key := range keys {
			if strings.Contains(line, " "+key+" ") {
				counts[i]++
			}
		}
	}
	best := 0
	for i := range keys {
		if counts[i] > counts[best] {
			best = i
		}
	}
	return keys[best]
}

func isStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// capsWords appends to dst the distinct acronyms text writes, lower-cased:
// words of two to five ASCII capitals, alone or with a plural "s".
func capsWords(text string, dst []string) []string {
	for i, j := nextWord(text, 0); i < len(text); i, j = nextWord(text, j) {
		w := text[i:j]
		if strings.HasSuffix(w, "s") {
			w = w[:len(w)-1]
		}
		if len(w) < 2 || len(w) > 5 || !allCaps(w) {
			continue
		}
		lw := strings.ToLower(w)
		if !slices.Contains(dst, lw) {
			dst = append(dst, lw)
		}
	}
	return dst
}

// nextWord is the span of the first word of s at or after i, a run of
// isWordByte bytes; start is len(s) when there is none.
func nextWord(s string, i int) (start, end int) {
	for i < len(s) && !isWordByte(s[i]) {
		i++
	}
	end = i
	for end < len(s) && isWordByte(s[end]) {
		end++
	}
	return i, end
}

func allCaps(w string) bool {
	for k := range len(w) {
		if w[k] < 'A' || w[k] > 'Z' {
			return false
		}
	}
	return true
}

// expandAcronyms returns q with each word that is one of the index's
// acronyms replaced by its long form, built in dst[:0], and dst; it
// returns q itself when it has none.
func (ix *Index) expandAcronyms(dst []byte, q string) (string, []byte) {
	if len(ix.acronyms) == 0 {
		return q, dst
	}
	dst = dst[:0]
	changed := false
	last := 0
	for i, j := nextWord(q, 0); i < len(q); i, j = nextWord(q, j) {
		if long, plural, ok := ix.acronym(q[i:j]); ok {
			dst = append(append(dst, q[last:i]...), long...)
			if plural && !strings.HasSuffix(long, "s") {
				dst = append(dst, 's')
			}
			last, changed = j, true
		}
	}
	if !changed {
		return q, dst
	}
	dst = append(dst, q[last:]...)
	return string(dst), dst
}

// acronym is the long form of word w when it is a learned acronym, in any
// case, and whether w is its plural.
func (ix *Index) acronym(w string) (long string, plural, ok bool) {
	if len(w) < 2 || len(w) > 6 {
		return "", false, false
	}
	var b [6]byte
	lw := b[:len(w)]
	for k := range len(w) {
		c := w[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lw[k] = c
	}
	if long, ok := ix.acronyms[string(lw)]; ok {
		return long, false, true
	}
	if n := len(lw); n > 2 && lw[n-1] == 's' {
		if long, ok := ix.acronyms[string(lw[:n-1])]; ok {
			return long, true, true
		}
	}
	return "", false, false
}
