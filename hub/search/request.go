package search

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// A request names the things it acts on by value as well as by kind:
// "close PROJ-42", "publish a release for tag v1.2.0", "create a filter
// named 'my open bugs'", "download attachment 10042". The values are not
// the catalog's vocabulary, and matching them only adds noise: a number
// or a quoted title that happens to occur in some description outweighs
// the words that say what to do. Search therefore reads a request without
// its values:
//
//   - quoted text ("...", '...', “...”, ‘...’, «...»);
//   - words with digits that are no vocabulary word: numbers (10042, 2.4,
//     #17), keys and versions (PROJ-42, v1.2.0, v3), long identifiers (four
//     digits or more, as in CHMA0000215045); while base64, utf8, s3 or
//     oauth2 stay words;
//   - the names of constants and environment variables, capitals joined
//     by underscores (NPM_TOKEN: "store the NPM_TOKEN secret" says what
//     to do with a secret, whatever its name says);
//   - addresses: URLs (with their scheme or a web domain: example.org)
//     and e-mail addresses, which read as the words "url" and "email",
//     and @mentions; a URL asks for a tool with a parameter for one (url,
//     uri), and its word, when the request says no "url" itself, is not
//     widened to a web page's synonyms ("summarize the page at
//     https://news.example.com" is no request for GitHub's Pages); a
//     URL whose path names a thing some tool takes by id, then its
//     number, names that thing too
//     (https://github.com/acme/app/pull/12: "pull 12"; urlThings);
//   - files' names (notes.txt, logo.jpg), which read as the word "file",
//     after the name when it is in capitals (README.md: "README file");
//     two or more ask for a tool for several ("read package.json and
//     tsconfig.json": the word "multiple"); a media file's extension says
//     its kind ("show me photo.png": "image file");
//   - paths and names with a slash (acme/app, src/main.go) of which a part
//     is no word of the catalog, while "read/write" stays two words;
//   - the name after "called", "named" or "titled" ("a folder called
//     drafts"), the word before it reading as "named";
//   - a number written #77 after a verb or a preposition ("close #77",
//     "comment on #12"), which reads as the word "issue" in a catalog that
//     has issues;
//   - a branch by one of its usual names after a preposition ("on main",
//     "into develop"), which reads as the name and the word "branch"
//     ("require signed commits on main branch").
//
// A key with no word for its kind before it ("move PROJ-7 to Done") reads
// as the word for the thing the catalog's parameters take by key
// (issueIdOrKey: an issue); so does an id whose prefix begins the word of
// one thing some tool takes by id ("cus_4's shipping address": a
// customer; idPrefixNoun).
//
// What a message or a comment is to say, after "saying" or "with the
// message", is its text and is left out (withoutQuotedText).
//
// A request made of values only is read whole.

// stripValues returns q with its values replaced by spaces (or by the word
// for their kind), built in dst[:0], and dst; it returns q itself when q
// has no values or nothing but values. ix, when not nil, tells the words
// of its catalog from the parts of a path.
func stripValues(dst []byte, q string, ix *Index) (string, []byte) {
	dst = dst[:0]
	words, values := false, false
	named := false // the chunk before says a name follows ("called")
	prev := ""     // the chunk before
	for i := 0; i < len(q); {
		if isSpace(q[i]) {
			dst = append(dst, q[i])
			i++
			continue
		}
		end := chunkEnd(q, i)
		if named {
			// "a folder called drafts", "a team named platform": a
			// name, which the catalog's words only match by chance.
			named = false
			if open, _ := openQuote(q[i:end]); open == 0 {
				dst = appendSpaces(dst, end-i)
				values = true
				i = end
				continue
			}
		}
		named = namesNext(q[i:end])
		if s, e := nextChunk(q, end); named && s < e {
			if open, _ := openQuote(q[s:e]); open == 0 {
				// "the file called settings.py", "which users are
				// called john": the word says a name follows, not a
				// call to run something; it reads as "named", the
				// name as a value.
				dst = append(dst, "named"...)
				values, words = true, true
				prev = q[i:end]
				i = end
				continue
			}
		}
		// A quotation runs from a chunk that opens with a quote mark to
		// the first chunk that closes with the matching one.
		if open, close := openQuote(q[i:end]); open > 0 {
			if j := quoteEnd(q, i+open, close); j > 0 {
				dst = appendSpaces(dst, j-i)
				values = true
				i = j
				continue
			}
		}
		if hashNumber(q[i:end]) && ix.issueRef(prev) {
			// "close #77": an issue by its number.
			dst = append(dst, "issue"...)
			values, words = true, true
			prev = q[i:end]
			i = end
			continue
		}
		if hashName(q[i:end]) && ix.knowsChannels() {
			// "invite bob to #eng": a channel, as chat writes them.
			dst = append(dst, "channel"...)
			values, words = true, true
			prev = q[i:end]
			i = end
			continue
		}
		if branchName(q, i, end, prev) {
			// "require signed commits on main": a branch.
			dst = append(append(dst, trimChunk(q[i:end])...), " branch"...)
			values, words = true, true
			prev = q[i:end]
			i = end
			continue
		}
		prev = q[i:end]
		if isValue(q[i:end]) || ix.slashValue(q[i:end]) {
			// A URL or an e-mail address says what kind of thing the
			// tool takes.
			switch kind := valueKind(q[i:end]); kind {
			case "":
				dst = appendSpaces(dst, end-i)
			case "file":
				dst = appendFileWords(dst, trimChunk(q[i:end]))
				words = true
			default:
				dst = append(dst, kind...)
				words = true
			}
			values = true
		} else {
			dst = append(dst, q[i:end]...)
			words = true
		}
		i = end
	}
	if !values || !words {
		return q, dst
	}
	return string(dst), dst
}

// trimChunk is a chunk of a request without the punctuation around it
// ("(notes.txt),": notes.txt).
func trimChunk(chunk string) string { return strings.Trim(chunk, `.,;:!?()[]{}"'`) }

// namesNext reports whether a chunk says the next one is a name:
// "called", "named", "titled".
func namesNext(chunk string) bool {
	return strings.EqualFold(chunk, "called") || strings.EqualFold(chunk, "named") || strings.EqualFold(chunk, "titled")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func appendSpaces(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
	}
	return dst
}

// nextChunk is where the whitespace-delimited chunk after i starts and
// ends; both are len(q) when there is none.
func nextChunk(q string, i int) (int, int) {
	for i < len(q) && isSpace(q[i]) {
		i++
	}
	return i, chunkEnd(q, i)
}

