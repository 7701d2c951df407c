package search

import (
	"hash/maphash"
	"slices"
	"strings"
)

// The second stage. BM25F finds the candidates; the best of them are then
// ordered again with what a catalog's structure says about each tool and
// what the request asks for:
//
//   - an exact match: the request's words are exactly those of a tool's
//     name or of its title ("pullsList", "List pull requests");
//   - the action: a request to list, read, create, change, delete or search
//     something against the tool's. An HTTP operation's action comes from
//     its method and path (GET of a collection lists, GET of an item reads,
//     POST creates, PUT and PATCH change, DELETE deletes); any tool's also
//     from the verb its name or title starts with;
//   - the object: whether the request names the thing the tool acts on, the
//     last fixed segment of its path or the head noun of its title ("Create
//     reaction for an issue comment" acts on reactions, not comments);
//   - the caller: "me", "my" and "I" name the signed-in user, whom catalogs
//     call the authenticated, current or signed-in user, or reach at paths
//     like /user and /me.
//
// Each feature adds a fixed share of the best candidate's score, so the
// first stage still decides between tools the features cannot tell apart.

// Actions, as bits: a tool may do several (PUT both creates and replaces).
const (
	actList uint8 = 1 << iota
	actGet
	actCreate
	actUpdate
	actDelete
	actSearch
)

// actionVerbs maps the stems of verbs, in requests and at the start of tool
// names and titles, to the action they ask for.
var actionVerbs = func() map[string]uint8 {
	m := map[string]uint8{}
	add := func(a uint8, words ...string) {
		for _, w := range words {
			m[string(stem([]byte(w)))] = a
		}
	}
	add(actList, "list", "lists", "show", "enumerate", "browse", "all")
	add(actGet, "get", "read", "fetch", "view", "retrieve", "details", "detail", "info", "inspect", "download")
	add(actCreate, "create", "add", "new", "make", "post", "publish", "insert", "invite", "upload", "submit")
	add(actUpdate, "update", "edit", "change", "modify", "rename", "set", "replace", "patch", "close", "archive", "reopen", "configure")
	add(actDelete, "delete", "remove", "drop", "clear", "destroy", "erase", "purge", "discard", "unset")
	add(actSearch, "search", "find", "lookup", "locate", "query", "searching")
	return m
}()

// selfWords are the request's words for the caller.
var selfWords = map[string]bool{"me": true, "my": true, "i": true, "mine": true, "myself": true, "im": true}

// selfTerm stands for the caller in an analysed request; it expands to
// the first words of the selfPhrases the catalog uses.
const selfTerm = "\x00self"

// selfPhrases are the catalog's: a tool whose name, title or path says one
// of them acts for the caller.
var selfPhrases = []string{"authenticated user", "current user", "signed in user", "logged in user", "the caller", "yourself"}

var selfPhraseWords = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range selfPhrases {
		m[p] = strings.Fields(p)
	}
	return m
}()

// phraseStops end the object phrase of a title: the words after the verb up
// to the first of these name the thing acted on.
var phraseStops = map[string]bool{
	"for": true, "of": true, "in": true, "on": true, "to": true, "by": true, "from": true, "with": true,
	"using": true, "as": true, "at": true, "into": true, "within": true, "across": true, "that": true,
	"which": true, "and": true, "or": true, "over": true, "if": true, "is": true, "are": true,
}

// docFeatures are the second stage's view of one doc.
type docFeatures struct {
	act      uint8
	self     bool
	heads    [2]int32 // term ids of the object's head nouns, -1 when none
	nameSig  uint64   // hash of the distinct stems of the name, 0 when none
	titleSig uint64
	verb     int32   // term id of the title's first word, -1 when none
	title    []int32 // distinct term ids of the title (or lead)
}

var sigSeed = maphash.MakeSeed()

