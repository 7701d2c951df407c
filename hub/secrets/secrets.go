// Package secrets is about secret values, and how they are kept out of
// everything the hub says or writes.
//
// Secrets live in the OS keychain. The hub reads a connection's secrets when
// a session with its upstream starts, and from then on the values are in the
// Secrets registry, which scrubs them from what leaves the hub or reaches the
// disk: tool results and error text before the guest code sees them (so code
// cannot transform a secret past the scrubber), the journal, the run's
// envelope, and log lines. Other credential kinds (OAuth tokens) add their
// values to the same registry under an owner of their own.
//
// Redactor builds the preview of a call a person approves, hiding
// credentials by their shape; SameOriginRedirect keeps the credentials an
// HTTP client carries within their own origin; Cap cuts a text to a budget,
// saying how much it cut. The package imports nothing of the hub's.
package secrets

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mark replaces a known secret value.
const Mark = "[secret]"

// minSecretLen is the shortest value the registry scrubs: a shorter one
// would match inside ordinary text everywhere, and is no secret worth the
// name.
const minSecretLen = 4

// Secrets is the registry of the secret values the hub holds. Values are
// grouped by owner, a name for where they came from (ConnectionOwner for a
// connection's keychain secrets); an owner's values are replaced as a whole.
//
// Concurrency: safe for concurrent use. A nil *Secrets holds nothing and
// scrubs nothing.
type Secrets struct {
	mu     sync.RWMutex
	owners map[string][]string
	all    []string          // every value and its escaped forms, longest first, unique
	repl   *strings.Replacer // all -> Mark; nil when empty
	// plain: no value holds a character JSON writes with a short escape
	// (", \, /, control characters), so only a \u escape can hide one.
	plain bool
}

// New returns an empty registry.
func New() *Secrets { return &Secrets{owners: map[string][]string{}} }

// ConnectionOwner is the owner of the keychain secrets of connection conn
// of source.
func ConnectionOwner(source, conn string) string { return "connection " + source + "/" + conn }

// Set replaces the values of owner. Empty values and values shorter than
// four bytes are ignored; no values drops the owner.
func (s *Secrets) Set(owner string, values ...string) {
	if s == nil {
		return
	}
	var keep []string
	for _, v := range values {
		if len(v) >= minSecretLen {
			keep = append(keep, v)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(keep) == 0 {
		delete(s.owners, owner)
	} else {
		s.owners[owner] = keep
	}
	s.rebuildLocked()
}

// URLForms is secret v as a URL writes it, where that differs from v:
// escaped as a query parameter's value and as a path segment. A value
// quoted in a URL (an error naming the request, a redirect's location, a
// server echoing where it was reached) is the same secret.
func URLForms(v string) []string {
	var out []string
	for _, f := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		if f != v && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func (s *Secrets) rebuildLocked() {
	seen := map[string]bool{}
	var all []string
	add := func(v string) {
		if len(v) >= minSecretLen && !seen[v] {
			seen[v] = true
			all = append(all, v)
		}
	}
	for _, vs := range s.owners {
		for _, v := range vs {
			add(v)
			for _, f := range URLForms(v) {
				add(f)
			}
		}
	}
	// Longest first: a secret that contains another is replaced whole.
	sort.Slice(all, func(i, j int) bool {
		if len(all[i]) != len(all[j]) {
			return len(all[i]) > len(all[j])
		}
		return all[i] < all[j]
	})
	s.all = all
	s.plain = true
	for _, v := range all {
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' || r == '/' }) {
			s.plain = false
		}
	}
	s.repl = nil
	if len(all) > 0 {
		pairs := make([]string, 0, 2*len(all))
		for _, v := range all {
			pairs = append(pairs, v, Mark)
		}
		s.repl = strings.NewReplacer(pairs...)
	}
}

// Values returns every value the registry scrubs, longest first.
func (s *Secrets) Values() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.all...)
}

func (s *Secrets) snapshot() ([]string, *strings.Replacer) {
	all, repl, _ := s.scrubState()
	return all, repl
}