// chunkEnd is the end of the whitespace-delimited chunk starting at i.
func chunkEnd(q string, i int) int {
	for i < len(q) && !isSpace(q[i]) {
		i++
	}
	return i
}

// openQuote returns the length of the quote mark chunk opens with and the
// mark that closes it; 0 when chunk opens no quotation.
func openQuote(chunk string) (int, string) {
	for _, p := range [...][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}, {"«", "»"}} {
		if strings.HasPrefix(chunk, p[0]) {
			return len(p[0]), p[1]
		}
	}
	return 0, ""
}

// quoteEnd is the end of the first chunk, from i on, that ends with the
// mark close (trailing punctuation aside), or 0 when none does.
func quoteEnd(q string, i int, close string) int {
	for i < len(q) {
		end := chunkEnd(q, i)
		if strings.HasSuffix(strings.TrimRight(q[i:end], ".,;:!?)"), close) {
			return end
		}
		for i = end; i < len(q) && isSpace(q[i]); i++ {
		}
	}
	return 0
}

// valueKind is the word for the kind of value a chunk is, when it says one:
// "url" for a URL, "email" for an e-mail address, "file" for a file's name
// (appendFileWords).
func valueKind(chunk string) string {
	switch at := strings.IndexByte(chunk, '@'); {
	case strings.Contains(chunk, "://") || isDomain(chunk):
		return "url"
	case at > 0 && strings.Contains(chunk[at:], "."):
		return "email"
	case isFileName(trimChunk(chunk)) || dotFile(chunk):
		// "what's in notes.txt": a file, whatever its name says.
		return "file"
	case strings.Contains(chunk, "/") && isFileName(trimChunk(chunk[strings.LastIndexByte(chunk, '/')+1:])):
		// "add src/app.py": a file by its path.
		return "file"
	}
	return ""
}

// isValue reports whether a chunk of a request is a value rather than a
// word: see the comment at the top of this file.
func isValue(chunk string) bool {
	w := trimChunk(chunk)
	if strings.Contains(w, "://") || strings.Contains(w, "@") || isDomain(w) || isFileName(w) || dotFile(chunk) {
		return true
	}
	var digits, letters int
	other := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		case c >= utf8.RuneSelf:
			// Other scripts write numbers inside words ("2024年"): leave
			// them be.
			return false
		default:
			other = true
		}
	}
	switch {
	case constName(w):
		return true
	case digits == 0:
		return false
	case letters == 0, other, digits >= 4:
		return true
	case hexWord(w):
		// 7c1d2e: a commit's hash, cut short.
		return true
	}
	// v3, V2: a version.
	return letters == 1 && (w[0] == 'v' || w[0] == 'V')
}

// constName reports whether w is a constant's or an environment
// variable's name: capitals and digits joined by underscores (NPM_TOKEN).
func constName(w string) bool {
	under, upper := false, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under && upper && w[0] != '_' && w[len(w)-1] != '_'
}

// slashValue reports whether a chunk of a request is a path or a name
// with a slash (acme/app, src/main.go, docs/) of which a part is no word
// of ix's catalog; parts that all are ("read/write", "owner/repo") are
// words. With a nil ix no chunk is.
func (ix *Index) slashValue(chunk string) bool {
	w := trimChunk(chunk)
	if ix == nil || !strings.Contains(w, "/") || strings.Contains(w, "://") {
		return false
	}
	var buf [32]byte
	for part := range strings.SplitSeq(w, "/") {
		if part == "" {
			continue
		}
		if len(part) > len(buf) || !asciiLetters(part) {
			return true
		}
		b := buf[:0]
		for k := range len(part) {
			b = append(b, part[k]|0x20)
		}
		if _, ok := ix.terms[string(stem(b))]; !ok {
			return true
		}
	}
	return false
}