// signature hashes a set of term ids, order-free. It sorts ids in place.
func signature(ids []int32) uint64 {
	if len(ids) == 0 {
		return 0
	}
	slices.Sort(ids)
	s := slices.Compact(ids)
	var h maphash.Hash
	h.SetSeed(sigSeed)
	for _, id := range s {
		h.WriteByte(byte(id))
		h.WriteByte(byte(id >> 8))
		h.WriteByte(byte(id >> 16))
		h.WriteByte(byte(id >> 24))
	}
	return h.Sum64() | 1
}

// wordScratch lets features split texts into words without allocating a
// string per word: words repeat across a catalog, so each is kept once.
type wordScratch struct {
	intern map[string]string
	buf    []byte
	name   []string
	title  []string
	path   []string
	ids    []int32
}

// words returns the lower-case words of s in dst[:0].
func (ws *wordScratch) words(dst []string, s string) []string {
	dst = dst[:0]
	ws.buf = forEachToken(s, ws.buf, func(tok []byte) {
		w, ok := ws.intern[string(tok)]
		if !ok {
			w = string(tok)
			ws.intern[w] = w
		}
		dst = append(dst, w)
	})
	return dst
}

// words returns the lower-case words of s.
func words(s string) []string {
	ws := wordScratch{intern: map[string]string{}}
	return ws.words(nil, s)
}

// lead is the first sentence of a description: up to the first full stop
// followed by a space or a line break, or the first line.
func lead(s string) string {
	s = strings.TrimSpace(s)
	end := len(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		end = i
	}
	for i := 0; i+1 < end; i++ {
		if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') {
			end = i
			break
		}
	}
	return strings.TrimSpace(s[:end])
}

// features computes the second stage's view of a doc; termOf maps a word to
// its term id (-1 for stop words and unknown words).
func features(d *Doc, termOf func(string) int32, selfUsed map[string]bool, abbrev map[[2]string]int, ws *wordScratch) docFeatures {
	f := docFeatures{heads: [2]int32{-1, -1}, verb: -1}
	title := d.Title
	if title == "" {
		title = lead(d.Description)
	}
	nh := 0
	addHead := func(w string) {
		id := termOf(w)
		if id < 0 || nh == 2 || (nh == 1 && f.heads[0] == id) {
			return
		}
		f.heads[nh] = id
		nh++
	}

	// The path: the method gives the action, the last fixed segment the
	// object (the one before it when the last is a verb, as in
	// /characters/search).
	if d.Path != "" {
		var fixed []string
		segs := strings.Split(strings.Trim(d.Path, "/"), "/")
		for _, s := range segs {
			if s != "" && !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, ":") {
				fixed = append(fixed, s)
			}
		}
		item := len(segs) > 0 && (strings.HasPrefix(segs[len(segs)-1], "{") || strings.HasPrefix(segs[len(segs)-1], ":"))
		verb := uint8(0)
		if len(fixed) > 0 {
			last := ws.words(ws.path, fixed[len(fixed)-1])
			ws.path = last
			if len(last) > 0 {
				verb = actionVerbs[string(stem([]byte(last[len(last)-1])))]
				if verb == 0 {
					addHead(last[len(last)-1])
				} else if len(fixed) > 1 {
					prev := ws.words(ws.path, fixed[len(fixed)-2])
					ws.path = prev
					if len(prev) > 0 {
						addHead(prev[len(prev)-1])
					}
				}
			}
			if fixed[0] == "user" || fixed[0] == "me" || fixed[0] == "self" {
				f.self = true
			}
		}
		switch strings.ToUpper(d.Method) {
		case "GET", "HEAD":
			if verb == actSearch {
				f.act |= actSearch | actList
			} else if item {
				f.act |= actGet
			} else {
				f.act |= actList | actGet
			}
		case "POST":
			if verb == actSearch {
				f.act |= actSearch | actList
			} else {
				f.act |= actCreate
			}
		case "PUT":
			f.act |= actCreate | actUpdate
		case "PATCH":
			f.act |= actUpdate
		case "DELETE":
			f.act |= actDelete
		}
	}

	// The name's first verb ("reactions/create-for-issue", "list_issues").
	nameWords := ws.words(ws.name, d.Name)
	ws.name = nameWords
	for _, w := range nameWords[:min(3, len(nameWords))] {
		if a := actionVerbs[string(stem([]byte(w)))]; a != 0 {
			f.act |= a
			break
		}
	}

	// The title's object phrase: after the leading verb, articles skipped,
	// up to the first preposition; its last word is the head noun.
	tw := ws.words(ws.title, title)
	ws.title = tw
	if len(tw) > 0 {
		f.verb = termOf(tw[0])
		start := 0
		if a := actionVerbs[string(stem([]byte(tw[0])))]; a != 0 {
			start = 1
			if d.Path == "" {
				f.act |= a
			}
		}
		var phrase []string
		for _, w := range tw[start:] {
			if phraseStops[w] {
				break
			}
			if w == "a" || w == "an" || w == "the" || w == "all" {
				continue
			}
			phrase = append(phrase, w)
		}
		if len(phrase) > 0 {
			addHead(phrase[len(phrase)-1])
		}
	}

	// A short word of the name that begins a longer word of the title is
	// likely its abbreviation ("orgs/list-members", "List organization
	// members"); Build keeps the pairs that recur.
	for _, v := range nameWords {
		if len(v) < 2 || len(v) > 5 {
			continue
		}
		sv := string(stem([]byte(v)))
		if slices.Contains(tw, v) || slices.Contains(tw, sv) {
			continue // the title says it too: not abbreviated here
		}
		for _, u := range tw {
			if len(u) >= len(sv)+3 && strings.HasPrefix(u, sv) {
				abbrev[[2]string{sv, u}]++
			}
		}
	}
	for _, p := range selfPhrases {
		if hasPhrase(nameWords, p) || hasPhrase(tw, p) {
			f.self = true
			selfUsed[p] = true
		}
	}

	ids := ws.ids[:0]
	defer func() { ws.ids = ids }()
	for _, w := range nameWords {
		if id := termOf(w); id >= 0 {
			ids = append(ids, id)
		}
	}
	f.nameSig = signature(ids)
	ids = ids[:0]
	for _, w := range tw {
		if id := termOf(w); id >= 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	f.title = slices.Clip(slices.Compact(slices.Clone(ids)))
	if d.Title != "" {
		f.titleSig = signature(ids)
	}
	return f
}

