package search

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Doc is one tool, or one skill, as the index sees it. Connection names are
// deliberately absent: a tool ranks the same whichever account it is reached
// through. A skill fills Name, Description and Headings.
type Doc struct {
	Namespace   string   // JS namespace, e.g. "github"
	Name        string   // JS method name, camelCase, e.g. "createIssue"
	OrigName    string   // upstream MCP tool name, e.g. "create_issue"
	Title       string   // human title, often empty
	Description string   // tool description
	Params      []string // parameter names, top-level and nested, e.g. "owner", "perPage"
	ParamDocs   []string // parameter descriptions
	Headings    []string // a skill's section headings; tools have none
	// Values are the values its parameters take from a fixed set (a
	// schema's enum), as written: "open", "closed", "REQUEST_CHANGES".
	Values []string

	// Method and Path are an HTTP operation's ("GET",
	// "/repos/{owner}/{repo}/pulls"), empty for other tools.
	Method string
	Path   string

	// Hidden marks a doc the caller lists under no namespace: a tool its
	// policy denies, or a skill (listed apart). It ranks, so that the
	// caller can count it, but names no resource and counts as no tool
	// of its namespace in UnknownNote.
	Hidden bool
	// Deprecated marks a tool its API keeps for older callers (an
	// OpenAPI operation's deprecated): it ranks after a live tool the
	// request fits about as well.
	Deprecated bool
}

// Field is the scoring setup of one document field.
type Field struct {
	// Weight multiplies the field's normalised term frequency. Zero
	// removes the field from ranking.
	Weight float64
	// B is the length normalisation of the field, from 0 (none) to 1
	// (full); see the package doc.
	B float64
}

// Options tunes ranking. Build(docs, nil) uses DefaultOptions; callers who
// want to change one knob start from DefaultOptions and edit the copy.
type Options struct {
	// K1 is the BM25 term-frequency saturation. Values <= 0 mean the default.
	K1 float64

	Name        Field // Name and OrigName, split into words
	Namespace   Field // the namespace, split into words
	Title       Field
	Description Field
	Params      Field // parameter names, split into words
	ParamDocs   Field // parameter descriptions
	Headings    Field // a skill's section headings
	Path        Field // an HTTP operation's fixed path segments, split into words
	// Values are the one-word values its parameters take from a fixed
	// set (Doc.Values), but for the verbs of the plain actions.
	Values Field

	// Expansion is the weight of a synonym of a query word relative to
	// the word itself (1). Zero turns query expansion off.
	Expansion float64
}

// DefaultOptions returns the tuned defaults, measured on the tool-retrieval
// benchmark in testdata (see TestRetrievalQuality). Values came later, with
// the catalogs' task sets (catalogs_test.go): from 1.5 to 3 every tuning
// half scores the same or better, GitHub as OpenAPI 0.835 to 0.839 and as
// MCP tools 0.816 to 0.821 at 2.
func DefaultOptions() Options {
	return Options{
		K1:          2.5,
		Name:        Field{Weight: 4, B: 0.5},
		Namespace:   Field{Weight: 0.5, B: 0},
		Title:       Field{Weight: 2, B: 0.5},
		Description: Field{Weight: 1, B: 0.5},
		Params:      Field{Weight: 0.25, B: 0.5},
		ParamDocs:   Field{Weight: 0.2, B: 0.75},
		Headings:    Field{Weight: 1, B: 0.5},
		Path:        Field{Weight: 2, B: 0.5},
		Values:      Field{Weight: 2, B: 0.5},
		Expansion:   0.4,
	}
}

const (
	fieldName = iota
	fieldNamespace
	fieldTitle
	fieldDescription
	fieldParams
	fieldParamDocs
	fieldHeadings
	fieldPath
	fieldValues
	numFields
)

func (o *Options) fields() [numFields]Field {
	return [numFields]Field{o.Name, o.Namespace, o.Title, o.Description, o.Params, o.ParamDocs, o.Headings, o.Path, o.Values}
}

// posting is one document containing a term, with the term's BM25F
// pseudo-frequency in that document: the sum over fields of
// weight * tf / (1 - b + b*len/avglen). Weights and lengths are fixed at
// Build, so Search only adds these numbers up.
type posting struct {
	doc int32
	// tf is the doc's pseudo-frequency of the term, negative when the doc
	// has the term only as one of its parameters' values: such a match
	// scores, but the doc does not say the word (scratch.words), for the
	// namespaces' weights and the second stage.
	tf float32
}

// weight is p's pseudo-frequency, and whether the doc says the word.
func (p posting) weight() (float32, bool) {
	if p.tf < 0 {
		return -p.tf, false
	}
	return p.tf, true
}