// valueNouns appends to dst the term ids of the words a value follows in
// q: "issue 17", "attachment 10042" and "tag v1.2.0" ask for one issue,
// attachment or tag, which a tool takes by its id. A verb before a value
// counts something instead ("log 3 hours", "show 5 commits"): the
// request's first word and the verbs of actions are no such word, but for
// a first word that names a thing some tool takes by its id and that no
// title starts with ("release 55"). A key
// with no such word before it ("move PROJ-7 to Done") names the thing the
// catalog takes by key (Index.keyNoun): it is appended too, and valueNouns
// reports it, so that Search reads the request with that thing's word. So
// does a key right after the first word, which is then a verb whatever
// thing it may name ("link PROJ-1 as blocking PROJ-2"; sc.keyAfterFirst).
// A word before a value that names nothing taken by id appends its
// synonyms that do ("PR 61": pull).
// It sets sc.qkinds to the words for the values' kinds (appendKinds), a
// time's (timeWords, a year, a time of day: 9am, 14:00), a key's (a word
// in capitals the catalog does not know) and a person's name's
// (appendPersonKinds).
func (ix *Index) valueNouns(sc *scratch, q string, dst []int32) ([]int32, bool) {
	bare := false
	noun := int32(-1)   // the term id of the word before, when it may name a thing
	var nounSyn []int32 // the term ids of its synonyms
	sc.qkinds = sc.qkinds[:0]
	sc.keyAfterFirst, sc.thingAfterFirst = false, false
	sc.idWord = ""
	// Whether the request starts with a question word, and whether the
	// word before may come before someone's name.
	whFirst, afterNamePrep := false, false
	firstDet := false   // the first word is an article or "this"
	capsBefore := false // the word before is a key in capitals
	prevThis := false   // the word before is "this" or "that"
	var lower [32]byte
	for i, n := 0, 0; i < len(q); {
		if isSpace(q[i]) {
			i++
			continue
		}
		end := chunkEnd(q, i)
		chunk := q[i:end]
		i = end
		wasCaps := capsBefore
		capsBefore = false
		afterThis := prevThis
		prevThis = strings.EqualFold(chunk, "this") || strings.EqualFold(chunk, "that")
		if isYear(trimChunk(chunk)) || isClock(trimChunk(chunk)) {
			// "published in 1995", "the 1980s": a time.
			sc.qkinds = ix.appendKindWords(sc.qkinds, timeKinds)
			noun, nounSyn = -1, nil
			continue
		}
		kind := valueKind(chunk)
		if kind == "url" {
			sc.qkinds = ix.appendKindWords(sc.qkinds, urlKinds)
		}
		if kind == "" && (isValue(chunk) || ix.slashValue(chunk)) {
			sc.qkinds = ix.appendKinds(sc.qkinds, chunk)
			if n == 1 && isKey(chunk) {
				// "link PROJ-1 as blocking PROJ-2": a key right after
				// the first word is what that word, a verb, acts on.
				sc.keyAfterFirst, noun = true, -1
			}
			if n == 2 && noun >= 0 && !whFirst && !firstDet {
				// "release version 2.0", "hand filter 10020 over to
				// dave": a thing named by value right after the first
				// word, which is then a verb done to it.
				sc.thingAfterFirst = true
			}
			if noun < 0 {
				// "change cus_4's shipping address": an id whose
				// prefix begins the word for one thing the catalog
				// takes by id names that thing, and Search reads the
				// request with its word, as with a bare key's.
				if noun, sc.idWord = ix.idPrefixNoun(chunk); noun < 0 {
					sc.idWord = ""
				}
			}
			if noun < 0 && ix.keyNoun >= 0 && isKey(chunk) {
				// A key with no noun before it ("move PROJ-7 to Done")
				// names the thing the catalog takes keys of.
				noun, bare = ix.keyNoun, true
			}
			if noun >= 0 && !slices.Contains(dst, noun) {
				dst = append(dst, noun)
			}
			if noun >= 0 && !ix.itemNouns[noun] {
				// "PR 61" names a pull: the synonyms the catalog
				// takes by their id.
				for _, t := range nounSyn {
					if ix.itemNouns[t] && !slices.Contains(dst, t) {
						dst = append(dst, t)
					}
				}
			}
			noun, nounSyn = -1, nil
			continue
		}
		if hashName(chunk) && ix.knowsChannels() {
			// "#eng" names one channel.
			sc.qkinds = ix.appendKindWords(sc.qkinds, channelKinds)
			if id := ix.terms[channelStem]; !slices.Contains(dst, id) {
				dst = append(dst, id)
			}
			noun, nounSyn = -1, nil
			continue
		}
		if kind == "file" {
			sc.qkinds = ix.appendKinds(sc.qkinds, chunk)
		}
		lc := appendLower(lower[:0], chunk)
		if timeWords[string(lc)] {
			// "which workflows failed today", "log 2 hours of work": a
			// time, for a tool that takes one.
			sc.qkinds = ix.appendKindWords(sc.qkinds, timeKinds)
		}
		noun = -1
		n++
		namePrep := afterNamePrep
		if n == 1 {
			whFirst, firstDet = whWords[string(lc)], determiners[string(lc)]
		}
		afterNamePrep = namePreps[string(lc)] || whFirst && auxWords[string(lc)]
		word, possessive := strings.CutSuffix(chunk, "'s")
		if !possessive {
			word, possessive = strings.CutSuffix(chunk, "’s")
		}
		if !asciiLetters(word) {
			continue
		}
		if n == 1 {
			// The first word is the verb, unless it is a thing some
			// tool takes by its id and no verb the titles start with
			// ("release 55", "installation 55 of my app").
			if possessive {
				continue
			}
			sc.word = stem(appendLower(sc.word[:0], word))
			if id, ok := ix.terms[string(sc.word)]; ok && actionVerbs[string(sc.word)] == 0 && !ix.verbs[id] && ix.itemNouns[id] {
				noun = id
			}
			continue
		}
		sc.word = appendLower(sc.word[:0], word)
		if _, stop := stopWords[string(sc.word)]; stop || selfWords[string(sc.word)] {
			continue
		}
		long := len(sc.word) > 2
		singular := sc.word[len(sc.word)-1] != 's'
		// Only a verb's own forms are verbs: "configuration" shares its
		// stem with "configure" but names a thing.
		verb := isVerbForm(sc.word)
		sc.word = stem(sc.word)
		id, known := ix.terms[string(sc.word)]
		if known && (actionVerbs[string(sc.word)] == 0 || !verb) {
			noun, nounSyn = id, ix.synTerms[string(sc.word)]
			if afterThis && singular && ix.itemNouns[id] && !slices.Contains(dst, id) {
				// "unwatch this repo": the one in hand, as a value
				// would name it.
				dst = append(dst, id)
			}
			if wasCaps && singular && ix.itemNouns[id] && !slices.Contains(dst, id) {
				// "who leads the PAY project": a key before the
				// word names one of the things it names.
				dst = append(dst, id)
			}
		}
		capsBefore = !known && capitals(word)
		if !known && capitals(word) {
			// "which permission scheme does MOB use": a word in
			// capitals the catalog does not know is something's key.
			sc.qkinds = ix.appendKindWords(sc.qkinds, keyKinds)
		}
		if !known && long && (possessive || namePrep || n == 2 && !whFirst) {
			// A word the catalog does not know, with no article, right
			// after the verb, after "to", "from", "by" or "and", after
			// a question's "is" or "does", or with an 's, is someone's
			// name: "add carol to copilot", "hand issue 30 to alice",
			// "which groups is alice in", "what's bob's permission on
			// the repo".
			sc.qkinds = ix.appendPersonKinds(sc.qkinds)
		}
	}
	return dst, bare
}

// lowerLetters reports whether s is made of ASCII small letters only.
func lowerLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// idPrefixNoun is the term id of the thing a value such as cus_4 names by
// its prefix, and the catalog's shortest word for it: the one thing some
// tool takes by its id (Index.itemWords) whose words begin with the
// small letters before the underscore, a digit after it (cus: customer,
// customers); -1 and "" when none or several do (in_8: invoice,
// intent...).
func (ix *Index) idPrefixNoun(chunk string) (int32, string) {
	w := trimChunk(chunk)
	if v, ok := strings.CutSuffix(w, "'s"); ok {
		w = v
	} else if v, ok := strings.CutSuffix(w, "’s"); ok {
		w = v
	}
	p, rest, ok := strings.Cut(w, "_")
	if !ok || len(p) < 2 || !lowerLetters(p) || !strings.ContainsAny(rest, "0123456789") {
		// Not an id: a constant's name (DEPLOY_KEY), a word with an
		// underscore (repo_path).
		return -1, ""
	}
	lp := p
	items := ix.itemWords
	i, _ := slices.BinarySearchFunc(items, lp, func(it itemWord, p string) int { return strings.Compare(it.word, p) })
	id, word := int32(-1), ""
	for ; i < len(items) && strings.HasPrefix(items[i].word, lp); i++ {
		switch {
		case id < 0:
			id, word = items[i].id, items[i].word
		case items[i].id != id:
			return -1, ""
		case len(items[i].word) < len(word):
			word = items[i].word
		}
	}
	return id, word
}