// queryFeatures is the second stage's view of a request.
type queryFeatures struct {
	act  uint8
	self bool
	sig  uint64
	verb int32 // term id of the request's first word when tools start with it, else -1
	n    int   // content words
	// fromVerb: act or verb come from the request's first word
	fromVerb bool
}

// Second-stage weights, as shares of the best candidate's first-stage
// score.
//
// The second stage looks at the rerankDepth best candidates of requests of
// at most rerankMaxWords words: a longer request says enough for the first
// stage, and a prior on the action or object would only outvote its words.
const (
	rerankDepth    = 50
	rerankMaxWords = 5
	wExact         = 1.0
	wActMatch      = 0.2
	wHead          = 0.2
	wSelf          = 0.2
	wVerb          = 0.2
	wCover         = 0.6
)

func (ix *Index) queryFeatures(sc *scratch, query string) queryFeatures {
	q := queryFeatures{verb: -1}
	// The words, lower-cased, concatenated in sc.qtext with their ends.
	sc.qtext, sc.qends = sc.qtext[:0], sc.qends[:0]
	sc.buf = forEachToken(query, sc.buf, func(tok []byte) {
		sc.qtext = append(sc.qtext, tok...)
		sc.qends = append(sc.qends, len(sc.qtext))
	})
	word := func(i int) []byte {
		if i >= len(sc.qends) {
			return nil
		}
		start := 0
		if i > 0 {
			start = sc.qends[i-1]
		}
		return sc.qtext[start:sc.qends[i]]
	}
	ids := sc.qids[:0]
	first, plural, question := true, false, false
	for i := range sc.qends {
		w, next := word(i), string(word(i+1))
		if selfWords[string(w)] || (string(w) == "logged" || string(w) == "signed") && next == "in" {
			q.self = true
			continue
		}
		switch string(w) {
		case "which", "what", "who", "how", "whose", "where", "any":
			question = true
		}
		if _, stop := stopWords[string(w)]; stop {
			continue
		}
		sc.word = stem(append(sc.word[:0], w...))
		s := sc.word
		if first {
			// A request that starts with a verb the catalog's tools start
			// with asks for that verb; "open a", "file an" create.
			if id, ok := ix.terms[string(s)]; ok && ix.verbs[id] {
				q.verb = id
			}
			switch {
			case string(w) == "get" && next == "rid":
				q.act = actDelete
			case createsWith[string(w)] && (next == "a" || next == "an" || next == "new"):
				q.act = actCreate
			default:
				q.act = actionVerbs[string(s)]
			}
		}
		first = false
		if len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' && len(s) < len(w) {
			plural = true
		}
		if id, ok := ix.terms[string(s)]; ok {
			ids = append(ids, id)
		} else {
			ids = append(ids, -2-int32(len(ids))) // an unknown word never matches
		}
	}
	q.fromVerb = q.act != 0 || q.verb >= 0
	if q.act == 0 && q.verb < 0 {
		// Without a verb a request asks to see things: a list when it
		// names them in the plural or asks which, else one of them.
		if plural || question {
			q.act = actList | actSearch
		} else {
			q.act = actGet | actList
		}
	}
	q.n = len(ids)
	q.sig = signature(ids)
	sc.qids = ids
	return q
}

