package tsgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// object is a JSON object that remembers the order of its keys. JSON Schema
// leaves property order unspecified, but authors list properties in the
// order they mean them to be read, so declarations keep it.
//
// vals[i] is the value of keys[i]. Naming a namespace's types decodes
// every object of its schemas at once (GitHub's 1,222 operations have some
// 84,000), so an object is two slices, searched in order, and only one
// with more than objectIndexed keys gets a map to find a key by.
type object struct {
	keys []string
	vals []any
	idx  map[string]int // by key, the index in keys; nil for a small object
}

// objectIndexed is the most keys an object has without a map: a schema's
// keywords are a handful, a large properties object gets one.
const objectIndexed = 16

func (o *object) get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// find is the index of key in o.keys, or -1.
func (o *object) find(key string) int {
	if o.idx != nil {
		if i, ok := o.idx[key]; ok {
			return i
		}
		return -1
	}
	return slices.Index(o.keys, key)
}

// set sets key's value, after the other keys if o does not have it yet.
func (o *object) set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	switch {
	case o.idx != nil:
		o.idx[key] = len(o.keys) - 1
	case len(o.keys) > objectIndexed:
		o.idx = make(map[string]int, len(o.keys))
		for i, k := range o.keys {
			o.idx[k] = i
		}
	}
}

// without returns a shallow copy of o without the given keys.
func (o *object) without(drop ...string) *object {
	c := &object{}
	for i, k := range o.keys {
		if slices.Contains(drop, k) {
			continue
		}
		c.set(k, o.vals[i])
	}
	return c
}

// parseJSON decodes data into nil, bool, json.Number, string, []any or
// *object values.
func parseJSON(data []byte) (any, error) { return parseJSONInterned(data, nil) }

// parseJSONInterned is parseJSON that takes each object key and string
// from strs when it has it, and adds it when not; nil strs takes none.
//
// It checks data with json.Valid, then reads the valid text directly: a
// namespace's index decodes every schema of the namespace, and
// encoding/json's token reader allocates several times the text it reads.
func parseJSONInterned(data []byte, strs map[string]any) (any, error) {
	if !json.Valid(data) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		return nil, errors.New("invalid JSON")
	}
	p := &jsonReader{data: data, strs: strs}
	return p.value(), nil
}

// jsonReader reads a valid JSON text.
type jsonReader struct {
	data []byte
	i    int
	strs map[string]any
}

// next skips white space and returns the byte it stops at.
func (p *jsonReader) next() byte {
	for {
		switch c := p.data[p.i]; c {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return c
		}
	}
}

func (p *jsonReader) value() any {
	switch p.next() {
	case '{':
		p.i++
		o := &object{}
		if p.next() == '}' {
			p.i++
			return o
		}
		for {
			p.next()
			k := p.str()
			p.next() // ':'
			p.i++
			v := p.value()
			o.set(intern(p.strs, k).(string), v)
			c := p.next() // ',' or '}'
			p.i++
			if c == '}' {
				break
			}
		}
		o.keys, o.vals = exact(o.keys), exact(o.vals)
		return o
	case '[':
		p.i++
		arr := []any{}
		if p.next() == ']' {
			p.i++
			return arr
		}
		for {
			arr = append(arr, p.value())
			c := p.next() // ',' or ']'
			p.i++
			if c == ']' {
				break
			}
		}
		return exact(arr)
	case '"':
		return intern(p.strs, p.str())
	case 't':
		p.i += len("true")
		return true
	case 'f':
		p.i += len("false")
		return false
	case 'n':
		p.i += len("null")
		return nil
	}
	start := p.i
	for p.i < len(p.data) && strings.IndexByte("+-.0123456789eE", p.data[p.i]) >= 0 {
		p.i++
	}
	return json.Number(p.data[start:p.i])
}

// str reads a string literal: its bytes when they need no decoding, else
// as encoding/json decodes it.
func (p *jsonReader) str() string {
	start := p.i
	escaped := false
	for p.i++; p.data[p.i] != '"'; p.i++ {
		if p.data[p.i] == '\\' {
			escaped = true
			p.i++
		}
	}
	p.i++
	lit := p.data[start:p.i]
	if body := lit[1 : len(lit)-1]; !escaped && utf8.Valid(body) {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(lit, &s) // a valid literal always decodes
	return s
}

// intern is s as strs holds it, added when strs does not; s itself when
// strs is nil. strs holds each string as an interface value, so a string
// met again as a value costs neither its text nor its boxing.
func intern(strs map[string]any, s string) any {
	if strs == nil {
		return s
	}
	if have, ok := strs[s]; ok {
		return have
	}
	var v any = s
	strs[s] = v
	return v
}

// exact is s in an array of its length: while a namespace's index is
// built, every schema of the namespace is held decoded, and append's
// spare room would be held with it.
func exact[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// encodeJSON writes v compactly for the model to read, keeping object key
// order and leaving HTML characters unescaped; the characters a reader
// does not see are escapes in its strings (hiddentext.Reveal), the same
// value.
func encodeJSON(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return hiddentext.Reveal(b.String())
}

// jsonWriter is where writeJSON writes: a strings.Builder, or a
// bufio.Writer in front of a hash.
type jsonWriter interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

func writeJSON(b jsonWriter, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(t.String())
	case string:
		writeQuoted(b, t)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeQuoted(b, k)
			b.WriteByte(':')
			writeJSON(b, t.vals[i])
		}
		b.WriteByte('}')
	}
}

// writeQuoted writes quote(s).
func writeQuoted(b jsonWriter, s string) {
	if plain(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	b.WriteString(quote(s))
}

// plain reports whether s is printable ASCII without a quote or a
// backslash: what a JSON string literal holds as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// quote returns s as a JSON string literal, which is also a valid
// TypeScript string literal.
func quote(s string) string {
	if plain(s) {
		return `"` + s + `"`
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}