// addTF adds two pseudo-frequencies of one doc: said when either is.
func addTF(a, b float32) float32 {
	s := abs32(a) + abs32(b)
	if a > 0 || b > 0 {
		return s
	}
	return -s
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// Index is an immutable BM25F index over a tool catalog. It is safe for
// concurrent use by multiple goroutines once Build returns.
type Index struct {
	n      int
	k1     float64
	expand float64
	terms  map[string]int32 // stem -> term id
	// bareNS holds, by term id, the namespace whose tools write the word
	// without -ed or -ing, bareNowhere when none does and bareSeveral
	// when more than one does: "stage" is said only as "staged" and
	// "staging" in a git server's tools, so a request that starts with
	// it uses it as a verb, even beside a source that says "stage".
	bareNS    []int32
	offsets   []int32 // postings of term t are postings[offsets[t]:offsets[t+1]]
	postings  []posting
	docNS     []int32             // namespace id of each doc
	rank      []int32             // position of each doc in (namespace, name) order
	nsIDs     map[string]int32    // namespace -> id
	byNS      [][]int32           // docs of each namespace in name order
	all       []int32             // all docs in (namespace, name) order
	pool      sync.Pool           // *scratch
	synTerms  map[string][]int32  // stem -> term ids of its synonyms present in the index
	agentOf   map[string]int32    // a verb's stem -> the term id of the catalog's noun for who does it ("watch": watcher)
	madeBy    map[string]struct{} // stems of verbs the catalog says only in its noun for what does them ("remind": reminder)
	feat      []docFeatures       // the second stage's view of each doc (rerank.go)
	sibling   []int32             // the next doc of the same namespace and path, in a ring; nil when no two share one
	doers     []doer              // what each doc does, from feat (namespaceStats); nil unless gated
	computes  map[int32]bool      // term ids of the verbs of computing the catalog has (computeVerbs)
	nsItems   [][]int32           // by gated namespace: the things its tools take one of by id
	nsParams  [][]int32           // by gated namespace: the words of its tools' parameters' names
	featIDs   []int32             // the term ids docFeatures refer to
	selfWords []int32             // term ids of the words of the selfPhrases the catalog uses
	verbs     map[int32]bool      // term ids some title starts with
	checkNS   []bool              // by namespace id: some title there starts with "Check"; nil when none does
	checkTerm int32               // term id of "check" when some title starts with it, else -1
	maxTF     []float32           // the largest pseudo-frequency of each term in a doc
	keyNoun   int32               // term id of what a bare key names (keyedNoun), -1 when none
	keyWord   string              // its word as the catalog writes it
	acronyms  map[string]string   // acronym, lower-cased -> its long form (acronym.go)
	hidden    []uint64            // the Hidden docs, a bit each
	obsolete  []uint64            // the Deprecated docs, a bit each
	resources [][]string          // by namespace, the resources its docs' paths name, most named first (unknown.go)
	nsNames   []string            // namespace names by id
	// headRare holds, for each doc's heads (docFeatures.rareOff), how
	// rare that resource is among its namespace's tools, from 0 (every
	// tool passes through it) to 255 (one does): log(n/df)/log(n).
	headRare []uint8
	// itemNouns holds the things some tool takes one of by its id
	// (docFeatures.items): issue, release, installation.
	itemNouns map[int32]bool
	// itemWords are the words the catalog writes them with, sorted
	// (idPrefixNoun).
	itemWords []itemWord
	// mergedLists holds the merged postings of words that expand to
	// several terms (merged), mergedLeft how many more postings they may
	// hold.
	mergedLists sync.Map
	mergedLeft  atomic.Int64
	// valueWords are the terms that are only ever values (valueWords).
	valueWords map[int32]struct{}
	// reWords are the words titles write after "re-" ("Re-run a
	// workflow"), which a request may write as one word ("rerun").
	reWords map[int32]bool
	// nsGate is how much of each namespace's weight counts (namespaces.go);
	// gated is set when any does.
	nsGate []float32
	gated  bool
	// compounds are the pairs of words (pairCode) that name a thing of
	// the catalog (compoundStart).
	compounds map[int32]struct{}
}

// Index.bareNS values that name no one namespace.
const (
	bareNowhere = -1
	bareSeveral = -2
)

// linkVerbNoun makes the noun w in -al (term id) and its verb, when the
// catalog writes the verb as such (raw) and some title starts with it,
// synonyms of each other.
func (ix *Index) linkVerbNoun(raw map[string]int32, w string, id int32) {
	ws := string(stem([]byte(w)))
	for _, b := range [...]string{w[:len(w)-2], w[:len(w)-2] + "e"} {
		if _, said := raw[b]; !said {
			continue
		}
		bs := string(stem([]byte(b)))
		if bid, ok := ix.terms[bs]; ok && bs != ws && bid != id && ix.verbs[bid] {
			if !slices.Contains(ix.synTerms[ws], bid) {
				ix.synTerms[ws] = append(ix.synTerms[ws], bid)
			}
			if !slices.Contains(ix.synTerms[bs], id) {
				ix.synTerms[bs] = append(ix.synTerms[bs], id)
			}
			return
		}
	}
}

// itemWord is a word for a thing some tool takes by its id, as the
// catalog writes it, and its term id.
type itemWord struct {
	word string
	id   int32
}

// Hit is one search result: Doc is an index into the docs given to Build.
type Hit struct {
	Doc   int
	Score float64
}

// entry is one occurrence of a term in a field of the doc being built.
type entry struct {
	term  int32
	field uint8
}

// abbrevMin is how many tools must pair a short name word with a longer
// title word it begins before one expands to the other.
const abbrevMin = 3

// maxCachedText is the longest field text whose analysis Build memoises;
// longer texts (most descriptions) are rarely repeated verbatim and cost
// more to hash than to tokenize.
const maxCachedText = 96

// Build indexes docs. The docs slice is not retained.
func Build(docs []Doc, opts *Options) *Index {
	o := DefaultOptions()
	if opts != nil {
		o = *opts
		if o.K1 <= 0 {
			o.K1 = DefaultOptions().K1
		}
	}
	fields := o.fields()
	ix := &Index{
		checkTerm: -1,
		n:         len(docs),
		k1:        o.K1,
		expand:    o.Expansion,
		terms:     make(map[string]int32),
		nsIDs:     make(map[string]int32),
		docNS:     make([]int32, len(docs)),
		rank:      make([]int32, len(docs)),
		feat:      make([]docFeatures, 0, len(docs)),
	}

	// Pass 1: analyse every field of every doc into (term, field) entries.
	// Field texts repeat a lot across a catalog (namespaces, parameter
	// names and their docs, boilerplate), so the analysis of each distinct
	// text is kept in an arena and reused.
	var (
		raw      = make(map[string]int32)    // lower-case word -> term id, -1 for a stop word
		texts    = make(map[string][2]int32) // field text -> span of arena
		arena    = make([]int32, 0, 16*len(docs))
		entries  = make([]entry, 0, 48*len(docs))
		starts   = make([]int32, len(docs)+1)
		lens     = make([]int32, numFields*len(docs))
		sums     [numFields]float64
		buf      []byte
		word     []byte
		seen     []int32             // terms already counted in the current field
		selfUsed = map[string]bool{} // the phrases of selfPhrases the catalog uses
		ws       = wordScratch{intern: map[string]string{}}
		abbrev   = map[[2]string]int{} // (stem of a short name word, title word it begins) -> tools
		keyed    = map[string]int{}    // thing a parameter takes by key -> parameters
		pairs    = map[int32]int{}     // pair of title words after the first (pairCode) -> titles
		prefixes = pathPrefixes(docs)
		fixed    []string
		acr      acronymFinder
	)
	// Namespaces, numbered in name order.
	for d := range docs {
		if _, ok := ix.nsIDs[docs[d].Namespace]; !ok {
			ix.nsIDs[docs[d].Namespace] = 0
		}
	}
	ix.nsNames = slices.Sorted(maps.Keys(ix.nsIDs))
	resourceCounts := make([]map[string]int, len(ix.nsNames))
	for i, ns := range ix.nsNames {
		ix.nsIDs[ns] = int32(i)
	}
	ix.hidden = make([]uint64, (len(docs)+63)/64)
	ix.obsolete = make([]uint64, (len(docs)+63)/64)
	ix.sibling = siblings(docs)
	curNS := int32(bareNowhere) // the namespace of the doc being read, if one is
	// markBare notes that the current namespace writes term id as tok,
	// without -ed or -ing (Index.bareNS). Words read for no doc (after the
	// docs, the catalog's phrases for its caller) mark nothing.
	markBare := func(id int32, tok []byte) {
		if v := ix.bareNS[id]; curNS < 0 || v == bareSeveral || v == curNS || bytes.HasSuffix(tok, []byte("ed")) || bytes.HasSuffix(tok, []byte("ing")) {
			return
		} else if v == bareNowhere {
			ix.bareNS[id] = curNS
		} else {
			ix.bareNS[id] = bareSeveral
		}
	}
	termOf := func(tok []byte) int32 {
		if id, ok := raw[string(tok)]; ok {
			if id >= 0 {
				markBare(id, tok)
			}
			return id
		}
		key := string(tok)
		if _, stop := stopWords[key]; stop {
			raw[key] = -1
			return -1
		}
		word = stem(append(word[:0], tok...))
		id, ok := ix.terms[string(word)]
		if !ok {
			id = int32(len(ix.terms))
			ix.terms[string(word)] = id
			ix.bareNS = append(ix.bareNS, bareNowhere)
		}
		markBare(id, tok)
		raw[key] = id
		return id
	}
	termOfWord := func(w string) int32 {
		if id, ok := raw[w]; ok {
			return id
		}
		return termOf([]byte(w))
	}
	analyse := func(s string) []int32 {
		cache := len(s) <= maxCachedText
		if cache {
			if span, ok := texts[s]; ok {
				return arena[span[0]:span[1]]
			}
		}
		start := int32(len(arena))
		buf = forEachToken(s, buf, func(tok []byte) {
			if id := termOf(tok); id >= 0 {
				arena = append(arena, id)
			}
		})
		if cache {
			texts[s] = [2]int32{start, int32(len(arena))}
		}
		return arena[start:]
	}
	boiler := boilerplate(docs)
	var boilerBuf []byte
	var valueIDs []int32 // the words of every value, for valueWords
	var valueBuf []byte
	var valueTerms []int32 // a doc's values for the values field
	for d := range docs {
		doc := &docs[d]
		curNS = ix.nsIDs[doc.Namespace]
		starts[d] = int32(len(entries))
		l := lens[d*numFields : (d+1)*numFields]
		add := func(f int, s string) []int32 {
			ids := analyse(s)
			for _, id := range ids {
				entries = append(entries, entry{id, uint8(f)})
			}
			l[f] = int32(len(entries)) - starts[d] - sumTo(l, f)
			return ids
		}
		// Name and OrigName usually split into the same words; a word of
		// OrigName counts only when Name lacks it. A parameter word counts
		// once: nested objects repeat names ("id", "name").
		addIDsOnce := func(f int, ids []int32) {
			for _, id := range ids {
				if !slices.Contains(seen, id) {
					seen = append(seen, id)
					entries = append(entries, entry{id, uint8(f)})
				}
			}
			l[f] = int32(len(entries)) - starts[d] - sumTo(l, f)
		}
		addOnce := func(f int, s string) { addIDsOnce(f, analyse(s)) }
		acr.add(doc.Title, doc.Description)
		fixed = fixed[:0]
		if doc.Path != "" {
			fixed = pathFixed(doc.Path, prefixes[doc.Namespace], fixed)
		}
		if doc.Deprecated {
			ix.obsolete[d>>6] |= 1 << (d & 63)
		}
		if doc.Hidden {
			ix.hidden[d>>6] |= 1 << (d & 63)
		} else if len(fixed) > 0 {
			if resourceCounts[curNS] == nil {
				resourceCounts[curNS] = map[string]int{}
			}
			countResources(resourceCounts[curNS], fixed, prefixes[doc.Namespace])
		}
		ix.feat = append(ix.feat, features(doc, fixed, termOfWord, selfUsed, abbrev, keyed, pairs, &ws, &ix.featIDs))
		seen = seen[:0]
		addOnce(fieldName, doc.Name)
		addOnce(fieldName, doc.OrigName)
		add(fieldNamespace, doc.Namespace)
		// Without a title, the description's first sentence is the
		// summary a title would be.
		desc := doc.Description
		if doc.Title != "" {
			ix.noteRe(doc.Title, termOfWord)
			add(fieldTitle, doc.Title)
		} else {
			l := lead(desc)
			ix.noteRe(l, termOfWord)
			add(fieldTitle, l)
			desc = desc[strings.Index(desc, l)+len(l):]
		}
		// The description's sentence after the title is the second
		// stage's detail; its words are analysed once, for both.
		pre, detail, post := splitDetail(desc, doc.Title)
		add(fieldDescription, boiler.strip(&boilerBuf, doc.Namespace, pre))
		ws.ids = append(ws.ids[:0], add(fieldDescription, detail)...)
		ix.featIDs, ix.feat[d].nDetail, _ = appendSet(ix.featIDs, ws.ids)
		ix.featIDs, ix.feat[d].nPhrase, _ = appendSet(ix.featIDs, ws.pairs)
		ws.ids = ws.ids[:0]
		valueTerms = valueTerms[:0]
		for _, v := range doc.Values {
			// A value of several words (REQUEST_CHANGES) counts when the
			// request says its first two in order: its pair's code, made
			// negative to stand apart from the words' ids.
			a := analyse(v)
			valueIDs = append(valueIDs, a...)
			switch {
			case len(a) == 1:
				ws.ids = append(ws.ids, a[0])
				// The first stage's values field (below) takes the
				// one-word values but the verbs of the plain actions.
				if valueBuf = stem(appendLower(valueBuf[:0], v)); actionVerbs[string(valueBuf)] == 0 {
					valueTerms = append(valueTerms, a[0])
				}
			case len(a) > 1:
				ws.ids = append(ws.ids, -1-pairCode(a[0], a[1]))
			}
		}
		ix.featIDs, ix.feat[d].nValue, _ = appendSet(ix.featIDs, ws.ids)
		ws.ids = ws.ids[:0]
		for _, p := range doc.Params {
			ws.ids = append(ws.ids, analyse(p)...)
		}
		ix.featIDs, ix.feat[d].nParam, _ = appendSet(ix.featIDs, ws.ids)
		ix.featIDs, ix.feat[d].nPlural, _ = appendSet(ix.featIDs, ws.plural)
		ix.featIDs, ix.feat[d].nObject, _ = appendSet(ix.featIDs, ws.object)
		add(fieldDescription, boiler.strip(&boilerBuf, doc.Namespace, post))
		seen = seen[:0]
		for _, p := range doc.Params {
			addOnce(fieldParams, p)
		}
		for _, p := range doc.ParamDocs {
			add(fieldParamDocs, p)
		}
		for _, hd := range doc.Headings {
			add(fieldHeadings, hd)
		}
		seen = seen[:0]
		for _, seg := range fixed {
			addOnce(fieldPath, seg)
		}
		// The values its parameters take: a state, a way or a verdict
		// the request names ("squash", "admin") finds the tool that
		// takes it, not only ranks it once found. A value that is a
		// verb of the plain actions ("view", "edit") is left out, the
		// request's own verb widened to its synonyms would find every
		// tool taking it; so is a value of several words, which counts
		// only when said in order (REQUEST_CHANGES is no "request a
		// review").
		seen = seen[:0]
		addIDsOnce(fieldValues, valueTerms)
		for f := range numFields {
			sums[f] += float64(l[f])
		}
	}
	curNS = bareNowhere
	// Ranked once here, not for each search whose note names them.
	ix.resources = make([][]string, len(resourceCounts))
	for ns, counts := range resourceCounts {
		ix.resources[ns] = rankResources(counts)
	}
	starts[len(docs)] = int32(len(entries))
	ix.acronyms = acr.result(len(docs), func(d int) string {
		if docs[d].Title != "" {
			return docs[d].Title
		}
		return lead(docs[d].Description)
	})
	for p, n := range pairs {
		if n >= compoundMin {
			if ix.compounds == nil {
				ix.compounds = map[int32]struct{}{}
			}
			ix.compounds[p] = struct{}{}
		}
	}
	ix.keyNoun = -1
	for w, n := range keyed {
		if n*10 >= len(docs)*9 && n >= 20 {
			// A key nearly every operation takes is a credential
			// (Star Trek's apiKey), not a thing's.
			delete(keyed, w)
		}
	}
	if s, w := keyedNoun(keyed); s != "" {
		if id, ok := ix.terms[s]; ok {
			ix.keyNoun, ix.keyWord = id, w
		}
	}

	// Path families: how many docs share a namespace and a first segment.
	// The operations of the largest family (GitHub's /repos) also mark
	// their method and the rest of their fixed segments, so that a twin
	// under a smaller container (/orgs/{org}/dependabot/alerts beside
	// /repos/{owner}/{repo}/dependabot/alerts) knows it has one.
	{
		// Each pathed doc's first fixed segment and the rest, joined.
		firsts, rests := make([]string, len(docs)), make([]string, len(docs))
		fam := map[[2]string]int{}
		nsMax := map[string]int{}
		for i := range docs {
			if docs[i].Path == "" {
				continue
			}
			fixed = pathFixed(docs[i].Path, prefixes[docs[i].Namespace], fixed)
			if len(fixed) > 0 {
				firsts[i], rests[i] = fixed[0], strings.Join(fixed[1:], "/")
				k := [2]string{docs[i].Namespace, fixed[0]}
				fam[k]++
				nsMax[k[0]] = max(nsMax[k[0]], fam[k])
			}
		}
		type twinKey struct{ ns, method, rest string }
		main := map[twinKey]bool{}
		for i := range docs {
			if ns := docs[i].Namespace; firsts[i] != "" && fam[[2]string{ns, firsts[i]}] == nsMax[ns] {
				main[twinKey{ns, strings.ToUpper(docs[i].Method), rests[i]}] = true
			}
		}
		for i := range docs {
			ns := docs[i].Namespace
			if firsts[i] == "" {
				continue
			}
			k := [2]string{ns, firsts[i]}
			ix.feat[i].family = float32(math.Log(1+float64(fam[k])) / math.Log(1+float64(nsMax[ns])))
			if fam[k] < nsMax[ns] && main[twinKey{ns, strings.ToUpper(docs[i].Method), rests[i]}] &&
				containerFirst(docs[i].Path, prefixes[ns], firsts[i]) {
				if id, ok := ix.terms[string(stem(appendLower(nil, firsts[i])))]; ok {
					ix.feat[i].scope = id
				}
			}
		}
	}

	nameTwins(docs, ix.feat, ix.featIDs, ix.terms, abbrev)
	prefixTwins(docs, ix.feat, ix.terms)

	// The caller's path segments mark every tool under them.
	if segs := selfSegments(docs, prefixes, func(i int) bool { return ix.feat[i].self }); len(segs) > 0 {
		for i := range docs {
			if docs[i].Path != "" && !ix.feat[i].self {
				fixed = pathFixed(docs[i].Path, prefixes[docs[i].Namespace], fixed)
				ix.feat[i].self = len(fixed) > 0 && segs[[2]string{docs[i].Namespace, fixed[0]}]
			}
		}
	}

	var selfIDs []int32
	for _, p := range selfPhrases {
		if selfUsed[p] {
			for i, w := range strings.Fields(p) {
				if id := termOf([]byte(w)); id >= 0 {
					if i == 0 {
						selfIDs = append(selfIDs, id)
					}
					if !slices.Contains(ix.selfWords, id) {
						ix.selfWords = append(ix.selfWords, id)
					}
				}
			}
		}
	}
	ix.verbs = make(map[int32]bool)
	ix.computes = map[int32]bool{}
	for _, w := range computeVerbs {
		if id, ok := ix.terms[string(stem([]byte(w)))]; ok {
			ix.computes[id] = true
		}
	}
	for i := range ix.feat {
		if v := ix.feat[i].verb; v >= 0 {
			ix.verbs[v] = true
		}
		if f := &ix.feat[i]; f.act == 0 && docs[i].Path == "" && ix.undoes(&docs[i]) {
			// "Unstages all staged changes": a verb in un- undoes its
			// base, a delete, as a request's does ("unwatch the repo").
			f.act = actDelete
		}
	}

	// Length normalisers per field.
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = 1
		if len(docs) > 0 && sums[f] > 0 {
			avg[f] = sums[f] / float64(len(docs))
		}
	}

	ix.valueWords = valueWords(valueIDs, entries, len(ix.terms))

	// Pass 2: per doc, fold its entries into one pseudo-frequency per
	// term. slot[t] is the position of term t in the doc's list while
	// mark[t] == d+1.
	type triple struct {
		term int32
		p    posting
		text bool // the doc says it in a field other than its values
	}
	var (
		triples = make([]triple, 0, len(entries))
		counts  = make([]int32, len(ix.terms)+1)
		mark    = make([]int32, len(ix.terms))
		slot    = make([]int32, len(ix.terms))
	)
	for d := range docs {
		var norm [numFields]float32
		for f := range numFields {
			l := float64(lens[d*numFields+f])
			norm[f] = float32(fields[f].Weight / (1 - fields[f].B + fields[f].B*l/avg[f]))
		}
		first := len(triples)
		for _, e := range entries[starts[d]:starts[d+1]] {
			if mark[e.term] != int32(d+1) {
				mark[e.term] = int32(d + 1)
				slot[e.term] = int32(len(triples))
				triples = append(triples, triple{term: e.term, p: posting{int32(d), 0}})
			}
			triples[slot[e.term]].p.tf += norm[e.field]
			if e.field != fieldValues {
				triples[slot[e.term]].text = true
			}
		}
		// Drop terms whose fields all weigh zero.
		kept := first
		for _, tr := range triples[first:] {
			if tr.p.tf > 0 {
				triples[kept] = tr
				kept++
				counts[tr.term+1]++
			}
		}
		triples = triples[:kept]
	}
	ix.offsets = counts
	for t := 1; t < len(ix.offsets); t++ {
		ix.offsets[t] += ix.offsets[t-1]
	}
	ix.postings = make([]posting, len(triples))
	fill := mark // reuse: next free position per term
	copy(fill, ix.offsets[:len(ix.offsets)-1])
	ix.maxTF = make([]float32, len(ix.terms))
	for _, tr := range triples {
		ix.maxTF[tr.term] = max(ix.maxTF[tr.term], tr.p.tf)
		if !tr.text {
			tr.p.tf = -tr.p.tf // a value only (posting)
		}
		ix.postings[fill[tr.term]] = tr.p
		fill[tr.term]++
	}

	// The stable (namespace, name) order used for listing and for
	// breaking score ties.
	names := ix.nsNames
	// Each namespace's docs, in doc order, then each sorted by name.
	ix.byNS = make([][]int32, len(names))
	perNS := make([]int32, len(names))
	for d := range docs {
		ix.docNS[d] = ix.nsIDs[docs[d].Namespace]
		perNS[ix.docNS[d]]++
	}
	// The namespaces whose titles check things ("Check if a user is
	// blocked"), where a question to answer yes or no asks for them.
	if check, ok := ix.terms["check"]; ok && ix.verbs[check] {
		ix.checkTerm = check
		ix.checkNS = make([]bool, len(names))
		for d := range docs {
			if ix.feat[d].verb == check {
				ix.checkNS[ix.docNS[d]] = true
			}
		}
	}
	ix.headRarity(perNS)
	ix.itemNouns = map[int32]bool{}
	for d := range ix.feat {
		for _, t := range ix.feat[d].items(ix.featIDs) {
			ix.itemNouns[t] = true
		}
	}
	for w, id := range raw {
		if id >= 0 && ix.itemNouns[id] && asciiLetters(w) {
			ix.itemWords = append(ix.itemWords, itemWord{w, id})
		}
	}
	slices.SortFunc(ix.itemWords, func(a, b itemWord) int { return strings.Compare(a.word, b.word) })
	ix.all = make([]int32, len(docs))
	next := int32(0)
	for ns, c := range perNS {
		ix.byNS[ns] = ix.all[next : next : next+c]
		next += c
	}
	for d := range docs {
		ns := ix.docNS[d]
		ix.byNS[ns] = append(ix.byNS[ns], int32(d))
	}
	for _, list := range ix.byNS {
		slices.SortFunc(list, func(a, b int32) int {
			da, db := &docs[a], &docs[b]
			if c := strings.Compare(da.Name, db.Name); c != 0 {
				return c
			}
			if c := strings.Compare(da.OrigName, db.OrigName); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	for r, d := range ix.all {
		ix.rank[d] = int32(r)
	}
	ix.namespaceGates()
	ix.namespaceFeatures()

	// Resolve the synonym table against this index's vocabulary once.
	if o.Expansion > 0 {
		ix.synTerms = make(map[string][]int32)
		if len(selfIDs) > 0 {
			ix.synTerms[selfTerm] = selfIDs
		}
		// Abbreviations the catalog itself uses in three tools or more
		// expand both ways, as synonyms do.
		// Each short word keeps its most frequent long form.
		best := map[string][2]string{}
		for _, p := range slices.SortedFunc(maps.Keys(abbrev), func(a, b [2]string) int {
			return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
		}) {
			if b, ok := best[p[0]]; abbrev[p] >= abbrevMin && (!ok || abbrev[p] > abbrev[b]) {
				best[p[0]] = p
			}
		}
		for _, p := range slices.SortedFunc(maps.Values(best), func(a, b [2]string) int {
			return strings.Compare(a[0], b[0])
		}) {
			short, ok := ix.terms[p[0]]
			long, seen := raw[p[1]]
			if !ok || !seen || long < 0 || short == long {
				continue
			}
			ls := string(stem([]byte(p[1])))
			if !slices.Contains(ix.synTerms[p[0]], long) {
				ix.synTerms[p[0]] = append(ix.synTerms[p[0]], long)
			}
			if !slices.Contains(ix.synTerms[ls], short) {
				ix.synTerms[ls] = append(ix.synTerms[ls], short)
			}
		}
		for s, syns := range synonyms {
			var ids []int32
			for _, x := range syns {
				if id, ok := ix.terms[x]; ok {
					ids = append(ids, id)
				}
			}
			for _, id := range ids {
				if !slices.Contains(ix.synTerms[s], id) {
					ix.synTerms[s] = append(ix.synTerms[s], id)
				}
			}
		}
		// A noun for who does something ("watcher", "assignee",
		// "creator") expands to its verb when the catalog uses that too,
		// and back; a request that says only the verb ("watching")
		// finds the noun either way.
		for _, w := range slices.Sorted(maps.Keys(raw)) {
			id := raw[w]
			bases := agentBases(w)
			if id < 0 || len(bases) == 0 {
				continue
			}
			ws := string(stem([]byte(w)))
			linked := false
			for _, b := range bases {
				bs := string(stem([]byte(b)))
				bid, ok := ix.terms[bs]
				if !ok || bid == id {
					continue
				}
				if !slices.Contains(ix.synTerms[ws], bid) {
					ix.synTerms[ws] = append(ix.synTerms[ws], bid)
				}
				if !slices.Contains(ix.synTerms[bs], id) {
					ix.synTerms[bs] = append(ix.synTerms[bs], id)
				}
				if _, ok := ix.agentOf[bs]; !ok {
					if ix.agentOf == nil {
						ix.agentOf = map[string]int32{}
					}
					ix.agentOf[bs] = id
				}
				linked = true
				break
			}
			if bs := string(stem([]byte(bases[0]))); !linked && bs != ws && !slices.Contains(ix.synTerms[bs], id) {
				ix.synTerms[bs] = append(ix.synTerms[bs], id)
				// "remind me to...": the verb makes one.
				if ix.madeBy == nil {
					ix.madeBy = map[string]struct{}{}
				}
				ix.madeBy[bs] = struct{}{}
			}
		}
	}

	if ix.synTerms != nil {
		// A noun in -al made from a verb the catalog writes and starts
		// titles with (approval, removal, reversal, archival) expands
		// to that verb, and back: "reverse transfer tr_4" asks for
		// PostTransfersIdReversals. Adjectives in -al (original,
		// general) have no such verb.
		for _, w := range slices.Sorted(maps.Keys(raw)) {
			if id := raw[w]; id >= 0 && len(w) > 6 && strings.HasSuffix(w, "al") {
				ix.linkVerbNoun(raw, w, id)
			}
		}
	}
	ix.mergedLeft.Store(int64(len(ix.postings)))
	ix.pool.New = func() any {
		return &scratch{
			score: make([]float64, ix.n),
			acc:   make([]float32, ix.n),
			words: make([]uint32, ix.n),
			seen:  make([]uint64, (ix.n+63)/64),
			said:  make([]uint64, (ix.n+63)/64),
			in:    make([]uint64, (ix.n+63)/64),
		}
	}
	return ix
}

func sumTo(l []int32, f int) int32 {
	var n int32
	for _, x := range l[:f] {
		n += x
	}
	return n
}

// scratch is the per-Search working memory, pooled so a search allocates
// almost nothing.
type scratch struct {
	score   []float64 // accumulated score per doc, zero when untouched
	acc     []float32 // pseudo-frequency of the current query word per doc
	touched []int32   // docs with acc != 0
	matched []int32   // docs with score != 0
	heap    []Hit
	buf     []byte
	word    []byte
	stems   []byte  // analysed query words, concatenated
	ends    []int   // end offsets into stems
	qterms  []int32 // term ids of every query word and its synonyms
	prev    []byte  // the previous query word, while analysing
	raw     []byte  // the query's content words as written, concatenated
	rawEnds []int
	qstarts []int32   // where each query word's ids start in qterms, and the end
	qidf    []float64 // the idf of each query word, 0 when it matches nothing
	qown    []int32   // how many of each word's ids in qterms are its own, not synonyms
	mkey    []byte    // the key of a word's merged list (wordPostings)
	qub     []float64 // a bound on each word's contribution to a score
	order   []int32   // the words in the order they are scored
	kth     []float64 // heap of kthScore
	seen    []uint64  // a bit per doc some query word matches
	said    []uint64  // a bit per doc that says the word being scored (scoreWord), not only takes it as a value
	in      []uint64  // a bit per doc in matched
	qself   int       // the query word that stands for the caller, -1 when none
	who     bool      // the request asks who (analyze)
	clean   []byte    // the query without its values (request.go)
	long    []byte    // the query with its acronyms spelled out (acronym.go)
	qtext   []byte    // the query's words, for the second stage
	qends   []int
	qids    []int32
	qitems  []int32 // term ids of the things the request names by value (request.go)
	// pluralIDs and oneIDs are the term ids of the request's words the
	// catalog knows, said in the plural and not; nsSeen marks the
	// namespaces pluralsUnusedWhereOneIs has looked at.
	pluralIDs, oneIDs []int32
	nsSeen            []uint64
	// bareKey: the request names a key with no word for its thing
	// ("move PROJ-7 to Done"), and the catalog's word for it ends the
	// words read
	bareKey bool
	qkinds  []int32 // term ids of the words for the kinds of the request's values (request.go)
	// keyAfterFirst is set when a key follows the request's first word
	// ("link PROJ-1 as blocking PROJ-2"; request.go).
	keyAfterFirst bool
	// thingAfterFirst is set when the request's second word names a
	// thing and a value follows it ("release version 2.0"; request.go).
	thingAfterFirst bool
	qpairs          []int32 // codes of the request's pairs of words that follow each other
	qplural         []int32 // term ids of the request's words written in the plural
	qobject         int32   // term id of the word naming what the request's verb acts on, -1 when none
	qobjectSyn      []int32 // the term ids of its synonyms
	whoVerb         int32   // term id of a past act after "who" ("who opened"), no state; -1 when none
	qplaces         []int32 // term ids of the words naming where, to or with what (after "on", "to the"...)
	// qcompounds holds, two by two, the term ids of the request's pairs
	// of words that are one of the catalog's compounds ("workflow runs"):
	// the first names no thing of its own.
	qcompounds []int32
	// qstates are the term ids of the request's participles that name a
	// state of the thing ("my stopped codespace"); notVerb is, while the
	// second stage weighs one tool, its title's verb when a state names
	// it, which the request then does not say (rerank); -1 otherwise.
	qstates []int32
	notVerb int32
	words   []uint32 // per matched doc, a bit for each query word it matched
	valued  bool     // the request names a thing by value (stripValues left it out)
	urlOnly bool     // the request's "url" stands for a URL it gives, and it says no "url"
	qfile   bool     // the request names a file
	idWord  string   // the word for what an id's prefix names (idPrefixNoun), or ""
	verbBit uint32   // the bit of the request's first word
	vset    []uint64 // by term id: the request's verb's terms (markVerbTerms)
	vterms  []int32  // the terms marked in vset
	selfBit uint32   // the bit of the word for the caller

	// The request's namespaces (namespaces.go): each one's slot, the
	// namespaces by slot, their matching tools' counts per word, their
	// best tools, their weights and the highest; the catalog's counts.
	nsSlot     []int32
	nsTouched  []int32
	nsCount    []float64
	nsBest     []Hit
	nsWeight   []float64
	nsMax      float64
	nsWords    int
	nsAll      []float64
	nsExtraBuf []Hit
}

// Search ranks the docs for query and returns at most limit hits, best
// first, and the total number of docs that match at least one query word.
// namespace "" searches all namespaces; an unknown namespace matches
// nothing. A blank query lists the namespace (or, with namespace "", every
// doc) in (namespace, name) order with Score 0, and total is the count of
// listed docs. Ties in score are broken by namespace, then name.
//
// Search is safe for concurrent use.
func (ix *Index) Search(query, namespace string, limit int) (hits []Hit, total int) {
	list := ix.all
	ns := int32(-1)
	if namespace != "" {
		id, ok := ix.nsIDs[namespace]
		if !ok {
			return nil, 0
		}
		ns = id
		list = ix.byNS[id]
	}
	if strings.TrimSpace(query) == "" {
		n := min(max(limit, 0), len(list))
		hits = make([]Hit, n)
		for i := range n {
			hits[i] = Hit{Doc: int(list[i])}
		}
		return hits, len(list)
	}

	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)

	query = unHyphen(query)
	query = ix.urlThings(query)
	query = withoutQuotedText(query)
	sc.qitems, sc.bareKey = ix.valueNouns(sc, query, sc.qitems[:0])
	urlOnly, files := urlsAndFiles(query)
	sc.urlOnly, sc.qfile = urlOnly, files > 0
	stripped, clean := stripValues(sc.clean, query, ix)
	sc.valued = stripped != query
	query, sc.clean = stripped, clean
	query, sc.long = ix.expandAcronyms(sc.long, query)
	query = ix.rePrefix(query)
	query = plainVerb(query)
	if len(sc.qitems) > 0 {
		query = showOne(query, ix.startsWith(query))
	}
	if sc.bareKey {
		// "move PROJ-7 to Done" asks to move an issue.
		query += " " + ix.keyWord
	}
	if files >= 2 {
		// "read package.json and tsconfig.json": several files.
		query += " multiple"
	}
	if sc.idWord != "" {
		// "change cus_4's shipping address" is about a customer.
		query += " " + sc.idWord
	}
	ix.analyze(sc, query)

	// A question about who does something ("who is watching the repo",
	// "who follows me") asks for the people the catalog names by a noun
	// for who does it (watchers, followers): that noun counts as the
	// verb itself, and "who" adds nothing more.
	agentWho := false
	if sc.who && len(ix.agentOf) > 0 {
		start := 0
		for _, end := range sc.ends {
			if _, ok := ix.agentOf[string(sc.stems[start:end])]; ok {
				agentWho = true
			}
			start = end
		}
	}

	// Each query word with its synonyms, and a bound on what it can add
	// to a doc's score.
	start := 0
	sc.verbBit = 0
	sc.qstarts, sc.qidf, sc.qown, sc.qub = sc.qstarts[:0], sc.qidf[:0], sc.qown[:0], sc.qub[:0]
	sc.qself, sc.selfBit = -1, 0
	for i, end := range sc.ends {
		w := sc.stems[start:end]
		start = end
		bit := uint32(0)
		if i < 32 {
			bit = 1 << i
		}
		if string(w) == selfTerm {
			sc.qself = i
			sc.selfBit = bit
		} else if sc.verbBit == 0 {
			sc.verbBit = bit
		}
		sc.qstarts = append(sc.qstarts, int32(len(sc.qterms)))
		agent := int32(-1)
		if agentWho {
			if string(w) == string(whoBytes) {
				// The doer's noun names the people "who" asks for.
				sc.qidf, sc.qown, sc.qub = append(sc.qidf, 0), append(sc.qown, 0), append(sc.qub, 0)
				continue
			}
			if a, ok := ix.agentOf[string(w)]; ok {
				agent = a
			}
		}
		// A verb of reading after the request's first word names a thing
		// or a state ("traffic views", "the details of PROJ-1", "the open
		// pull requests") rather than what to do: it is not widened to
		// the other verbs of reading. A value word ("the open pull
		// requests", "open alerts": a state to filter by, which the
		// second stage credits to the tools that take it) weighs half,
		// and is not widened even first, unless it is a verb there.
		value := ix.isValueWord(w, i == 0)
		expand := (i == 0 && !value) || actionVerbs[string(w)]&(actGet|actList) == 0 && !readVerbs[string(w)]
		if sc.urlOnly && string(w) == "url" {
			// "summarize https://example.com/a": a tool that takes a
			// URL, not a web page's synonyms (GitHub's Pages).
			expand = false
		}
		ix.resolveWord(sc, w, expand, agent)
		if value {
			sc.qidf[i] *= valueWordWeight
			sc.qub[i] *= valueWordWeight
		}
	}
	sc.qstarts = append(sc.qstarts, int32(len(sc.qterms)))

	// Words that can add most go first. Once the k-th best score so far
	// exceeds all that the remaining words can add together, a doc they
	// would bring in could not make the top k: they then only add to the
	// docs already in (MaxScore, Turtle and Flood 1995). They still mark
	// the docs they match, which total counts.
	k := max(limit, rerankDefaults.depth)
	sc.order = sc.order[:0]
	rest := 0.0
	for i := range sc.qub {
		sc.order = append(sc.order, int32(i))
		rest += sc.qub[i]
	}
	slices.SortStableFunc(sc.order, func(a, b int32) int { return cmp.Compare(sc.qub[b], sc.qub[a]) })
	admit := true
	for j, i := range sc.order {
		if j > 0 && admit && len(sc.matched) >= k {
			admit = rest >= sc.kthScore(k)
		}
		ix.scoreWord(sc, int(i), ns, admit)
		rest -= sc.qub[i]
	}
	for i, b := range sc.seen {
		total += bits.OnesCount64(b)
		sc.seen[i] = 0
		sc.in[i] = 0
	}

	hits = ix.topK(sc, max(limit, min(rerankDefaults.depth, total)))
	if ix.sibling != nil {
		hits = ix.withSiblings(hits)
	}
	extra := 0
	if ix.gated && ns < 0 && len(hits) > 0 {
		hits, extra = ix.namespaceStats(sc, hits)
	}
	ix.rerank(sc, hits, query, extra)
	sc.resetNamespaces()
	switch {
	case limit <= 0:
		hits = nil
	case len(hits) > limit:
		hits = hits[:limit]
	}
	sc.qterms = sc.qterms[:0]
	// A doc no word matched has a zero score and no words, for the next
	// search: a doc it brings in unmatched (a sibling) reads so.
	if len(sc.matched) > len(sc.score)/16 {
		clear(sc.score)
		clear(sc.words)
	} else {
		for _, d := range sc.matched {
			sc.score[d], sc.words[d] = 0, 0
		}
	}
	sc.matched = sc.matched[:0]
	return hits, total
}

// negation holds the words that deny the next one: "not", "never" and
// the "t" of "aren't", which the tokenizer splits off.
var negation = map[string]bool{"not": true, "never": true, "t": true}

// analyze splits the query into distinct stems, dropping stop words, into
// sc.stems/sc.ends.
func (ix *Index) analyze(sc *scratch, query string) {
	sc.stems, sc.ends = sc.stems[:0], sc.ends[:0]
	sc.raw, sc.rawEnds = sc.raw[:0], sc.rawEnds[:0]
	sc.who = false
	sc.prev = sc.prev[:0]
	sc.buf = forEachToken(query, sc.buf, func(tok []byte) {
		prev := sc.prev
		sc.prev = append(sc.word[:0], tok...) // swap buffers: word is rebuilt below
		sc.word = prev
		switch {
		case string(tok) == "me" && !forMe[string(prev)]:
			// "show me", "assign to me": whom a thing goes to.
			return
		case selfWords[string(tok)]:
			// "my", "I", "for me": the words the catalog uses for its
			// caller.
			tok = selfTermBytes
		case string(tok) == "who":
			// "who" asks for people, whom catalogs call users, members
			// or accounts.
			tok = whoBytes
			sc.who = true
		default:
			if _, stop := stopWords[string(tok)]; stop {
				return
			}
		}
		if negation[string(prev)] {
			// "edits that aren't staged": the catalog's unstaged ones.
			sc.word = stem(append(append(sc.word[:0], "un"...), tok...))
			if ix.knows(sc.word) {
				sc.addStem()
			}
		}
		sc.word = stem(append(sc.word[:0], tok...))
		if len(tok) > 4 && string(tok[:2]) == "un" && !ix.titleVerb(sc.word) {
			// "unwatch the repo": a word in un- no title starts with
			// undoes what its base names.
			if ix.knows(sc.word) {
				sc.addStem()
			}
			sc.word = stem(append(sc.word[:0], tok[2:]...))
		}
		sc.addStem()
	})
	// The request's words as written: split at spaces and punctuation
	// only, so "GitHub" stays one word.
	after := -1 // the last word kept, when it came right before
	for i := 0; i < len(query); {
		j := i
		for j < len(query) && isWordByte(query[j]) {
			j++
		}
		if j > i {
			w := query[i:j]
			_, stop := stopWords[strings.ToLower(w)]
			if stop && after >= 0 && len(sc.rawWord(after)) >= 3 {
				// "pay out", "check out": a verb and its particle
				// that the catalog writes as one word.
				sc.word = stem(appendLower(append(sc.word[:0], sc.rawWord(after)...), w))
				if _, ok := ix.terms[string(sc.word)]; ok {
					sc.addStem()
				}
			}
			after = -1
			if !stop {
				sc.raw = appendLower(sc.raw, w)
				sc.rawEnds = append(sc.rawEnds, len(sc.raw))
				if len(sc.rawEnds) == 1 && (j == len(query) || query[j] == ' ') {
					after = 0
				}
			}
		}
		i = j + 1
	}
	// Two words of the request that the catalog writes as one ("log
	// work" and worklog, "web hook" and webhook) add that word.
	n := len(sc.rawEnds)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			a, b := sc.rawWord(i), sc.rawWord(j)
			if len(a) < 3 || len(b) < 3 {
				continue
			}
			sc.word = append(append(sc.word[:0], a...), b...)
			sc.word = stem(sc.word)
			if _, ok := ix.terms[string(sc.word)]; ok {
				sc.addStem()
			}
		}
	}
}