// isClock reports whether w is a time of day: 9am, 10:30, 14:00, 3pm,
// 7:45pm.
func isClock(w string) bool {
	lw := strings.ToLower(w)
	lw = strings.TrimSuffix(strings.TrimSuffix(lw, "am"), "pm")
	ampm := len(lw) < len(w)
	h, m, colon := strings.Cut(lw, ":")
	if h == "" || len(h) > 2 || colon && len(m) != 2 || !colon && !ampm {
		return false
	}
	for _, c := range h + m {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isYear reports whether w is a year or a decade of the last or this
// millennium: 1995, 2024, 1980s, 1980's.
func isYear(w string) bool {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "s"), "'")
	if len(w) != 4 || w[0] != '1' && w[0] != '2' {
		return false
	}
	for i := 1; i < 4; i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// isVerbForm reports whether the lower-case word w is one of actionVerbs'
// words or one of them inflected: -s, -es, -d, -ed, -ing (with its e
// back, or a doubled consonant undone), -ied and -ies for -y.
func isVerbForm(w []byte) bool {
	if verbForms[string(w)] {
		return true
	}
	var buf [32]byte
	for _, end := range [...]string{"s", "es", "d", "ed", "ing"} {
		base, ok := bytes.CutSuffix(w, []byte(end))
		if !ok || len(base) < 2 || len(base)+2 > len(buf) {
			continue
		}
		if verbForms[string(base)] || verbForms[string(append(append(buf[:0], base...), 'e'))] {
			return true
		}
		if n := len(base); (end == "ed" || end == "ing") && n > 2 && base[n-1] == base[n-2] && verbForms[string(base[:n-1])] {
			return true
		}
	}
	for _, end := range [...]string{"ied", "ies"} {
		if base, ok := bytes.CutSuffix(w, []byte(end)); ok && len(base)+1 <= len(buf) && verbForms[string(append(append(buf[:0], base...), 'y'))] {
			return true
		}
	}
	return false
}

// capitals reports whether w is two to ten capital letters, as a key is
// written (MOB, PROJ).
func capitals(w string) bool { return len(w) >= 2 && len(w) <= 10 && allCaps(w) }

// namePreps are the words after which a request may name someone ("assign
// the role to alice").
var namePreps = map[string]bool{"to": true, "from": true, "by": true, "and": true}

// whWords start questions whose second word names no one ("how much").
var whWords = map[string]bool{"how": true, "what": true, "which": true, "who": true, "why": true, "when": true, "where": true}

// appendPersonKinds appends to dst, once each, the term ids of the words
// for the kind of value a person's name is: the words "who" becomes
// (whoBytes and its synonyms: member, account...) and a user's name
// (username, login).
func (ix *Index) appendPersonKinds(dst []int32) []int32 {
	dst = ix.appendKindWords(dst, personKinds)
	for _, id := range ix.synTerms[string(whoBytes)] {
		if !slices.Contains(dst, id) {
			dst = append(dst, id)
		}
	}
	return dst
}

// appendLower appends w to dst with its ASCII capitals in lower case.
func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// asciiLetters reports whether w is one or more ASCII letters.
func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// isKey reports whether a value is shaped as a key: capital letters, a
// hyphen and a number (PROJ-42, ENG-300), the way trackers name their
// items.
func isKey(chunk string) bool {
	w := trimChunk(chunk)
	letters, rest, ok := strings.Cut(w, "-")
	if !ok || letters == "" || rest == "" || !('A' <= letters[0] && letters[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(letters); i++ {
		if c := letters[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// keyOf is the thing a parameter takes by its key, given the parameter
// name's words: issueKey, issueIdOrKey and projectKeyOrId take an issue or
// a project by key; "" for other parameters, a parameter that is only a
// key (key) or the id of a key (gpg_key_id) among them.
func keyOf(words []string) string {
	key, noun, nouns := false, "", 0
	for j, w := range words {
		switch w {
		case "key", "keys":
			// The key is the thing's when the name ends with it or
			// offers it in place of the id.
			key = key || j == len(words)-1 || words[j+1] == "or" || j > 0 && words[j-1] == "or"
		case "id", "ids", "or":
		default:
			noun = w
			nouns++
		}
	}
	if !key || nouns != 1 {
		return ""
	}
	return noun
}

// keyedNoun is the stem of the thing a bare key names in a catalog, and
// its word, given how many parameters take each thing by key (keyOf): the
// thing most parameters take, "" when none does.
func keyedNoun(counts map[string]int) (string, string) {
	byStem, word := map[string]int{}, map[string]string{}
	for w, n := range counts {
		s := string(stem([]byte(w)))
		byStem[s] += n
		if word[s] == "" || w < word[s] {
			word[s] = w
		}
	}
	best := ""
	for s, n := range byStem {
		if n > byStem[best] || n == byStem[best] && s < best {
			best = s
		}
	}
	return best, word[best]
}

// hasKey reports whether s contains "key" in any case, without allocating.
func hasKey(s string) bool {
	for i := 2; i < len(s); i++ {
		if s[i]|0x20 == 'y' && s[i-1]|0x20 == 'e' && s[i-2]|0x20 == 'k' {
			return true
		}
	}
	return false
}

// plainVerb rewrites a request that starts with a verb phrase tools are
// not named with to start with the plain verb of what it asks: "open a
// pull request" and "set up a webhook" create, "ask alice to review"
// requests, "get rid of", "clean up" and "stop watching the repo" delete,
// "turn off the workflow" and "stop the workflow from running" disable
// it, "let dependabot open fixes" allows it, "bring back the package"
// restores it, "fix the typo" updates, "make bob an admin" sets a role;
// "closed pull requests" lists them.
// Both stages then read the verb the catalog uses, not words it uses for
// other things ("open" pull requests are a state, "stop" cancels imports).
// It returns q when there is nothing to rewrite.
func plainVerb(q string) string {
	s1, e1 := nextWord(q, 0)
	if e1 == s1 || strings.TrimSpace(q[:s1]) != "" {
		return q
	}
	s2, e2 := nextWord(q, e1)
	w1, w2 := strings.ToLower(q[s1:e1]), strings.ToLower(q[s2:e2])
	if v := phrasalPlain[[2]string{w1, w2}]; v != "" {
		return v + q[e2:]
	}
	if r, ok := splitPhrasal(q, w1, e1); ok {
		return r
	}
	switch {
	case (createsWith[w1] || w1 == "add" && !wordAfter(q, e2, "to")) && (w2 == "a" || w2 == "an" || w2 == "new"):
		// "open a ticket", "add an Epic issue type": make one. "Add a
		// label to the issue" puts one into something.
		return "create" + q[e1:]
	case w1 == "stop" && gerund(w2):
		// "stop watching", "stop following": undo what the next word
		// names.
		return "delete" + q[e1:]
	case w1 == "start" && gerund(w2):
		return "create" + q[e1:]
	case w2 == "that" && keepsThat[w1]:
		// "remember that Alice works at Acme", "note that the office
		// closes at 6pm": what follows is what to keep, not words of
		// the tool that keeps it; to note it is to remember it.
		return "remember"
	case keepsThat[w1] && !plural(w2) && thatAfter(q, e1, 5) > 0:
		// "jot down the insight that mobile users convert better":
		// the thing to keep, then what it says, which is no word of
		// the tool that keeps it ("record labels that..." names
		// things).
		return q[:thatAfter(q, e1, 5)]
	case w1 == "remind":
		// "remind me to call the bank at 3pm", "remind bob that the
		// demo moved": what follows is the reminder's text.
		if cut := clauseAfter(q, e1, 2); cut > 0 {
			return q[:cut]
		}
	case w1 == "ask":
		// "ask alice to review my PR", "ask for a review": request.
		return "request" + q[e1:]
	case w1 == "let" && w2 != "" && w2 != "me" && w2 != "us":
		// "let dependabot open security fixes", "let carol push to
		// main": allow it; "let me know" is no such request.
		return "allow" + q[e1:]
	case w1 == "fix" || w1 == "correct":
		// "fix the typo in my comment": change what is there.
		return "update" + q[e1:]
	case w1 == "stop" || w1 == "keep" || w1 == "prevent":
		// "stop the nightly workflow from running", "keep dependabot
		// from opening PRs": turn off what the gerund names.
		if fs, fe, ok := fromGerund(q, e1); ok {
			return "disable" + q[e1:fs] + q[fe:]
		}
	case w1 == "make" && w2 != "" && !determiners[w2] && w2 != "new" && w2 != "sure" && articleAfter(q, e2):
		// "make bob an admin of the org", "make release 7 the latest":
		// give a thing a role or a state, not make a new one.
		return "set" + q[e1:]
	case participle(w1) && !determiners[w2] && !particles[w2] && pluralAfter(q, e1):
		// "closed pull requests", "starred repos", "blocked users": a
		// state of the things named, which the request asks to see, not
		// a verb in the past.
		return "list " + q[s1:]
	}
	return q
}

// wordAfter reports whether word w (in any case) is one of q's words after
// at.
func wordAfter(q string, at int, w string) bool {
	for {
		s, e := nextWord(q, at)
		if s == e {
			return false
		}
		if strings.EqualFold(q[s:e], w) {
			return true
		}
		at = e
	}
}

// fromGerund finds "from" followed by a word in -ing within splitMax+1
// words of q after at ("stop the workflow from running"), and returns
// where "from" starts and ends.
func fromGerund(q string, at int) (int, int, bool) {
	for range splitMax + 1 {
		s, e := nextWord(q, at)
		if s == e {
			return 0, 0, false
		}
		if strings.EqualFold(q[s:e], "from") {
			ns, ne := nextWord(q, e)
			return s, e, gerund(q[ns:ne])
		}
		at = e
	}
	return 0, 0, false
}

// gerund reports whether w reads as a verb in -ing ("watching",
// "running"), case aside.
func gerund(w string) bool {
	return len(w) > 4 && strings.EqualFold(w[len(w)-3:], "ing")
}

// articleAfter reports whether the word of q after at is "a", "an" or
// "the".
func articleAfter(q string, at int) bool {
	s, e := nextWord(q, at)
	return foldIn(q[s:e], "a", "an", "the")
}

// participle reports whether w reads as a verb's past participle: "closed",
// "merged", "starred", not "need" or "proceed", whose -ed is their own.
func participle(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && asciiLetters(w)
}

// pluralAfter reports whether a word of q after at is in the plural.
func pluralAfter(q string, at int) bool {
	for {
		s, e := nextWord(q, at)
		if s == e {
			return false
		}
		if plural(strings.ToLower(q[s:e])) {
			return true
		}
		at = e
	}
}

// phrasalPlain are the plain verbs of the two-word verbs a request may
// start with: everyday English for doing things to things, not words of
// one catalog.
var phrasalPlain = map[[2]string]string{
	{"get", "rid"}: "delete", {"take", "back"}: "delete", {"take", "down"}: "delete",
	{"clean", "up"}: "delete", {"set", "up"}: "create", {"sign", "up"}: "create",
	{"turn", "on"}: "enable", {"turn", "off"}: "disable",
	{"switch", "on"}: "enable", {"switch", "off"}: "disable", {"shut", "off"}: "disable",
	{"shut", "down"}: "stop", {"power", "off"}: "stop", {"spin", "down"}: "stop", {"wind", "down"}: "stop",
	{"spin", "up"}: "start", {"fire", "up"}: "start", {"boot", "up"}: "start", {"kick", "off"}: "start",
	{"take", "off"}: "remove", {"take", "out"}: "remove", {"take", "away"}: "remove",
	{"kick", "out"}: "remove", {"throw", "out"}: "remove", {"cross", "off"}: "remove",
	{"throw", "away"}: "delete", {"wipe", "out"}: "delete", {"clear", "out"}: "delete",
	{"roll", "back"}: "revert", {"hand", "over"}: "transfer", {"bring", "back"}: "restore",
	{"look", "for"}: "search", {"pull", "up"}: "get",
}

// splitPhrasal rewrites a request that starts with a two-word verb whose
// particle follows its object ("take the wontfix label off", "kick frank
// out of the org", "shut the codespace down") to start with the plain
// verb, the particle left out. The particle must end the request or come
// before a preposition, or, but for "on", before a determiner, as a
// preposition itself ("take carol off the repo collaborators"); at most
// splitMax words may stand between.
func splitPhrasal(q, w1 string, e1 int) (string, bool) {
	if !phrasalFirst[w1] {
		return q, false
	}
	at := e1
	for range splitMax + 1 {
		s, e := nextWord(q, at)
		if s == e {
			return q, false
		}
		p := strings.ToLower(q[s:e])
		if v := phrasalPlain[[2]string{w1, p}]; v != "" && particles[p] && at > e1 {
			ns, ne := nextWord(q, e)
			if next := strings.ToLower(q[ns:ne]); ns == ne || afterParticle[next] || p != "on" && determiners[next] || p == "off" {
				return v + q[e1:s] + q[e:], true
			}
		}
		at = e
	}
	return q, false
}

// splitMax is how many words may stand between a two-word verb's first
// word and its particle.
const splitMax = 4

// particles are the second words of phrasalPlain that may follow the
// verb's object; afterParticle the words that may follow them.
var particles = map[string]bool{"up": true, "down": true, "on": true, "off": true, "out": true, "away": true, "back": true, "over": true}

var afterParticle = map[string]bool{"of": true, "from": true, "for": true, "in": true, "on": true, "at": true, "to": true, "with": true, "again": true, "now": true, "please": true}

// phrasalFirst are the first words of phrasalPlain.
var phrasalFirst = func() map[string]bool {
	m := map[string]bool{}
	for k := range phrasalPlain {
		m[k[0]] = true
	}
	return m
}()

// clauseAfter is where the clause that starts with "to", "that" or
// "about" begins in q, within max words after at; 0 if none does.
func clauseAfter(q string, at, max int) int {
	for range max + 1 {
		s, e := nextWord(q, at)
		if s == e {
			return 0
		}
		switch strings.ToLower(q[s:e]) {
		case "to", "that", "about":
			return s
		}
		at = e
	}
	return 0
}

// thatAfter is where a clause that starts with "that" begins in q, within
// max words after at; 0 if none does.
func thatAfter(q string, at, max int) int {
	for range max + 1 {
		s, e := nextWord(q, at)
		if s == e {
			return 0
		}
		if strings.EqualFold(q[s:e], "that") {
			return s
		}
		at = e
	}
	return 0
}

// keepsThat are the verbs whose "that" clause is a thing to keep.
var keepsThat = map[string]bool{"remember": true, "note": true, "memorize": true, "record": true, "jot": true}

// createsWith are verbs that create when an article follows ("open a pull
// request", "file an issue") and mean something else otherwise ("open
// alerts").
var createsWith = map[string]bool{"open": true, "file": true, "start": true, "raise": true}

// showOne rewrites a request that starts with a verb of showing and names
// one thing by value, none in the plural ("show commit 3f2a1b", "show me
// PR 3"), to start with "get": it asks to read that thing, not to list
// its kind. When keep, the catalog's tools start with the verb said
// ("Shows the contents of a commit"), which the request keeps after "get".
func showOne(q string, keep bool) string {
	s, e := nextWord(q, 0)
	if e == s || strings.TrimSpace(q[:s]) != "" || !showsOne[strings.ToLower(q[s:e])] {
		return q
	}
	for at := e; ; {
		ws, we := nextWord(q, at)
		if ws == we {
			break
		}
		if plural(strings.ToLower(q[ws:we])) {
			return q
		}
		at = we
	}
	if keep {
		return "get " + q
	}
	return "get" + q[e:]
}

// unHyphen writes a word of q made of "un-" and a word as one word
// ("un-archive #legacy": unarchive), as names say it and as the reading
// of un- (queryFeatures) takes it.
func unHyphen(q string) string {
	var b []byte
	last := 0 // q[last:] is not yet in b
	for at := 0; ; {
		s, e := nextWord(q, at)
		if s == e {
			break
		}
		at = e
		if e-s != 2 || q[s]|0x20 != 'u' || q[s+1]|0x20 != 'n' || e+1 >= len(q) || q[e] != '-' || !isWordByte(q[e+1]) || s > 0 && isWordByte(q[s-1]) {
			continue
		}
		b = append(b, q[last:e]...)
		last = e + 1
	}
	if b == nil {
		return q
	}
	return string(append(b, q[last:]...))
}

// rePrefix rewrites the words of q made of "re" and a word the catalog's
// titles write after "re-" to that word ("rerun": "Re-run a workflow"),
// the catalog's "re-run" being "run" to the index, "re" a stop word.
func (ix *Index) rePrefix(q string) string {
	if len(ix.reWords) == 0 {
		return q
	}
	var b []byte
	for at := 0; ; {
		s, e := nextWord(q, at)
		if s == e {
			break
		}
		at = e
		if e-s < 5 || q[s]|0x20 != 'r' || q[s+1]|0x20 != 'e' || !asciiLetters(q[s:e]) {
			continue
		}
		w := strings.ToLower(q[s:e])
		if id, ok := ix.terms[string(stem([]byte(w[2:])))]; !ok || !ix.reWords[id] {
			continue
		}
		if b == nil {
			b = []byte(q)
		}
		b[s], b[s+1] = ' ', ' '
	}
	if b == nil {
		return q
	}
	return string(b)
}

// noteRe adds to ix.reWords the words title writes after "re-", as
// termOf gives their ids.
func (ix *Index) noteRe(title string, termOf func(string) int32) {
	for i := 0; i+3 < len(title); i++ {
		if title[i+2] != '-' || title[i]|0x20 != 'r' || title[i+1]|0x20 != 'e' || i > 0 && isWordByte(title[i-1]) {
			continue
		}
		s, e := nextWord(title, i+3)
		if s != i+3 || e == s {
			continue
		}
		if id := termOf(strings.ToLower(title[s:e])); id >= 0 {
			if ix.reWords == nil {
				ix.reWords = map[int32]bool{}
			}
			ix.reWords[id] = true
		}
	}
}

// appendKinds appends to dst the term ids of the words parameters use for
// the kind of a request's value chunk: a file's name, alone or at the end
// of a path (logo.png, docs/old.md), for "path" and "file", an owner's
// name and a repository's (acme/app) for "repo" and "repository", a
// commit's hash for "sha", "commit" and "ref", a version (v1.2.0) for
// "tag" and "version", an opaque identifier (CHMA0000215045, opaqueID)
// for "uid", "uuid" and "guid". valueNouns adds the words for a time (timeKinds)
// when the request says one (timeWords).
func (ix *Index) appendKinds(dst []int32, chunk string) []int32 {
	chunk = trimChunk(chunk)
	var kinds []string
	switch {
	case strings.Contains(chunk, "://") || strings.Contains(chunk, "@") || isDomain(chunk):
	case strings.Contains(chunk, "/") && ix.slashValue(chunk):
		last := chunk[strings.LastIndexByte(chunk, '/')+1:]
		switch {
		case strings.Contains(last, ".") || strings.Count(chunk, "/") >= 2:
			kinds = pathKinds
		case last != "" && chunk[0] != '/':
			// acme/app: a repository by its owner's name and its own.
			kinds = repoKinds
		}
	case isFileName(chunk):
		kinds = pathKinds
	case !isValue(chunk):
	case isHash(chunk):
		kinds = hashKinds
	case isVersion(chunk):
		kinds = versionKinds
	case opaqueID(chunk):
		kinds = uidKinds
	}
	return ix.appendKindWords(dst, kinds)
}

// appendKindWords appends the term ids of the kinds' words the catalog
// has to dst, once each.
func (ix *Index) appendKindWords(dst []int32, kinds []string) []int32 {
	for _, k := range kinds {
		if id, ok := ix.terms[k]; ok && !slices.Contains(dst, id) {
			dst = append(dst, id)
		}
	}
	return dst
}

// timeWords say a time or a span of time: "today", "this week", "recent
// commits", "2 hours", "since Monday".
var timeWords = map[string]bool{
	"today": true, "yesterday": true, "tonight": true, "week": true, "month": true, "year": true,
	"hours": true, "days": true, "weeks": true, "months": true, "ago": true, "since": true,
	"recent": true, "recently": true, "lately": true,
	"tomorrow": true, "morning": true, "noon": true, "evening": true, "midnight": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
}

// The kinds' words, as stems.
var (
	pathKinds    = stems("path", "file")
	hashKinds    = stems("sha", "commit", "ref", "revision")
	versionKinds = stems("tag", "version")
	repoKinds    = stems("repo", "repository")
	personKinds  = stems(string(whoBytes), "username", "login")
	keyKinds     = stems("key")
	channelKinds = stems("channel")
	uidKinds     = stems("uid", "uuid", "guid")
	urlKinds     = stems("url", "uri")
	timeKinds    = stems("since", "until", "before", "after", "date", "time", "created", "updated", "year")
)

func stems(words ...string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = string(stem([]byte(w)))
	}
	return out
}

// isHash reports whether w is a commit's hash, cut short or whole: a
// hexWord of at most forty digits.
// opaqueID reports whether w is an identifier no word says anything of:
// eight letters and digits or more, two letters and four digits at
// least ("CHMA0000215045").
func opaqueID(w string) bool {
	if len(w) < 8 {
		return false
	}
	letters, digits := 0, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		default:
			return false
		}
	}
	return letters >= 2 && digits >= 4
}

func isHash(w string) bool { return len(w) <= 40 && hexWord(w) }

// hexWord reports whether w is six hexadecimal digits or more, two of
// them decimal at least.
func hexWord(w string) bool {
	if len(w) < 6 {
		return false
	}
	digits := 0
	for i := 0; i < len(w); i++ {
		switch c := w[i] | 0x20; {
		case w[i] >= '0' && w[i] <= '9':
			digits++
		case c < 'a' || c > 'f':
			return false
		}
	}
	return digits >= 2
}

// isVersion reports whether w is a version: v3, v1.2.0, 2.4.1.
func isVersion(w string) bool {
	n, hadV := strings.TrimPrefix(strings.TrimPrefix(w, "v"), "V"), false
	hadV = len(n) < len(w)
	if n == "" || n[0] < '0' || n[0] > '9' {
		return false
	}
	dots := 0
	for i := 0; i < len(n); i++ {
		switch {
		case n[i] == '.':
			dots++
		case n[i] < '0' || n[i] > '9':
			return false
		}
	}
	return dots > 0 || hadV
}

// isDomain reports whether chunk is a web address without its scheme:
// names joined by dots, the last one of the web's common top-level
// domains, and maybe a path (example.org, docs.github.com/en/rest).
func isDomain(chunk string) bool {
	w := trimChunk(chunk)
	if slash := strings.IndexByte(w, '/'); slash >= 0 {
		w = w[:slash]
	}
	dot := strings.LastIndexByte(w, '.')
	if dot < 1 || strings.ContainsAny(w, "@:") || !webTLDs[strings.ToLower(w[dot+1:])] {
		return false
	}
	for _, label := range strings.Split(w[:dot], ".") {
		if label == "" {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i] | 0x20; !(c >= 'a' && c <= 'z' || label[i] >= '0' && label[i] <= '9' || label[i] == '-') {
				return false
			}
		}
	}
	return true
}

// appendFileWords appends to dst what a file's name says to search: "file",
// after the name itself when it is written in capitals, as projects name
// their documents (README.md, LICENSE.txt), which catalogs name too (Get a
// repository README).
func appendFileWords(dst []byte, name string) []byte {
	if !strings.Contains(name, ".") {
		// .gitignore, .env: a file by its name alone.
		return append(dst, "file"...)
	}
	if base := name[:strings.LastIndexByte(name, '.')]; strings.ToUpper(base) == base && strings.ToLower(base) != base {
		dst = append(dst, base...)
		dst = append(dst, ' ')
	}
	if kind := mediaKinds[strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])]; kind != "" {
		// "show me photo.png": an image file.
		dst = append(append(dst, kind...), ' ')
	}
	return append(dst, "file"...)
}

