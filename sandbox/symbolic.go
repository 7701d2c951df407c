package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// SymbolKey is the key of symbolic JSON's one-member objects that stand
// for placeholders: {"$planned":{"call":2,"path":["entities","0","name"]}}.
// In symbolic JSON, an object key of the guest's own that reads
// "$planned" after one or more "$" is written with one "$" more, so no
// value of the guest's can pass for a symbol. See "Planning" in the package
// documentation.
const SymbolKey = "$planned"

// Symbol stands for a placeholder in symbolic JSON: the value at Path in
// the result of call Call. Path holds object keys and array indexes (as
// decimal strings), as Read.Path does.
type Symbol struct {
	Call int      `json:"call"`
	Path []string `json:"path"`
}

// String shows the symbol as the guest's logs do:
// <result of call 2>.entities[0].name.
func (s Symbol) String() string {
	return fmt.Sprintf("<result of call %d>", s.Call) + pathText(s.Path)
}

// ShowSymbols is show(doc) for symbolic JSON doc, each symbol written as
// String shows it (<result of call 2>.entities[0].name) where show wrote
// the string that stood for it: a preview of arguments that may hold
// placeholders. Without symbols, or for a doc Symbols refuses, it is
// show(doc).
func ShowSymbols(doc json.RawMessage, show func(json.RawMessage) string) string {
	syms, err := Symbols(doc)
	if err != nil || len(syms) == 0 {
		return show(doc)
	}
	var id [10]byte
	rand.Read(id[:])
	mark := "plan" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(id[:])) + "-" // 80 random bits: a string no argument holds, of characters show keeps as they are
	texts := map[string]string{}
	resolved, err := Resolve(doc, func(s Symbol) (json.RawMessage, bool) {
		key := mark + strconv.Itoa(len(texts))
		texts[key] = s.String()
		b, _ := json.Marshal(key)
		return b, true
	})
	if err != nil {
		return show(doc)
	}
	out := show(resolved)
	for key, text := range texts {
		q, _ := json.Marshal(key)
		out = strings.ReplaceAll(out, string(q), text)
	}
	return out
}

// Symbols returns the symbols in symbolic JSON (a Call's Args when
// Call.Symbolic, a planned Outcome's Result), in document order. It fails
// on text that is not JSON and on a malformed symbol: an object with the
// key "$planned" that is not exactly one.
func Symbols(doc json.RawMessage) ([]Symbol, error) {
	w, err := walkSymbolic(doc, nil, false)
	if err != nil {
		return nil, err
	}
	return w.symbols, nil
}

// Resolve turns symbolic JSON into plain JSON: each symbol becomes the
// value lookup gives for it and escaped keys lose their extra "$". The
// value must be JSON; nil stands for undefined, which is dropped as
// JSON.stringify drops it (an object member is left out, an array element
// is null, and a document that is only a symbol resolves to nil). lookup
// returns false when it knows no value, and Resolve then fails; it may be
// nil for JSON with no symbols. The output is compact, with the document's
// own strings and numbers as written.
//
// A host matching a call against a planned one resolves the planned
// arguments with the values the symbols now stand for (see At) and
// compares the result with the call's arguments as canonical JSON.
func Resolve(doc json.RawMessage, lookup func(Symbol) (json.RawMessage, bool)) (json.RawMessage, error) {
	if lookup == nil {
		lookup = func(Symbol) (json.RawMessage, bool) { return nil, false }
	}
	w, err := walkSymbolic(doc, lookup, true)
	if err != nil {
		return nil, err
	}
	if w.undefined {
		return nil, nil
	}
	return w.out.Bytes(), nil
}

// symbolWalk reads symbolic JSON, already checked to be JSON, and writes
// it resolved when out is used.
type symbolWalk struct {
	b         []byte
	i         int
	write     bool
	out       bytes.Buffer
	symbols   []Symbol
	lookup    func(Symbol) (json.RawMessage, bool)
	undefined bool // the whole document resolved to undefined
}

func walkSymbolic(doc json.RawMessage, lookup func(Symbol) (json.RawMessage, bool), write bool) (*symbolWalk, error) {
	if !json.Valid(doc) {
		return nil, errors.New("sandbox: symbolic JSON: not JSON")
	}
	w := &symbolWalk{b: doc, lookup: lookup, write: write}
	undefined, err := w.value()
	if err != nil {
		return nil, err
	}
	w.undefined = undefined
	return w, nil
}