// startsWith reports whether some tool's title starts with the request's
// first word.
func (ix *Index) startsWith(q string) bool {
	s, e := nextWord(q, 0)
	var buf [32]byte
	return s < e && ix.titleVerb(stem(appendLower(buf[:0], q[s:e])))
}

// isWordByte reports whether c is part of a word: an ASCII letter or
// digit, or any byte of a character beyond ASCII.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= utf8.RuneSelf
}

// rawWord is the i-th word of the request as written, lower-cased.
func (sc *scratch) rawWord(i int) []byte {
	start := 0
	if i > 0 {
		start = sc.rawEnds[i-1]
	}
	return sc.raw[start:sc.rawEnds[i]]
}

// addStem adds sc.word to the query's stems unless it is there already.
func (sc *scratch) addStem() {
	start := 0
	for _, end := range sc.ends {
		if string(sc.stems[start:end]) == string(sc.word) {
			return
		}
		start = end
	}
	sc.stems = append(sc.stems, sc.word...)
	sc.ends = append(sc.ends, len(sc.stems))
}

// resolveWord appends the term ids of query word w and, when expand, of
// its synonyms to sc.qterms, and its idf, how many of the ids are its own
// and a bound on its score to sc.qidf, sc.qown and sc.qub. A word the
// catalog lacks has no ids and an idf of 0.
func (ix *Index) resolveWord(sc *scratch, w []byte, expand bool, agent int32) {
	first := len(sc.qterms)
	if id, ok := ix.terms[string(w)]; ok {
		sc.qterms = append(sc.qterms, id)
	}
	if agent >= 0 {
		sc.qterms = append(sc.qterms, agent)
	}
	own := len(sc.qterms) - first
	if expand {
		for _, t := range ix.synTerms[string(w)] {
			if t != agent {
				sc.qterms = append(sc.qterms, t)
			}
		}
	}
	maxDF, maxTF := int32(0), 0.0
	for i, t := range sc.qterms[first:] {
		weight := 1.0
		if i >= own {
			weight = ix.expand
		}
		maxDF = max(maxDF, ix.offsets[t+1]-ix.offsets[t])
		maxTF += weight * float64(ix.maxTF[t])
	}
	idf, ub := 0.0, 0.0
	if len(sc.qterms) > first {
		df := float64(maxDF)
		idf = math.Log(1 + (float64(ix.n)-df+0.5)/(df+0.5))
		ub = idf * maxTF * (ix.k1 + 1) / (ix.k1 + maxTF)
	}
	sc.qidf = append(sc.qidf, idf)
	sc.qown = append(sc.qown, int32(own))
	sc.qub = append(sc.qub, ub)
}