// mediaKinds are the kinds of media files' extensions say: the top-level
// types of their MIME types.
var mediaKinds = map[string]string{
	"png": "image", "jpg": "image", "jpeg": "image", "gif": "image", "webp": "image", "svg": "image",
	"bmp": "image", "tif": "image", "tiff": "image", "ico": "image", "heic": "image", "avif": "image",
	"mp3": "audio", "wav": "audio", "ogg": "audio", "flac": "audio", "m4a": "audio", "aac": "audio", "opus": "audio",
	"mp4": "video", "mov": "video", "avi": "video", "mkv": "video", "webm": "video",
}

// isFileName reports whether w is a file's name: a name, a dot and an
// extension of two to five letters or digits, one a letter at least, that
// is no web domain's (notes.txt, logo.jpg, song.mp3; not 1.20 or v1.10).
func isFileName(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	if dot < 1 || len(w)-dot-1 < 2 || len(w)-dot-1 > 5 || webTLDs[strings.ToLower(w[dot+1:])] {
		return false
	}
	letter := false // in the extension
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			letter = letter || i > dot
		case c >= '0' && c <= '9':
		case i <= dot && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return letter
}

// dotFile reports whether a chunk of a request is a hidden file's name,
// a dot and then letters: ".env", ".gitignore", ".env.example". A dot
// that ends a sentence or opens "..." is none.
func dotFile(chunk string) bool {
	w := strings.TrimRight(strings.TrimLeft(chunk, `("'[`), `.,;:!?)]}"'`)
	if len(w) < 2 || w[0] != '.' || !(w[1]|0x20 >= 'a' && w[1]|0x20 <= 'z') || strings.Contains(w, "..") || len(w) > 64 {
		return false
	}
	for i := 2; i < len(w); i++ {
		switch c := w[i]; {
		case c|0x20 >= 'a' && c|0x20 <= 'z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// webTLDs are the top-level domains of most addresses a request names;
// ones that are also files' extensions (md, py, sh, rs) are left out.
var webTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true,
	"ai": true, "co": true, "edu": true, "gov": true, "info": true, "uk": true,
	"de": true, "fr": true, "eu": true, "jp": true, "cn": true, "nl": true,
}

// branchName reports whether the chunk q[i:end] is a branch by one of its
// usual names (main, master, develop, trunk) after a preposition, prev,
// and not before the word "branch": "merge develop into main".
func branchName(q string, i, end int, prev string) bool {
	if !foldIn(trimChunk(q[i:end]), "main", "master", "develop", "trunk") ||
		!foldIn(prev, "on", "in", "into", "onto", "to", "from", "of", "against") {
		return false
	}
	next, _, _ := strings.Cut(strings.TrimLeft(q[end:], " \t\r\n"), " ")
	return !strings.EqualFold(trimChunk(next), "branch")
}

// issueStem is the stem of "issue".
var issueStem = string(stem([]byte("issue")))

// foldIn reports whether w is one of words, case aside.
func foldIn(w string, words ...string) bool {
	for _, x := range words {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// hashNumber reports whether a chunk is a number written after "#" (#77).
func hashNumber(chunk string) bool {
	w := trimChunk(chunk)
	if len(w) < 2 || w[0] != '#' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// hashName reports whether a chunk is a name written after "#" with a
// letter in it (#eng, #q3-planning), as chat writes a channel's; "#77" is
// a number.
func hashName(chunk string) bool {
	w := trimChunk(chunk)
	if len(w) < 2 || w[0] != '#' {
		return false
	}
	letter := false
	for i := 1; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.':
		default:
			return false
		}
	}
	return letter
}

// channelStem is the stem of "channel".
var channelStem = string(stem([]byte("channel")))

// knowsChannels reports whether ix's catalog says "channel".
func (ix *Index) knowsChannels() bool {
	if ix == nil {
		return false
	}
	_, ok := ix.terms[channelStem]
	return ok
}

// issueRef reports whether a number written #77 after the chunk prev
// names an issue, as trackers write them: after a verb ("close #77") or a
// preposition ("comment on #12"), in a catalog with issues. After a noun
// ("PR #31") the number is that thing's.
func (ix *Index) issueRef(prev string) bool {
	if ix == nil {
		return false
	}
	if _, ok := ix.terms[issueStem]; !ok {
		return false
	}
	p := trimChunk(prev)
	if foldIn(p, "on", "in", "to", "into", "for", "from", "of", "about") {
		return true
	}
	if p == "" || !asciiLetters(p) {
		return false
	}
	s := string(stem(appendLower(nil, p)))
	id, ok := ix.terms[s]
	return actionVerbs[s] != 0 || ok && ix.verbs[id]
}

// urlsAndFiles reports whether q gives a URL and says no "url" itself,
// and counts the files' names it gives.
func urlsAndFiles(q string) (urlOnly bool, files int) {
	said := false
	for i := 0; i < len(q); {
		s, e := nextChunk(q, i)
		if s == e {
			break
		}
		switch valueKind(q[s:e]) {
		case "url":
			urlOnly = true
		case "file":
			files++
		default:
			w := trimChunk(q[s:e])
			said = said || strings.EqualFold(w, "url") || strings.EqualFold(w, "urls")
		}
		i = e
	}
	return urlOnly && !said, files
}

// urlThings appends to q, for each URL of q whose path names a thing some
// tool takes one of by its id and then a number
// (https://github.com/acme/app/pull/12), that thing and its number ("pull
// 12"), so the request reads as naming it.
func (ix *Index) urlThings(q string) string {
	var add []string
	for i := 0; i < len(q); {
		s, e := nextChunk(q, i)
		if s == e {
			break
		}
		i = e
		chunk := trimChunk(q[s:e])
		if valueKind(chunk) != "url" {
			continue
		}
		_, rest, ok := strings.Cut(chunk, "://")
		if !ok {
			rest = chunk
		}
		if k := strings.IndexAny(rest, "?#"); k >= 0 {
			rest = rest[:k]
		}
		segs := strings.Split(rest, "/")
		for j := 1; j+1 < len(segs); j++ {
			if !allDigits(segs[j+1]) || segs[j] == "" {
				continue
			}
			w := strings.ToLower(segs[j])
			if id, ok := ix.terms[string(stem([]byte(w)))]; ok && ix.itemNouns[id] {
				// One thing, by its number: /issues/42 is issue 42.
				if plural(w) {
					w = strings.TrimSuffix(w, "s")
				}
				add = append(add, w, segs[j+1])
			}
		}
	}
	if len(add) == 0 {
		return q
	}
	return q + " " + strings.Join(add, " ")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// withoutQuotedText returns q without the text a message or a comment is
// to say: what follows "saying" or "with the message" is the thing's
// words, not the tool's ("commit everything staged with the message
// release 1.2" is no request about releases). The word "message" stays.
func withoutQuotedText(q string) string {
	var prev [2]string // the two words before, lower-cased
	for at := 0; ; {
		s, e := nextWord(q, at)
		if s == e {
			return q
		}
		w := strings.ToLower(q[s:e])
		switch {
		case w == "saying" && prev[0] != "":
			return strings.TrimRight(q[:s], " ")
		case w == "message" && (prev[0] == "with" || prev[1] == "with" && (prev[0] == "the" || prev[0] == "a")):
			if ns, ne := nextWord(q, e); ns < ne {
				return q[:e]
			}
		}
		prev[1], prev[0] = prev[0], w
		at = e
	}
}