func (w *symbolWalk) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *symbolWalk) emit(b []byte) {
	if w.write {
		w.out.Write(b)
	}
}

// value reads one value and writes it; undefined reports a symbol whose
// value is undefined, of which nothing was written.
func (w *symbolWalk) value() (undefined bool, err error) {
	w.space()
	switch w.b[w.i] {
	case '{':
		return w.object()
	case '[':
		return false, w.array()
	case '"':
		start := w.i
		w.skipString()
		w.emit(w.b[start:w.i])
	default:
		start := w.i
		for w.i < len(w.b) && !strings.ContainsRune(" \t\n\r,]}", rune(w.b[w.i])) {
			w.i++
		}
		w.emit(w.b[start:w.i])
	}
	return false, nil
}

// skipString moves past the string at i.
func (w *symbolWalk) skipString() {
	w.i++
	for w.b[w.i] != '"' {
		if w.b[w.i] == '\\' {
			w.i++
		}
		w.i++
	}
	w.i++
}

// key reads an object key and returns it decoded, and as written.
func (w *symbolWalk) key() (string, []byte) {
	start := w.i
	w.skipString()
	raw := w.b[start:w.i]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), raw
	}
	var k string
	_ = json.Unmarshal(raw, &k) // valid JSON: it decodes
	return k, raw
}

func (w *symbolWalk) object() (bool, error) {
	w.i++ // {
	w.space()
	if w.b[w.i] == '}' {
		w.i++
		w.emit([]byte("{}"))
		return false, nil
	}
	mark := w.out.Len()
	w.emit([]byte{'{'})
	members := 0
	for n := 0; ; n++ {
		w.space()
		k, raw := w.key()
		w.space()
		w.i++ // :
		if k == SymbolKey {
			if n > 0 {
				return false, errors.New("sandbox: symbolic JSON: an object with the key " + SymbolKey + " has other keys")
			}
			return w.symbol(mark)
		}
		before := w.out.Len()
		if members > 0 {
			w.emit([]byte{','})
		}
		if escapedKey(k) {
			w.emit([]byte(jsQuote(k[1:])))
		} else {
			w.emit(raw)
		}
		w.emit([]byte{':'})
		undefined, err := w.value()
		if err != nil {
			return false, err
		}
		if undefined {
			w.out.Truncate(before)
		} else {
			members++
		}
		w.space()
		if w.b[w.i] == '}' {
			w.i++
			w.emit([]byte{'}'})
			return false, nil
		}
		w.i++ // ,
	}
}