// scoreWord adds the i-th query word's BM25F contribution to sc.score. The
// word and its synonyms act as one term (as a synonym query does in
// Lucene): their pseudo-frequencies add up, synonyms scaled by
// Options.Expansion, before saturation, and the idf is that of the most
// frequent member. Unless admit, only docs already scored gain. Every doc
// the word matches is marked in sc.seen.
func (ix *Index) scoreWord(sc *scratch, i int, ns int32, admit bool) {
	members := sc.qterms[sc.qstarts[i]:sc.qstarts[i+1]]
	if len(members) == 0 {
		return
	}
	idf, k1 := sc.qidf[i], ix.k1
	bit := uint32(0)
	if i < 32 {
		bit = 1 << i
	}
	if ps, weight, ok := ix.wordPostings(sc, i, members); ok {
		ix.scoreList(sc, ps, weight, idf, bit, ns, admit)
		return
	}
	own := int(sc.qown[i])
	for m, t := range members {
		weight := float32(1)
		if m >= own {
			weight = float32(ix.expand)
		}
		ps := ix.postings[ix.offsets[t]:ix.offsets[t+1]]
		seen, in, acc := sc.seen, sc.in, sc.acc
		for _, p := range ps {
			if ns >= 0 && ix.docNS[p.doc] != ns {
				continue
			}
			w, b := p.doc>>6, uint64(1)<<(p.doc&63)
			seen[w] |= b
			if !admit && in[w]&b == 0 {
				continue
			}
			if acc[p.doc] == 0 {
				sc.touched = append(sc.touched, p.doc)
			}
			ptf, said := p.weight()
			acc[p.doc] += weight * ptf
			if said {
				sc.said[w] |= b
			}
		}
	}
	for _, d := range sc.touched {
		tf := float64(sc.acc[d])
		sc.acc[d] = 0
		if sc.in[d>>6]&(1<<(d&63)) == 0 {
			sc.matched = append(sc.matched, d)
			sc.words[d] = 0
			sc.in[d>>6] |= 1 << (d & 63)
		}
		sc.score[d] += idf * tf * (k1 + 1) / (k1 + tf)
		if w, b := d>>6, uint64(1)<<(d&63); sc.said[w]&b != 0 {
			sc.said[w] &^= b
			sc.words[d] |= bit
		}
	}
	sc.touched = sc.touched[:0]
}

