package search

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Token classes used to find word boundaries inside an identifier.
const (
	classOther = iota
	classLower
	classUpper
	classDigit
	classCJK // Han, Hiragana, Katakana and Hangul: no spaces between words
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = classLower
		case c >= 'A' && c <= 'Z':
			t[c] = classUpper
		case c >= '0' && c <= '9':
			t[c] = classDigit
		}
	}
	return t
}()

func classOf(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		return int(asciiClass[r])
	case isCJK(r):
		return classCJK
	case unicode.IsLower(r):
		return classLower
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return classUpper
	case unicode.IsLetter(r):
		// Scripts without case (CJK, Arabic, ...) behave like lower case:
		// they never start a new camelCase word.
		return classLower
	case unicode.IsDigit(r):
		return classDigit
	}
	return classOther
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー' || r == '々'
}

// forEachToken splits s into lower-case words and calls fn with each one.
// The slice passed to fn is only valid during the call; buf is scratch space
// that is returned (possibly grown) so callers can reuse it.
//
// Words are maximal runs of letters and digits, further split where
// identifier conventions put a boundary:
//
//	createIssue      -> create, issue         (lower to upper)
//	HTTPServer       -> http, server          (an acronym ends before Upper+lower)
//	create_issue     -> create, issue         (any non-alphanumeric separates)
//	list-v2-items    -> list, v, 2, items     (letters and digits separate)
//
// Accents are folded ("café" -> cafe, "Übersicht" -> ubersicht). Chinese,
// Japanese and Korean, written without spaces, become overlapping pairs of
// characters ("一覧表示" -> 一覧, 覧表, 表示), as Lucene's CJK analyzer does,
// so a request and a description in those scripts meet on shared pairs; a
// lone character stays a word.
func forEachToken(s string, buf []byte, fn func(tok []byte)) []byte {
	buf = buf[:0]
	prev := classOther
	flush := func() {
		if len(buf) == 0 {
			return
		}
		if prev == classCJK {
			cjkPairs(buf, fn)
		} else {
			fn(buf)
		}
		buf = buf[:0]
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		var c int
		if r < utf8.RuneSelf {
			c = int(asciiClass[r])
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			c = classOf(r)
		}
		if c == classOther {
			flush()
			prev = c
			i += size
			continue
		}
		boundary := false
		switch {
		case prev == classOther:
		case c == classCJK || prev == classCJK:
			boundary = c != prev
		case c == classDigit:
			boundary = prev != classDigit
		case prev == classDigit:
			boundary = true
		case c == classUpper:
			boundary = prev == classLower
		case c == classLower && prev == classUpper:
			// "HTTPServer": the S of Server starts a new word, so split
			// before the last upper-case letter of the acronym.
			if n := lastRuneLen(s[:i]); len(buf) > n && n > 0 {
				var last [utf8.UTFMax]byte
				copy(last[:], buf[len(buf)-n:])
				fn(buf[:len(buf)-n])
				buf = append(buf[:0], last[:n]...)
			}
		}
		if boundary {
			flush()
		}
		switch {
		case r < utf8.RuneSelf:
			if c == classUpper {
				r += 'a' - 'A'
			}
			buf = append(buf, byte(r))
		case c == classCJK:
			buf = utf8.AppendRune(buf, r)
		default:
			buf = appendFolded(buf, r)
		}
		prev = c
		i += size
	}
	flush()
	return buf[:0]
}

// cjkPairs calls fn with each overlapping pair of characters of run, or
// with run itself when it is one character.
func cjkPairs(run []byte, fn func(tok []byte)) {
	_, first := utf8.DecodeRune(run)
	if first == len(run) {
		fn(run)
		return
	}
	for i := 0; i < len(run); {
		_, a := utf8.DecodeRune(run[i:])
		if i+a >= len(run) {
			break
		}
		_, b := utf8.DecodeRune(run[i+a:])
		fn(run[i : i+a+b])
		i += a
	}
}

// appendFolded appends r lower-cased and without its accents: the
// canonical decomposition with its combining marks dropped.
func appendFolded(buf []byte, r rune) []byte {
	var enc, dec [4 * utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], r)
	out := norm.NFD.Append(dec[:0], enc[:n]...)
	for len(out) > 0 {
		m, size := utf8.DecodeRune(out)
		out = out[size:]
		if !unicode.Is(unicode.Mn, m) {
			buf = utf8.AppendRune(buf, unicode.ToLower(m))
		}
	}
	return buf
}

// lastRuneLen is the encoded length, after folding, of the last rune of
// s, which callers use to peel one upper-case letter off an acronym.
func lastRuneLen(s string) int {
	r, size := utf8.DecodeLastRuneInString(s)
	if size <= 1 {
		return size
	}
	var b [4 * utf8.UTFMax]byte
	return len(appendFolded(b[:0], r))
}

// stopWords are dropped from documents and queries. The list is the usual
// English function words plus request filler that carries no tool meaning
// ("please", "want", "tell me").
var stopWords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "all", "also", "am", "an", "and",
		"any", "are", "as", "at", "be", "been", "before", "being", "below",
		"between", "both", "but", "by", "can", "could", "did", "do", "does",
		"doing", "during", "each", "else", "etc", "every", "few", "for", "from",
		"further", "give", "had", "has", "have", "having", "he", "her", "here",
		"hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
		"itself", "just", "let", "like", "may", "me", "might", "mine", "must", "my",
		"myself", "no", "nor", "not", "now", "of", "off", "on", "once", "one",
		"only", "onto", "or", "other", "our", "ours", "out", "over", "own",
		"please", "same", "shall", "she", "should", "so", "some", "such", "tell",
		"than", "that", "the", "their", "theirs", "them", "then", "there",
		"these", "they", "this", "those", "through", "to", "too", "under",
		"until", "up", "upon", "us", "very", "want", "was", "we", "were", "what",
		"whatever", "when", "where", "whether", "which", "while", "who", "whom",
		"why", "will", "with", "within", "would", "yet", "you", "your", "yours",
		"yourself", "s", "t", "d", "ll", "m", "re", "ve", "don", "isn", "aren",
		"doesn", "didn", "won", "wouldn", "shouldn", "couldn", "can't", "need",
		"needs", "wants", "way", "thing", "things", "something", "stuff",
		"everything", "anything", "particular", "certain", "given", "actually",
		"really", "kindly",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
