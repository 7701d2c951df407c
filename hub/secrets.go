package hub

// Secret values and how they are kept out of everything the hub says.
//
// Secrets live in the OS keychain. The hub reads a connection's secrets when
// a session with its upstream starts, and from then on the values are in the
// Secrets registry, which scrubs them from what leaves the hub or reaches the
// disk: tool results and error text before the guest code sees them (so code
// cannot transform a secret past the scrubber), the journal, the run's
// envelope, and log lines. Other credential kinds (OAuth tokens) add their
// values to the same registry under an owner of their own.

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretMark replaces a known secret value.
const secretMark = "[secret]"

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
	repl   *strings.Replacer // all -> secretMark; nil when empty
}

// NewSecrets returns an empty registry.
func NewSecrets() *Secrets { return &Secrets{owners: map[string][]string{}} }

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
			// A value quoted in a URL (an error naming the request) is
			// the same secret.
			add(url.QueryEscape(v))
			add(url.PathEscape(v))
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
	s.repl = nil
	if len(all) > 0 {
		pairs := make([]string, 0, 2*len(all))
		for _, v := range all {
			pairs = append(pairs, v, secretMark)
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
	if s == nil {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.all, s.repl
}

// Holds reports whether text contains a known secret value.
func (s *Secrets) Holds(text string) bool {
	all, _ := s.snapshot()
	for _, v := range all {
		if strings.Contains(text, v) {
			return true
		}
	}
	return false
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
// that is not valid JSON is scrubbed as plain text.
func (s *Secrets) ScrubJSON(raw json.RawMessage) json.RawMessage {
	all, repl := s.snapshot()
	if repl == nil || len(raw) == 0 {
		return raw
	}
	// Without escapes, every string's bytes are its text: a value that is
	// not in raw is in none of them.
	if bytes.IndexByte(raw, '\\') < 0 {
		found := false
		for _, v := range all {
			if bytes.Contains(raw, []byte(v)) {
				found = true
				break
			}
		}
		if !found {
			return raw
		}
	}
	if !json.Valid(raw) {
		return json.RawMessage(repl.Replace(string(raw)))
	}
	var out []byte
	last := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			end, escaped := jsonStringEnd(raw, i)
			var text string
			if escaped {
				if json.Unmarshal(raw[i:end], &text) != nil {
					i = end
					continue
				}
			} else {
				text = string(raw[i+1 : end-1])
			}
			if clean := repl.Replace(text); clean != text {
				out = append(out, raw[last:i]...)
				out = appendJSONString(out, clean)
				last = end
			}
			i = end
		case c == '-' || ('0' <= c && c <= '9'):
			end := i + 1
			for end < len(raw) && strings.IndexByte("0123456789+-.eE", raw[end]) >= 0 {
				end++
			}
			if num := string(raw[i:end]); repl.Replace(num) != num {
				out = append(out, raw[last:i]...)
				out = appendJSONString(out, secretMark)
				last = end
			}
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
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

// scrubTools returns tools with every known secret value scrubbed from
// their definitions (descriptions, titles, schemas, annotations), which the
// catalog stores and search and describe show. A tool's name stays as the
// upstream calls it. tools is not modified.
func (s *Secrets) scrubTools(tools []*mcp.Tool) []*mcp.Tool {
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
var secretNameRE = regexp.MustCompile(`(?i)(token|passw(or)?d|passwd|secret|authoriz|credential|cookie|session|api[-_]?key|private[-_]?key|access[-_]?key|(^|[-_])key$|^key|(^|[-_])pat$|bearer|signature)`)

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