// wordPostings returns the postings of the i-th query word, whose terms
// are members (the word's own first, then its synonyms), as one list and
// the weight of its pseudo-frequencies: a single term's own list, or the
// word's merged list (merged). It reports false when the merged list
// does not fit in what is left of the budget for them.
func (ix *Index) wordPostings(sc *scratch, i int, members []int32) ([]posting, float32, bool) {
	if len(members) == 1 {
		weight := float32(1)
		if sc.qown[i] == 0 {
			weight = float32(ix.expand)
		}
		t := members[0]
		return ix.postings[ix.offsets[t]:ix.offsets[t+1]], weight, true
	}
	// The word's terms depend on where it stands in the request (a
	// verb's synonyms, or the noun for who does it after "who"), so the
	// key is the terms themselves, and how many are the word's own.
	sc.mkey = append(sc.mkey[:0], byte(sc.qown[i]))
	for _, t := range members {
		sc.mkey = binary.LittleEndian.AppendUint32(sc.mkey, uint32(t))
	}
	ps, ok := ix.merged(sc.mkey, members, int(sc.qown[i]))
	return ps, 1, ok
}

// merged returns the postings of a word that expands to several terms as
// one list in doc order, each doc's pseudo-frequencies added up as
// scoreWord does (the word's own at full weight, its synonyms' scaled by
// the expansion weight), so a search reads one list instead of adding up
// several. Lists are made on first use and kept while they fit in a
// budget of as many postings as the index holds; past it, it reports
// false. key says the terms and how many are the word's own: the same
// word expands to other terms in other requests.
func (ix *Index) merged(key []byte, members []int32, own int) ([]posting, bool) {
	if v, ok := ix.mergedLists.Load(string(key)); ok {
		return v.([]posting), true
	}
	n := int64(0)
	for _, t := range members {
		n += int64(ix.offsets[t+1] - ix.offsets[t])
	}
	if ix.mergedLeft.Add(-n) < 0 {
		ix.mergedLeft.Add(n)
		return nil, false
	}
	// Each term's list is in doc order: merging them one after the other
	// adds a doc's pseudo-frequencies up in the terms' order, as
	// scoreWord does.
	var out, next []posting
	for m, t := range members {
		weight := float32(1)
		if m >= own {
			weight = float32(ix.expand)
		}
		ps := ix.postings[ix.offsets[t]:ix.offsets[t+1]]
		next = slices.Grow(next[:0], len(out)+len(ps))
		j := 0
		for _, p := range ps {
			for j < len(out) && out[j].doc < p.doc {
				next = append(next, out[j])
				j++
			}
			if j < len(out) && out[j].doc == p.doc {
				next = append(next, posting{p.doc, addTF(out[j].tf, weight*p.tf)})
				j++
				continue
			}
			next = append(next, posting{p.doc, weight * p.tf})
		}
		next = append(next, out[j:]...)
		out, next = next, out
	}
	out = slices.Clone(out) // what is kept is what the budget counts
	if v, loaded := ix.mergedLists.LoadOrStore(string(key), out); loaded {
		ix.mergedLeft.Add(n)
		return v.([]posting), true
	}
	ix.mergedLeft.Add(n - int64(len(out)))
	return out, true
}

