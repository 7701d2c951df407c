package openapi

import (
	"strings"

	"golang.org/x/net/html"
)

// plainText is an operation's description with its HTML made plain text:
// CommonMark allows raw HTML, and some documents write their descriptions
// in it (Stripe's "<p>Cancels a customer’s subscription...</p>"), which a
// model reads as noise and search as words. Paragraphs and line breaks
// stay, a list's items start with "- ", code is quoted with backticks,
// entities are decoded. Only the tags of HTML's text and block elements
// are taken for tags; anything else in angle brackets ("<owner>", "a < b")
// stays as written. Text with none of those tags is returned as it is.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	b := make([]byte, 0, len(s))
	tagged := false // some tag of htmlTags was read
	z := html.NewTokenizer(strings.NewReader(s))
	// brk ends the text so far with n line breaks, or more if it has
	// them already (at most two). It trims only the text's end, which
	// the next break trims no further: the work stays linear.
	brk := func(n int) {
		end := len(b)
		for end > 0 && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\n') {
			if b[end-1] == '\n' {
				n++
			}
			end--
		}
		if end == 0 {
			b = b[:0]
			return
		}
		b = b[:end]
		for range min(n, 2) {
			b = append(b, '\n')
		}
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.TextToken:
			b = append(b, z.Text()...)
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			// TagName lower-cases the name where Raw reads it: what is no
			// tag of ours is kept as written first.
			at := len(b)
			b = append(b, z.Raw()...)
			name, _ := z.TagName()
			tag := string(name)
			if !htmlTags[tag] {
				continue
			}
			b = b[:at]
			tagged = true
			switch tag {
			case "p", "div", "ul", "ol", "table", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "hr":
				brk(2)
			case "br", "tr":
				brk(1)
			case "li":
				if tt == html.StartTagToken {
					brk(1)
					b = append(b, "- "...)
				}
			case "code":
				b = append(b, '`')
			}
		case html.CommentToken, html.DoctypeToken:
		}
	}
	if !tagged {
		// Markdown with an ampersand or an angle bracket, no HTML.
		return s
	}
	out := strings.TrimSpace(string(b))
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return out
}

// htmlTags are the elements plainText takes for HTML.
var htmlTags = map[string]bool{
	"p": true, "div": true, "span": true, "br": true, "hr": true, "a": true, "code": true, "pre": true,
	"em": true, "strong": true, "b": true, "i": true, "u": true, "s": true, "sup": true, "sub": true, "small": true,
	"ul": true, "ol": true, "li": true, "dl": true, "dt": true, "dd": true, "blockquote": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "td": true, "th": true, "img": true, "details": true, "summary": true,
}