func (s *Secrets) scrubState() ([]string, *strings.Replacer, bool) {
	if s == nil {
		return nil, nil, true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.all, s.repl, s.plain
}

// Scrub replaces every known secret value in text with "[secret]".
func (s *Secrets) Scrub(text string) string {
	_, repl := s.snapshot()
	if repl == nil {
		return text
	}
	return repl.Replace(text)
}

// ScrubJSON replaces every known secret value inside the strings of the
// JSON text raw (object keys included, escapes decoded first) with
// "[secret]", and a number whose digits hold one with the string
// "[secret]". Everything else, numbers included, keeps its exact bytes. Text
// that is not valid JSON is scrubbed as plain text where the walk through
// its strings misses a value.
func (s *Secrets) ScrubJSON(raw json.RawMessage) json.RawMessage {
	all, repl, plain := s.scrubState()
	if repl == nil || len(raw) == 0 {
		return raw
	}
	// A string's bytes are its text but for its escapes. Without escapes,
	// or when no value holds a character with a short escape (\n, \") and
	// no \u escape is in raw, a value that is not in raw's bytes is in none
	// of its strings.
	uEscape := []byte(`\u`)
	if (bytes.IndexByte(raw, '\\') < 0 || plain && !bytes.Contains(raw, uEscape)) && !containsAny(raw, all) {
		return raw
	}
	var out []byte
	last := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			end, escaped := jsonStringEnd(raw, i)
			if seg := raw[i:end]; (!escaped || plain && !bytes.Contains(seg, uEscape)) && !containsAny(seg, all) {
				i = end
				continue
			}
			text := string(raw[i+1 : end-1])
			if escaped {
				text = decodeJSONString(raw[i+1 : end-1])
			}
			if holdsAny(text, all) {
				out = append(out, raw[last:i]...)
				out = appendJSONString(out, repl.Replace(text))
				last = end
			}
			i = end
		case c == '-' || ('0' <= c && c <= '9'):
			end := i + 1
			for end < len(raw) && strings.IndexByte("0123456789+-.eE", raw[end]) >= 0 {
				end++
			}
			if containsAny(raw[i:end], all) {
				out = append(out, raw[last:i]...)
				out = appendJSONString(out, Mark)
				last = end
			}
			i = end
		default:
			i++
		}
	}
	if out != nil {
		out = append(out, raw[last:]...)
	} else {
		out = raw
	}
	// Text that is not JSON, scrubbed as plain text.
	if containsAny(out, all) {
		return json.RawMessage(repl.Replace(string(out)))
	}
	return out
}

// decodeJSONString returns the text of the contents of a valid JSON
// string (what lies between its quotes), as encoding/json decodes it.
func decodeJSONString(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch b[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n := jsonUnicodeEscape(b[i-1:])
			out = utf8.AppendRune(out, r)
			i += n - 2
		default: // " \ /
			out = append(out, b[i])
		}
	}
	if !utf8.Valid(out) {
		return strings.ToValidUTF8(string(out), "\uFFFD")
	}
	return string(out)
}