// scoreList adds the BM25F contributions of one query word, whose
// postings are ps and pseudo-frequencies scaled by weight, to sc.score;
// unless admit, only docs already scored gain. Every doc it matches is
// marked in sc.seen.
func (ix *Index) scoreList(sc *scratch, ps []posting, weight float32, idf float64, bit uint32, ns int32, admit bool) {
	k1 := ix.k1
	seen, in, score, words := sc.seen, sc.in, sc.score, sc.words
	for _, p := range ps {
		if ns >= 0 && ix.docNS[p.doc] != ns {
			continue
		}
		w, b := p.doc>>6, uint64(1)<<(p.doc&63)
		seen[w] |= b
		if in[w]&b == 0 {
			if !admit {
				continue
			}
			in[w] |= b
			sc.matched = append(sc.matched, p.doc)
			words[p.doc] = 0
		}
		ptf, said := p.weight()
		tf := float64(weight * ptf)
		score[p.doc] += idf * tf * (k1 + 1) / (k1 + tf)
		if said {
			words[p.doc] |= bit
		}
	}
}

// kthScore is the k-th best score of the docs matched so far (k <=
// len(sc.matched)), found with a bounded min-heap.
func (sc *scratch) kthScore(k int) float64 {
	h := sc.kth[:0]
	for _, d := range sc.matched {
		s := sc.score[d]
		if len(h) < k {
			h = append(h, s)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if h[p] <= h[i] {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			continue
		}
		if s <= h[0] {
			continue
		}
		h[0] = s
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < len(h) && h[l] < h[m] {
				m = l
			}
			if r < len(h) && h[r] < h[m] {
				m = r
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	sc.kth = h
	return h[0]
}

// better reports whether a ranks before b.
func (ix *Index) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return ix.rank[a.Doc] < ix.rank[b.Doc]
}

// topK selects the best limit matched docs with a bounded heap whose root
// is the worst hit kept so far.
func (ix *Index) topK(sc *scratch, limit int) []Hit {
	if limit <= 0 || len(sc.matched) == 0 {
		return nil
	}
	h := sc.heap[:0]
	// Once the heap is full, a doc scoring under its worst hit cannot
	// enter: most are passed over on that one comparison.
	floor := math.Inf(-1)
	for _, d := range sc.matched {
		s := sc.score[d]
		if s < floor {
			continue
		}
		hit := Hit{Doc: int(d), Score: s}
		if len(h) < limit {
			h = append(h, hit)
			// Sift up.
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !ix.better(h[p], h[i]) {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
			continue
		}
		if !ix.better(hit, h[0]) {
			continue
		}
		h[0] = hit
		// Sift down.
		for i := 0; ; {
			l, r, worst := 2*i+1, 2*i+2, i
			if l < len(h) && ix.better(h[worst], h[l]) {
				worst = l
			}
			if r < len(h) && ix.better(h[worst], h[r]) {
				worst = r
			}
			if worst == i {
				break
			}
			h[i], h[worst] = h[worst], h[i]
			i = worst
		}
		floor = h[0].Score
	}
	sc.heap = h
	hits := slices.Clone(h)
	slices.SortFunc(hits, func(a, b Hit) int {
		if ix.better(a, b) {
			return -1
		}
		if ix.better(b, a) {
			return 1
		}
		return 0
	})
	return hits
}

// valueWordWeight is the weight, in the first stage, of a request's word
// that is one of the valueWords (isValueWord): tried on the tuning
// halves of the task sets from 1 down to 0, 0.5 and 0.6 scored best.
const valueWordWeight = 0.5

// isValueWord reports whether the query word w (a stem) is one of the
// valueWords; the request's first word only when it is no verb of the
// action table or of the catalog's titles ("change" the PR's base).
func (ix *Index) isValueWord(w []byte, first bool) bool {
	id, ok := ix.terms[string(w)]
	if !ok || first && (actionVerbs[string(w)] != 0 || ix.verbs[id]) {
		return false
	}
	_, ok = ix.valueWords[id]
	return ok
}

// valueWords are the terms that are one of the values a parameter of some
// tool takes from a fixed set (Doc.Values: a state, a way, a verdict) and
// no word of any tool's name, title or path: a request's "open", "closed"
// or "merged" then says what to filter by rather than what to do, and
// matching it in descriptions ("will only return open pull requests")
// outweighs the words that name the tool. values are the words of the
// docs' values; entries are their (term, field) occurrences; n is the
// number of terms.
func valueWords(values []int32, entries []entry, n int) map[int32]struct{} {
	label := make([]bool, n)
	for _, e := range entries {
		if e.field == fieldName || e.field == fieldTitle || e.field == fieldPath {
			label[e.term] = true
		}
	}
	var out map[int32]struct{}
	for _, t := range values {
		if t >= 0 && int(t) < n && !label[t] {
			if out == nil {
				out = map[int32]struct{}{}
			}
			out[t] = struct{}{}
		}
	}
	return out
}

// containerMin is how many of a namespace's tools must take a parameter
// without naming it for the parameter to name a container (GitHub's repo
// and org); the task sets score the same with 2 to 30.
const containerMin = 3

// prefixTwins gives a tool whose name is another's with one more word
// first (Slack's admin_conversations_create beside conversations_create,
// by the same method) that word as its scope: the variant for whom the
// word says, which a request asks for by saying it. A word that makes
// containerMin twins or more marks a variant in every name it starts in
// the namespace, twin or not (admin_usergroups_addChannels, beside
// conversations_invite that a member uses); one with no twin is a sole
// variant, which a request may mean without saying its word when no
// other tool does what it asks (rerank).
func prefixTwins(docs []Doc, feat []docFeatures, terms map[string]int32) {
	type key struct{ ns, method, name string }
	// Each name folded to its lower-case letters and digits, and where
	// its first word ends in the folded form.
	folded := make([]string, len(docs))
	firstEnd := make([]int, len(docs))
	seen := make(map[key]bool, len(docs))
	var buf []byte
	for d := range docs {
		buf, firstEnd[d] = foldName(buf[:0], docs[d].Name)
		folded[d] = string(buf)
		seen[key{docs[d].Namespace, strings.ToUpper(docs[d].Method), folded[d]}] = true
	}
	twins := map[[2]string][]int{}
	for d := range docs {
		f, n := folded[d], firstEnd[d]
		if n <= 0 || n >= len(f) || feat[d].scope >= 0 || !seen[key{docs[d].Namespace, strings.ToUpper(docs[d].Method), f[n:]}] {
			continue
		}
		w := f[:n]
		if actionVerbs[string(stem([]byte(w)))] != 0 {
			continue
		}
		k := [2]string{docs[d].Namespace, w}
		twins[k] = append(twins[k], d)
	}
	// A word that makes one twin names a thing the tool is under
	// (usergroups_users_list beside users_list); one that makes several,
	// a variant.
	scopes := map[[2]string]int32{}
	twin := make([]bool, len(docs))
	for k, ds := range twins {
		if len(ds) < containerMin {
			continue
		}
		if id, ok := terms[string(stem([]byte(k[1])))]; ok {
			scopes[k] = id
			for _, d := range ds {
				twin[d] = true
			}
		}
	}
	if len(scopes) == 0 {
		return
	}
	for d := range docs {
		if n := firstEnd[d]; n > 0 && feat[d].scope < 0 {
			if id, ok := scopes[[2]string{docs[d].Namespace, folded[d][:n]}]; ok {
				feat[d].scope, feat[d].soleVariant = id, !twin[d]
			}
		}
	}
}

// foldName appends name's ASCII letters and digits, lower-cased, to dst,
// and returns where its first word ends there: at the first separator or
// the first capital after a small letter (admin_conversations_create,
// adminConversationsCreate: 5); -1 for a name of one word.
func foldName(dst []byte, name string) ([]byte, int) {
	first := -1
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			dst = append(dst, c)
		case 'A' <= c && c <= 'Z':
			if first < 0 && len(dst) > 0 && i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z' {
				first = len(dst)
			}
			dst = append(dst, c+'a'-'A')
		default:
			if first < 0 && len(dst) > 0 {
				first = len(dst)
			}
		}
	}
	return dst, first
}

