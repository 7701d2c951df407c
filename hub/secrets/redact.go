package secrets

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"capabilities.sh/capabilities/internal/hiddentext"
)

const redactedMark = "[redacted]"

// Redactor builds the preview of a call's arguments that a person approves:
// the whole call, the exact bytes it was sent with, pretty-printed, with
// only credentials hidden. A known secret value (Known, anywhere: in a
// string, a key or a number) becomes "[secret]"; a well-known credential
// shape inside any string (a bearer token, an API key of a known form, a
// JWT, a private key, a password in a URL) becomes "[redacted]". Nothing is
// hidden for its key's name, and nothing is cut: a long call shows whole
// (readers that show less, such as the envelope's one-line summary, say
// what they left out).
type Redactor struct {
	// Known are secret values the hub holds (connection secrets).
	Known []string
}

// credentialRE matches credentials of well-known shapes in free text. Each
// pattern's two groups are kept (a scheme or a label before, a delimiter
// after) and what lies between them is the credential. Every match of a
// pattern holds one of its literals (in any case when fold is set): a
// pattern runs only on text that has one. Most text has none, and running
// every pattern over every call's result cost a refresh of the window
// seconds.
var credentialRE = []struct {
	re   *regexp.Regexp
	lits []string
	fold bool // lits are lower case, looked for in the text folded (foldCase)
}{
	// An HTTP authorization, named ("Authorization: Basic dXNl...") or a
	// bearer token in text ("Bearer abc...", not "Bearer of news").
	{regexp.MustCompile(`(?i)(\bauthorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest)\s+)?)[^\s"',;]{8,}()`), []string{"authorization"}, true},
	{regexp.MustCompile(`(\b(?:Bearer|bearer|BEARER)\s+)[A-Za-z0-9._~+/-]*[0-9._~+/-][A-Za-z0-9._~+/-]*=*()`), []string{"bearer"}, true},
	// Service keys with fixed prefixes: Stripe, OpenAI, Anthropic, GitHub,
	// Slack, GitLab, Google, npm, AWS access keys.
	{regexp.MustCompile(`()\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{8,}()`), []string{"k_live_", "k_test_"}, false},
	{regexp.MustCompile(`()\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}()`), []string{"sk-"}, false},
	{regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})()`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false},
	{regexp.MustCompile(`()\bxox[abposr]-[A-Za-z0-9-]{10,}()`), []string{"xox"}, false},
	{regexp.MustCompile(`()\bglpat-[A-Za-z0-9_-]{16,}()`), []string{"glpat-"}, false},
	{regexp.MustCompile(`()\bAIza[0-9A-Za-z_-]{30,}()`), []string{"AIza"}, false},
	{regexp.MustCompile(`()\bnpm_[A-Za-z0-9]{30,}()`), []string{"npm_"}, false},
	{regexp.MustCompile(`()\b(?:AKIA|ASIA)[0-9A-Z]{16}\b()`), []string{"AKIA", "ASIA"}, false},
	// An AWS secret access key where it is named.
	{regexp.MustCompile(`(?i)(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}()`), []string{"aws"}, true},
	// A JSON Web Token: header and payload are base64url JSON objects.
	{regexp.MustCompile(`()\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*()`), []string{"eyJ"}, false},
	// A PEM private key.
	{regexp.MustCompile(`()-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)()`), []string{"PRIVATE KEY-----"}, false},
	// The password in a URL: scheme://user:password@host.
	{regexp.MustCompile(`(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:)[^/\s@]+(@)`), []string{"://"}, false},
}

// foldCase lowers s as a case-insensitive pattern sees it: the long s
// (U+017F) matches "s" too (the Kelvin sign, "k", lowers to it already).
func foldCase(s string) string { return strings.ReplaceAll(strings.ToLower(s), "ſ", "s") }

// redactCredentials replaces the credentials of well-known shapes in s.
func redactCredentials(s string) string {
	lower := ""
	for _, p := range credentialRE {
		text := s
		if p.fold {
			if lower == "" {
				lower = foldCase(s)
			}
			text = lower
		}
		if slices.ContainsFunc(p.lits, func(l string) bool { return strings.Contains(text, l) }) {
			s = p.re.ReplaceAllString(s, "${1}"+redactedMark+"${2}")
			lower = "" // s changed
		}
	}
	return s
}

// RedactCredentials replaces the credentials of well-known shapes in free
// text with "[redacted]", as a preview does inside its strings: for text that
// is not JSON, such as a run's code.
func RedactCredentials(s string) string { return redactCredentials(s) }

// Preview returns the redacted preview of the JSON arguments raw, indented
// with two spaces. Numbers and every string without a credential keep
// their exact bytes, but for the characters a person does not see, which
// it writes as escapes (hiddentext.Reveal): "alice\u200b42".
func (r Redactor) Preview(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	if !json.Valid(raw) {
		return "(arguments are not valid JSON)"
	}
	sec := New()
	sec.Set("preview", r.Known...)
	clean := rewriteJSONStrings(sec.ScrubJSON(raw), redactCredentials)
	var out bytes.Buffer
	if json.Indent(&out, clean, "", "  ") != nil {
		return "(arguments could not be shown)"
	}
	return cutPreview(hiddentext.Reveal(out.String()))
}

// MaxPreviewBytes bounds a preview: more than a person reads before
// deciding (some 850 lines of the dialog), and what a client's form, the
// dialog and `hub approve` can show at once. Arguments beyond it (a large
// file's content) are cut, and the preview says so.
const MaxPreviewBytes = 64 << 10

// PreviewCut begins the line a cut preview ends with.
const PreviewCut = "… (cut here: the arguments are "

// cutPreview is p, or its first MaxPreviewBytes cut where no character or
// escape is split, with a line saying how much there was.
func cutPreview(p string) string {
	if len(p) <= MaxPreviewBytes {
		return p
	}
	kept := Shorten(p, MaxPreviewBytes)
	if i := strings.LastIndexByte(kept[max(0, len(kept)-6):], '\\'); i >= 0 {
		kept = kept[:max(0, len(kept)-6)+i] // not inside \u200b or \"
	}
	return kept + "…\n" + PreviewCut + humanBytes(len(p)) + "; the first " + humanBytes(MaxPreviewBytes) + " are shown)"
}

// Shorten is s cut to at most max bytes where a character starts.
func Shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// humanBytes says n in KB or MB.
func humanBytes(n int) string {
	if n < 1<<20 {
		return strconv.Itoa(n>>10) + " KB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
}

// CompactPreview turns a preview (Redactor.Preview, as stored) into one
// line of at most max bytes, cut at a character with "…".
func CompactPreview(preview string, max int) string {
	var buf bytes.Buffer
	s := preview
	if json.Compact(&buf, []byte(preview)) == nil {
		s = buf.String()
	} else {
		s = strings.Join(strings.Fields(preview), " ")
	}
	if len(s) > max {
		s = Shorten(s, max) + "…"
	}
	return s
}

// rewriteJSONStrings returns the valid JSON text raw with every string
// (object keys included) replaced by fn of its text; a string fn leaves
// alone keeps its bytes, escapes and all.
func rewriteJSONStrings(raw []byte, fn func(string) string) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end, escaped := jsonStringEnd(raw, i)
		var text string
		if escaped {
			if json.Unmarshal(raw[i:end], &text) != nil {
				i = end - 1
				continue
			}
		} else {
			text = string(raw[i+1 : end-1])
		}
		if clean := fn(text); clean != text {
			out = append(out, raw[last:i]...)
			out = appendJSONString(out, clean)
			last = end
		}
		i = end - 1
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}