// jsonUnicodeEscape decodes the \uXXXX escape (or surrogate pair of two)
// at the start of b and returns the rune and the bytes it took.
func jsonUnicodeEscape(b []byte) (rune, int) {
	hex4 := func(b []byte) rune {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return -1
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(v)
	}
	r := hex4(b)
	if r < 0 {
		return utf8.RuneError, 2
	}
	if utf16.IsSurrogate(r) {
		if r2 := hex4(b[6:]); r2 >= 0 {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

func holdsAny(text string, values []string) bool {
	for _, v := range values {
		if strings.Contains(text, v) {
			return true
		}
	}
	return false
}

func containsAny(b []byte, values []string) bool {
	for _, v := range values {
		if bytes.Contains(b, []byte(v)) {
			return true
		}
	}
	return false
}

// jsonStringEnd returns the index after the string that starts at raw[i]
// (a quote), and whether it has escapes. raw is valid JSON.
func jsonStringEnd(raw []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(raw), escaped
}

// appendJSONString appends s as a JSON string, escaping only what JSON
// requires (encoding/json would also escape <, > and &).
func appendJSONString(out []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// ScrubTools returns tools with every known secret value scrubbed from
// their definitions (descriptions, titles, schemas, annotations), which the
// catalog stores and search and describe show. A tool's name stays as the
// upstream calls it. tools is not modified.
func (s *Secrets) ScrubTools(tools []*mcp.Tool) []*mcp.Tool {
	if _, repl := s.snapshot(); repl == nil {
		return tools
	}
	out, copied := tools, false
	for i, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			continue
		}
		clean := s.ScrubJSON(b)
		if bytes.Equal(clean, b) {
			continue
		}
		var ct mcp.Tool
		if json.Unmarshal(clean, &ct) != nil {
			continue
		}
		// The schemas stay as written, their properties in the order the
		// upstream listed them, which a decoded map would sort.
		var raw struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if json.Unmarshal(clean, &raw) == nil {
			if ct.InputSchema != nil {
				ct.InputSchema = raw.InputSchema
			}
			if ct.OutputSchema != nil {
				ct.OutputSchema = raw.OutputSchema
			}
		}
		ct.Name = t.Name
		if !copied {
			out, copied = append([]*mcp.Tool(nil), tools...), true
		}
		out[i] = &ct
	}
	return out
}

// ScrubHandler returns a slog.Handler that scrubs the registry's values from
// the message and every attribute before next sees them.
func (s *Secrets) ScrubHandler(next slog.Handler) slog.Handler {
	return &scrubHandler{next: next, sec: s}
}

type scrubHandler struct {
	next slog.Handler
	sec  *Secrets
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	if _, repl := h.sec.snapshot(); repl == nil {
		return h.next.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, h.sec.Scrub(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.sec.Scrub(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		// Errors, Stringers and the rest are logged as their text.
		var text string
		switch x := v.Any().(type) {
		case error:
			text = x.Error()
		case interface{ String() string }:
			text = x.String()
		default:
			b, err := json.Marshal(x)
			if err != nil {
				return a
			}
			text = string(b)
		}
		if clean := h.sec.Scrub(text); clean != text {
			return slog.String(a.Key, clean)
		}
		return slog.Attr{Key: a.Key, Value: v}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = h.attr(a)
	}
	return &scrubHandler{next: h.next.WithAttrs(out), sec: h.sec}
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	return &scrubHandler{next: h.next.WithGroup(name), sec: h.sec}
}

// secretNameRE matches names (keys, env vars, headers) whose values are
// secrets: tokens, passwords, keys, credentials, cookies.
var secretNameRE = regexp.MustCompile(`(?i)(token|passw(or)?d|passwd|secret|authoriz|credential|cookie|session|api[-_]?key|private[-_]?key|access[-_]?key|(^|[-_])key$|^key|(^|[-_])pat$|(^|[-_])pass$|^(x[-_])?auth$|bearer|signature)`)

// tokenPrefixRE matches well-known credential prefixes.
var tokenPrefixRE = regexp.MustCompile(`^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}|(Bearer|Basic|token) [A-Za-z0-9._~+/=-]{12,})$`)

// LooksSecretName reports whether a key, env var or header name suggests
// that its value is a secret.
func LooksSecretName(name string) bool { return secretNameRE.MatchString(name) }

// LooksLikeToken reports whether a value looks like a credential: a
// well-known token prefix, or a long random-looking string without spaces.
func LooksLikeToken(v string) bool {
	v = strings.TrimSpace(v)
	if tokenPrefixRE.MatchString(v) {
		return true
	}
	if len(v) < 24 || len(v) > 512 || strings.ContainsAny(v, " \t\n/\\") {
		return false
	}
	// A path, URL or sentence is not a token.
	if strings.Contains(v, "://") || strings.Count(v, ".") > 2 {
		return false
	}
	var classes int
	var lower, upper, digit bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return classes >= 2 && digit && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// ScrubValues replaces each of values in s with [secret], in the order
// given (a caller passes them longest first, so a value that contains
// another is replaced whole). It is Scrub for the values of one
// connection, which an error is scrubbed of before it leaves it.
func ScrubValues(s string, values []string) string {
	for _, v := range values {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
	}
	return s
}