// nameTwins gives tools without a path the scope a path gives (see Build's
// path families). Tools whose names differ in one word only, the whole
// name of a parameter that names a container, are twins
// (secret_scanning_list_alerts_for_org, taking org, beside
// secret_scanning_list_alerts_for_repo, taking repo); each but the one
// whose container the namespace's tools take most often gets that word as
// its scope. A container's parameter is one that at least containerMin
// tools take, one at least without naming it (issues_create takes owner
// and repo; dependabot_list_alerts_for_enterprise names its enterprise,
// as most tools that take one do). A name that says two such parameters
// (labels and org in add_custom_labels_to_self_hosted_runner_for_org)
// may differ from its twin's in either, and a name may say a container
// in the long form the catalog writes its short name in (organization
// for org: actions_get_artifact_and_log_retention_settings_organization,
// taking org, beside ..._repository, taking repo); abbrev holds those
// pairs as Build counts them.
func nameTwins(docs []Doc, feat []docFeatures, ids []int32, terms map[string]int32, abbrev map[[2]string]int) {
	// The term ids of each pathless doc's parameters named by one word,
	// wholes[starts[d]:starts[d+1]].
	starts := make([]int32, len(docs)+1)
	var wholes []int32
	var buf []byte
	for d := range docs {
		starts[d] = int32(len(wholes))
		if docs[d].Path != "" {
			continue
		}
		for _, p := range docs[d].Params {
			if !asciiLetters(p) {
				continue
			}
			buf = appendLower(buf[:0], p)
			if id, ok := terms[string(stem(buf))]; ok && !slices.Contains(wholes[starts[d]:], id) {
				wholes = append(wholes, id)
			}
		}
	}
	starts[len(docs)] = int32(len(wholes))
	unnamed := map[string]map[int32]int{}
	named := map[string]map[int32]int{}
	for d := range docs {
		if starts[d] == starts[d+1] {
			continue
		}
		ns := docs[d].Namespace
		pc, nc := unnamed[ns], named[ns]
		if pc == nil {
			pc, nc = map[int32]int{}, map[int32]int{}
			unnamed[ns], named[ns] = pc, nc
		}
		name := feat[d].name(ids)
		for _, t := range wholes[starts[d]:starts[d+1]] {
			if _, in := slices.BinarySearch(name, t); in {
				nc[t]++
			} else {
				pc[t]++
			}
		}
	}
	// A parameter that most tools taking it name (GitHub's enterprise:
	// 44 of 46 tools end in for_enterprise) names a container all the
	// same when enough tools take it.
	for ns, pc := range unnamed {
		for t, n := range pc {
			if n < containerMin && n+named[ns][t] >= containerMin {
				pc[t] = containerMin
			}
		}
	}
	type key struct {
		ns  string
		sig uint64
	}
	type twin struct {
		doc  int
		word int32
	}
	groups := map[key][]twin{}
	var rest []int32
	idIDs := map[int32]bool{}
	for w := range idWords {
		if id, ok := terms[string(stem([]byte(w)))]; ok {
			idIDs[id] = true
		}
	}
	// The long forms the catalog writes its short names' words in
	// (organization for org), as pairs of term ids, short first.
	longOf := map[[2]int32]bool{}
	for p, n := range abbrev {
		short, ok1 := terms[p[0]]
		long, ok2 := terms[string(stem([]byte(p[1])))]
		if n >= abbrevMin && ok1 && ok2 {
			longOf[[2]int32{short, long}] = true
		}
	}
	for d := range docs {
		if starts[d] == starts[d+1] {
			continue
		}
		pc := unnamed[docs[d].Namespace]
		name := feat[d].name(ids)
		// Each container the name says may be the one its twin says
		// otherwise ("labels" and "org" in
		// add_custom_labels_to_self_hosted_runner_for_org).
		for _, said := range name {
			word := int32(-1)
			if pc[said] >= containerMin && slices.Contains(wholes[starts[d]:starts[d+1]], said) {
				word = said
			} else {
				for _, p := range wholes[starts[d]:starts[d+1]] {
					if pc[p] >= containerMin && longOf[[2]int32{p, said}] {
						word = p
						break
					}
				}
			}
			if word < 0 || idIDs[word] {
				// An id names no container: Stripe's tools that take
				// an "id" take the thing their name says by it.
				continue
			}
			rest = rest[:0]
			for _, t := range name {
				if t != said {
					rest = append(rest, t)
				}
			}
			k := key{docs[d].Namespace, signature(rest)}
			groups[k] = append(groups[k], twin{d, word})
		}
	}
	for k, g := range groups {
		if len(g) < 2 {
			continue
		}
		pc := unnamed[k.ns]
		main := g[0].word
		for _, t := range g[1:] {
			if pc[t.word] > pc[main] || pc[t.word] == pc[main] && t.word < main {
				main = t.word
			}
		}
		for _, t := range g {
			if t.word != main {
				feat[t.doc].scope = t.word
			}
		}
	}
}