// createsWith are verbs that create when an article follows ("open a pull
// request", "file an issue") and mean something else otherwise ("open
// alerts").
var createsWith = map[string]bool{"open": true, "file": true, "start": true, "raise": true}

// rerank reorders the first rerankDepth hits (best first) by the
// second-stage features; hits past them keep their place.
func (ix *Index) rerank(sc *scratch, hits []Hit, query string) {
	if len(hits) < 2 || ix.feat == nil {
		return
	}
	q := ix.queryFeatures(sc, query)
	if q.n > rerankMaxWords {
		return
	}
	top := hits[:min(rerankDepth, len(hits))]
	best := top[0].Score
	for i := range top {
		d := top[i].Doc
		f := &ix.feat[d]
		s := top[i].Score
		if q.sig != 0 && (q.sig == f.nameSig || q.sig == f.titleSig) {
			s += wExact * best
		}
		// The action, the verb and the title's coverage count for a tool
		// that matches more of the request than its verb: "add two
		// numbers" is no request to add observations.
		object := !q.fromVerb || sc.words[d]&^sc.verbBit != 0
		if q.act&f.act != 0 && object {
			s += wActMatch * best
		}
		if f.heads[0] >= 0 && (sc.queryHas(f.heads[0]) || (f.heads[1] >= 0 && sc.queryHas(f.heads[1]))) {
			s += wHead * best
		}
		if q.self && f.self {
			s += wSelf * best
		}
		if q.verb >= 0 && q.verb == f.verb && object {
			s += wVerb * best
		}
		if len(f.title) > 0 && object {
			n := 0
			for _, t := range f.title {
				if sc.queryHas(t) {
					n++
				}
			}
			s += wCover * best * float64(n) / float64(len(f.title))
		}
		top[i].Score = s
	}
	slices.SortStableFunc(top, func(a, b Hit) int {
		if ix.better(a, b) {
			return -1
		}
		if ix.better(b, a) {
			return 1
		}
		return 0
	})
}

// queryHas reports whether a query word, or one of its synonyms, is term t.
func (sc *scratch) queryHas(t int32) bool {
	return slices.Contains(sc.qterms, t)
}

// hasPhrase reports whether the words of phrase follow each other in ws.
func hasPhrase(ws []string, phrase string) bool {
	p := selfPhraseWords[phrase]
	for i := 0; i+len(p) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(p)], p) {
			return true
		}
	}
	return false
}