// symbol reads the rest of a symbol, its key read, and writes the value it
// stands for in place of the object begun at mark.
func (w *symbolWalk) symbol(mark int) (bool, error) {
	w.space()
	start := w.i
	if err := w.skipValue(); err != nil {
		return false, err
	}
	body := w.b[start:w.i]
	w.space()
	if w.b[w.i] != '}' {
		return false, errors.New("sandbox: symbolic JSON: an object with the key " + SymbolKey + " has other keys")
	}
	w.i++
	var s struct {
		Call *int      `json:"call"`
		Path *[]string `json:"path"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || s.Call == nil || *s.Call < 1 || s.Path == nil {
		return false, fmt.Errorf("sandbox: symbolic JSON: malformed symbol %s", body)
	}
	sym := Symbol{Call: *s.Call, Path: *s.Path}
	w.symbols = append(w.symbols, sym)
	if !w.write {
		return false, nil
	}
	w.out.Truncate(mark)
	v, ok := w.lookup(sym)
	if !ok {
		return false, fmt.Errorf("sandbox: no value for %s", sym)
	}
	if v == nil {
		return true, nil
	}
	if err := json.Compact(&w.out, v); err != nil {
		return false, fmt.Errorf("sandbox: the value for %s is not JSON: %w", sym, err)
	}
	return false, nil
}

// skipValue moves past one value without writing it.
func (w *symbolWalk) skipValue() error {
	write := w.write
	w.write = false
	defer func() { w.write = write }()
	mark := len(w.symbols)
	_, err := w.value()
	if len(w.symbols) > mark {
		return errors.New("sandbox: symbolic JSON: a symbol inside a symbol")
	}
	return err
}

func (w *symbolWalk) array() error {
	w.i++ // [
	w.emit([]byte{'['})
	w.space()
	if w.b[w.i] == ']' {
		w.i++
		w.emit([]byte{']'})
		return nil
	}
	for n := 0; ; n++ {
		if n > 0 {
			w.emit([]byte{','})
		}
		undefined, err := w.value()
		if err != nil {
			return err
		}
		if undefined {
			w.emit([]byte("null"))
		}
		w.space()
		if w.b[w.i] == ']' {
			w.i++
			w.emit([]byte{']'})
			return nil
		}
		w.i++ // ,
	}
}

// escapedKey reports a key escaped in symbolic JSON: "$planned" after two
// or more "$".
func escapedKey(k string) bool {
	rest, ok := strings.CutSuffix(k, "planned")
	return ok && len(rest) >= 2 && strings.Trim(rest, "$") == ""
}

// At returns the value at path in a call's result (JSON), as the guest
// would read it there: an object's own member, an array's element or
// length, a string's length or UTF-16 unit. It returns nil and true for
// undefined (a member or element that is not there, any other property of
// a string, a number or a boolean), and false when the path goes through
// undefined or null, where the guest's read would throw.
func At(value json.RawMessage, path []string) (json.RawMessage, bool) {
	v := value
	for _, k := range path {
		if v == nil {
			return nil, false
		}
		v = bytes.TrimLeft(v, " \t\r\n")
		if len(v) == 0 {
			return nil, false
		}
		switch v[0] {
		case 'n':
			return nil, false
		case '{':
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil {
				return nil, false
			}
			v = m[k] // nil when absent
		case '[':
			var items []json.RawMessage
			if json.Unmarshal(v, &items) != nil {
				return nil, false
			}
			switch {
			case k == "length":
				v = json.RawMessage(strconv.Itoa(len(items)))
			case isIndex(k):
				if i, _ := strconv.Atoi(k); i < len(items) {
					v = items[i]
				} else {
					v = nil
				}
			default:
				v = nil
			}
		case '"':
			var s string
			if json.Unmarshal(v, &s) != nil {
				return nil, false
			}
			units := utf16.Encode([]rune(s))
			switch {
			case k == "length":
				v = json.RawMessage(strconv.Itoa(len(units)))
			case isIndex(k):
				if i, _ := strconv.Atoi(k); i < len(units) {
					v = unitJSON(units[i])
				} else {
					v = nil
				}
			default:
				v = nil
			}
		default: // a number or a boolean
			v = nil
		}
	}
	return v, true
}

// unitJSON writes one UTF-16 unit as JSON.stringify writes a string of it:
// a lone surrogate as an escape.
func unitJSON(u uint16) json.RawMessage {
	if utf16.IsSurrogate(rune(u)) {
		return json.RawMessage(fmt.Sprintf(`"\u%04x"`, u))
	}
	return json.RawMessage(jsQuote(string(rune(u))))
}

// maxShownKey bounds a key as shown in a reason or a placeholder's text;
// Path holds it whole.
const maxShownKey = 64

var identifierRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// pathText shows a path as JavaScript reads it: .name, [0], ["a b"].
func pathText(path []string) string {
	var b strings.Builder
	for _, k := range path {
		switch {
		case isIndex(k):
			b.WriteString("[" + k + "]")
		case identifierRe.MatchString(k):
			b.WriteString("." + k)
		default:
			b.WriteString("[" + jsQuote(k) + "]")
		}
	}
	return b.String()
}

// shorten cuts a key to maxShownKey bytes.
func shorten(k string) string { return cutText(k, maxShownKey) }

// cutText cuts s to max bytes, on a rune boundary, and marks the cut.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// isIndex reports whether k is an array index as JavaScript writes one:
// decimal, no leading zero, at most 15 digits.
func isIndex(k string) bool {
	if k == "" || len(k) > 15 || (k[0] == '0' && len(k) > 1) {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	return true
}

// jsQuote writes s as JSON.stringify does: only quotes, backslashes and
// control characters are escaped.
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