// undoes reports whether a tool's title (or its description's first
// sentence) starts with a verb in un- whose base the catalog writes:
// "Unstages", not "Until", "Unique" or "Unread".
func (ix *Index) undoes(d *Doc) bool {
	title := d.Title
	if title == "" {
		title = lead(d.Description)
	}
	w := firstWord(title)
	if len(w) <= 4 || !strings.HasPrefix(w, "un") || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") {
		return false
	}
	_, ok := ix.terms[string(stem([]byte(w[2:])))]
	return ok
}

// siblings links the docs that share a namespace and a path, each to the
// next in a ring; nil when none do.
func siblings(docs []Doc) []int32 {
	first := map[[2]string]int32{}
	var ring []int32
	for i := range docs {
		d := &docs[i]
		if d.Path == "" {
			continue
		}
		k := [2]string{d.Namespace, d.Path}
		f, ok := first[k]
		if !ok {
			first[k] = int32(i)
			continue
		}
		if ring == nil {
			ring = make([]int32, len(docs))
			for j := range ring {
				ring[j] = int32(j)
			}
		}
		ring[i] = ring[f]
		ring[f] = int32(i)
	}
	return ring
}

// withSiblings adds to the first stage's best searches the other forms of
// the same search it missed, for a share of their score: Star Trek's
// POST /performer/search takes a form of criteria (stuntPerformer), which
// "stunt doubles" finds, and GET /performer/search pages through the
// same performers without them; Jira's GET and POST /rest/api/3/search
// are one search in the query and in the body. The second stage then
// orders them by what they do.
func (ix *Index) withSiblings(hits []Hit) []Hit {
	n := len(hits)
	for i := range min(siblingDepth, n) {
		h := hits[i]
		if ix.feat[h.Doc].act&actSearch == 0 {
			continue
		}
		for s := ix.sibling[h.Doc]; s != int32(h.Doc); s = ix.sibling[s] {
			if !slices.ContainsFunc(hits, func(x Hit) bool { return x.Doc == int(s) }) {
				hits = append(hits, Hit{Doc: int(s), Score: h.Score * siblingShare})
			}
		}
	}
	if len(hits) > n {
		slices.SortFunc(hits, ix.compareHits)
	}
	return hits
}

// siblingDepth is how many of the best hits bring their siblings in, at
// siblingShare of their score.
const siblingDepth, siblingShare = 3, 0.5
