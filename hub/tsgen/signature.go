package tsgen

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// signatureWidth is the length a signature line is abbreviated to.
const signatureWidth = 200

// Signature renders a tool as one line for search results:
//
//	github.createIssue(input: { owner: string; repo: string; title: string; body?: string }): Promise<Issue>
//
// Required fields come first. Types are unqualified, the options
// parameter and comments are left out, and a tool without an output
// schema returns Promise<unknown>. A line longer than about 200 characters
// is abbreviated step by step: nested objects become { ... }, long literal
// unions become their base type, then the last fields give way to "...".
func Signature(t Tool) string {
	ix := newIndex(t.Namespace, []Tool{t})
	if len(ix.tools) == 0 {
		return ""
	}
	ti := ix.tools[0]
	head := t.Namespace + "." + t.Name
	if !isIdent(t.Name) {
		head = t.Namespace + "[" + hiddentext.Reveal(quote(t.Name)) + "]"
	}
	line := func(in string, optional bool, result string) string {
		q := ""
		if optional {
			q = "?"
		}
		return head + "(input" + q + ": " + in + "): Promise<" + result + ">"
	}

	r := &renderer{ix: ix, depth: unlimited, oneLine: true}
	in, optional := r.input(ti, 0)
	result := r.result(ti)
	if s := line(in.s, optional, result); len(s) <= signatureWidth {
		return s
	}
	r = &renderer{ix: ix, depth: 1, oneLine: true, maxUnion: 4}
	in, optional = r.input(ti, 0)
	if s := line(in.s, optional, result); len(s) <= signatureWidth || !in.obj {
		return s
	}
	// Keep as many leading fields as fit.
	o, _ := ix.root(ti.input).(*object)
	fields := r.fields(ti.input, o, 1, 0)
	shown := ""
	for i := range fields {
		parts := make([]string, 0, i+2)
		for _, f := range fields[:i+1] {
			parts = append(parts, f.text)
		}
		parts = append(parts, "...")
		candidate := "{ " + strings.Join(parts, "; ") + " }"
		if len(line(candidate, optional, result)) > signatureWidth {
			break
		}
		shown = candidate
	}
	if shown == "" {
		shown = "{ ... }"
	}
	return line(shown, optional, result)
}

// firstSentenceWidth caps FirstSentence, in characters.
const firstSentenceWidth = 160

// abbreviations end with a period without ending a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true,
	"mr": true, "mrs": true, "dr": true, "no": true, "eg": true, "ie": true,
}

// FirstSentence returns the first sentence of a description, on one line,
// for the second line of a search result. It reads only the first
// paragraph, drops Markdown emphasis, heading and list markers and link
// targets, and cuts at about 160 characters on a word boundary with "…".
func FirstSentence(desc string) string {
	desc = strings.ReplaceAll(hiddentext.ForModel(desc), "\r\n", "\n")
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(desc), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(words) > 0 {
				break // end of the first paragraph
			}
			continue
		}
		l = strings.TrimLeft(l, "#>")
		l = strings.TrimSpace(l)
		for _, marker := range []string{"- ", "* ", "+ "} {
			l = strings.TrimPrefix(l, marker)
		}
		words = append(words, strings.Fields(l)...)
	}
	s := stripMarkdown(strings.Join(words, " "))

	// The first sentence ends at ., ! or ? followed by a space, unless the
	// word is a known abbreviation.
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			continue
		}
		if c == '.' {
			start := strings.LastIndexByte(s[:i], ' ') + 1
			word := strings.ToLower(strings.Trim(s[start:i], "(\"'`"))
			if abbreviations[word] {
				continue
			}
		}
		s = s[:i+1]
		break
	}
	if utf8.RuneCountInString(s) <= firstSentenceWidth {
		return s
	}
	cut := []rune(s)[:firstSentenceWidth]
	out := string(cut)
	if i := strings.LastIndexFunc(out, unicode.IsSpace); i > firstSentenceWidth/2 {
		out = out[:i]
	}
	return strings.TrimRight(out, " ,;:") + "…"
}

// stripMarkdown removes emphasis markers and link targets.
func stripMarkdown(s string) string {
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	// [text](url) -> text
	var b strings.Builder
	for {
		open := strings.Index(s, "[")
		if open < 0 {
			break
		}
		mid := strings.Index(s[open:], "](")
		if mid < 0 {
			break
		}
		mid += open
		end := strings.Index(s[mid:], ")")
		if end < 0 {
			break
		}
		end += mid
		b.WriteString(s[:open])
		b.WriteString(s[open+1 : mid])
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}
