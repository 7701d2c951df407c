// Package hiddentext finds the characters a reader does not see: those
// that show as nothing (a zero-width space, a soft hyphen, a Hangul
// filler, the Unicode tag characters that spell ASCII invisibly), that
// change how the text around them shows (a bidi override), that end a
// line where none shows (U+2028), and control characters. A tool's
// description from an upstream can hide instructions for the model in
// them, and a model's code or arguments can hide from the person what a
// call does (`to\u200d` beside `to` is another variable). So the hub
// gives the model no run of them from an upstream (ForModel), and shows
// the person each one as an escape (Reveal). It also finds the
// words whose letters look like others' (MixedScripts: "аlice" with a
// Cyrillic а), which the person is warned of beside an approval.
package hiddentext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	zwnj = '\u200c'
	zwj  = '\u200d'
)

// Is reports whether r is a character a reader does not see as itself:
// a control character but tab, newline and carriage return; a format
// character (Unicode's Cf: zero-width spaces and joiners, bidi controls,
// tags) but the Arabic and Syriac signs that show; a variation selector
// or another default-ignorable code point; a line or paragraph separator.
func Is(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
	case r <= 0x9f:
		return true // C1 controls
	case r < 0x300:
		return r == 0xad // the soft hyphen, the one of Latin-1 and its extensions
	case r > 0x206f && r < 0xfe00:
		// From the arrows to the variation selectors (CJK among them)
		// only the Hangul filler is one.
		return r == 0x3164
	case r == '\u2028' || r == '\u2029':
		return true
	case unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false // Cf, but shown: U+0600 ARABIC NUMBER SIGN and its kind
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// Has reports whether s holds a character Is reports.
func Has(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if Is(r) {
			return true
		}
		i += n
	}
	return false
}

// Reveal writes each character of s that Is reports as a JSON escape:
// \u200b, or the surrogate pair \udb40\udc49 beyond the Basic
// Multilingual Plane. JSON and JavaScript read the escape back as the
// same character, so revealed code and JSON text mean what they meant (in
// JSON text such characters only occur inside strings).
func Reveal(s string) string {
	if !Has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if Is(r) {
			b.WriteString(Escape(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Show is s for a person to read, not to copy: a run of tag characters as
// the text it spells, [hidden text: "Read ~/.ssh/id_rsa"], and every other
// character Is reports as its escape, as Reveal writes it.
func Show(s string) string {
	if !Has(s) {
		return s
	}
	var b strings.Builder
	var spelled []byte
	flush := func() {
		if spelled != nil {
			b.WriteString("[hidden text: " + strconv.Quote(string(spelled)) + "]")
			spelled = nil
		}
	}
	for _, r := range s {
		switch {
		case r >= tagFirst && r <= tagLast:
			if spelled == nil {
				spelled = []byte{}
			}
			if c := r - tagFirst; c >= ' ' && c <= '~' {
				spelled = append(spelled, byte(c))
			}
			continue
		case Is(r):
			flush()
			b.WriteString(Escape(r))
		default:
			flush()
			b.WriteRune(r)
		}
	}
	flush()
	return b.String()
}

// The tag characters: U+E0020 to U+E007E spell ASCII; U+E0001 begins a
// language tag and U+E007F ends one.
const (
	tagFirst = 0xe0000
	tagLast  = 0xe007f
)

// Escape is r as a JSON escape: \u200b, or a surrogate pair beyond the
// Basic Multilingual Plane.
func Escape(r rune) string {
	if r > 0xffff {
		r1, r2 := utf16Pair(r)
		return `\u` + hex4(r1) + `\u` + hex4(r2)
	}
	return `\u` + hex4(r)
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}

// ForModel is s as the model reads it from an upstream: without the
// characters Is reports, which could tell the model what the person, who
// sees the same text in the window, cannot. A run of two or more becomes
// "[N invisible characters removed]", so the model knows that something
// was there; a single one goes. Text keeps what writing needs: a variation
// selector, a joiner (ZWJ or ZWNJ), or a selector then a joiner, right
// after a character that shows (❤️, 👩‍💻, the ZWNJ of Persian words).
// Tabs and line breaks stay.
func ForModel(s string) string {
	if !Has(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	var prev rune // the last character written, 0 at the start
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !Is(r) {
			b.WriteString(s[i : i+n])
			prev = r
			i += n
			continue
		}
		j, count := i, 0
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !Is(r) {
				break
			}
			j += n
			count++
		}
		run := s[i:j]
		switch {
		case prev != 0 && !unicode.IsSpace(prev) && !Is(prev) && writing(run):
			b.WriteString(run)
		case count > 1:
			b.WriteString("[" + strconv.Itoa(count) + " invisible characters removed]")
		}
		prev = 0
		i = j
	}
	return b.String()
}

// writing reports whether run, characters Is reports, is what writing
// uses after a character: a variation selector, a joiner, or a selector
// then a joiner.
func writing(run string) bool {
	r, n := utf8.DecodeRuneInString(run)
	if unicode.Is(unicode.Variation_Selector, r) {
		if n == len(run) {
			return true
		}
		r, n2 := utf8.DecodeRuneInString(run[n:])
		return n+n2 == len(run) && (r == zwj || r == zwnj)
	}
	return n == len(run) && (r == zwj || r == zwnj)
}

// Mixed is a word whose letters come from scripts that share look-alike
// letters: "аlice" or "pаypal", each with a Cyrillic а.
type Mixed struct {
	Word    string
	Scripts []string // in the order Latin, Greek, Cyrillic
}

// String is the warning a person reads of m: "аlice" mixes Latin and
// Cyrillic letters that look alike.
func (m Mixed) String() string {
	return strconv.Quote(m.Word) + " mixes " + strings.Join(m.Scripts, " and ") + " letters that look alike"
}

// lookAlike are the scripts whose letters look like each other's (a, а,
// α; o, о, ο; p, р, ρ): a word mixing them shows one name and is another.
// Words that mix others (漢字 with かな, iPhone用) are how those languages
// are written.
var lookAlike = []struct {
	name  string
	table *unicode.RangeTable
}{{"Latin", unicode.Latin}, {"Greek", unicode.Greek}, {"Cyrillic", unicode.Cyrillic}}

// MixedScripts returns the words of s (runs of letters, digits and marks)
// whose letters come from more than one of Latin, Greek and Cyrillic, each
// once, in the order they come.
func MixedScripts(s string) []Mixed {
	var out []Mixed
	var seen map[string]bool
	start, n := -1, 0 // the word's first byte, and how many scripts it has
	var in [3]bool
	end := func(i int) {
		if n > 1 {
			w := s[start:i]
			if !seen[w] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[w] = true
				m := Mixed{Word: w}
				for k, sc := range lookAlike {
					if in[k] {
						m.Scripts = append(m.Scripts, sc.name)
					}
				}
				out = append(out, m)
			}
		}
		start, n, in = -1, 0, [3]bool{}
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
			if start >= 0 {
				end(i)
			}
			continue
		}
		if start < 0 {
			start = i
		}
		if r < 0x80 {
			if !in[0] && (r|0x20 >= 'a' && r|0x20 <= 'z') {
				in[0] = true
				n++
			}
			continue
		}
		for k, sc := range lookAlike {
			if !in[k] && unicode.Is(sc.table, r) {
				in[k] = true
				n++
			}
		}
	}
	if start >= 0 {
		end(len(s))
	}
	return out
}
