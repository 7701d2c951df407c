package catalog

// The canonical form of a JSON document, written from its bytes: the same
// bytes as decoding it into Go values (numbers as json.Number) and
// marshalling those again, which is what pins have hashed since they were
// first kept, without building the maps in between. Storing GitHub's
// 1,222 operations spent most of its time there.

import (
	"bytes"
	"encoding/json"
	"slices"

	"capabilities.sh/capabilities/internal/jsonstr"
)

// canonicalJSON marshals v with object keys sorted at every depth, numbers
// kept as written and strings escaped as encoding/json escapes them. A
// json.RawMessage that is not valid JSON is an error, as json.Marshal
// checks it.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	c := canonicalizer{in: b, out: make([]byte, 0, len(b))}
	c.value()
	return c.out, nil
}

// canonicalizer writes one valid document; in is read from pos on.
// members holds the members of the objects being written, the innermost
// last.
type canonicalizer struct {
	in      []byte
	pos     int
	out     []byte
	members []member
	// listed keeps each object's members in the order they came rather
	// than sorting them; the rest is as canonical: the last of a repeated
	// key wins, at its place.
	listed bool
	// unsorted is set when an object came with its members out of key
	// order or a key repeated: until then, what listed writes is the
	// canonical form.
	unsorted bool
}

func (c *canonicalizer) space() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value() {
	c.space()
	switch c.in[c.pos] {
	case '{':
		c.object()
	case '[':
		c.pos++
		c.out = append(c.out, '[')
		c.space()
		if c.in[c.pos] == ']' {
			c.pos++
			c.out = append(c.out, ']')
			return
		}
		for {
			c.value()
			c.space()
			if c.in[c.pos] == ']' {
				c.pos++
				c.out = append(c.out, ']')
				return
			}
			c.pos++ // ','
			c.out = append(c.out, ',')
		}
	case '"':
		c.out = appendCanonicalString(c.out, c.stringToken())
	default: // a number or a literal, written as it is
		start := c.pos
		c.scalar()
		c.out = append(c.out, c.in[start:c.pos]...)
	}
}

// scalar moves past the number or literal at pos.
func (c *canonicalizer) scalar() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return
		}
		c.pos++
	}
}

// skip moves past the value at pos.
func (c *canonicalizer) skip() {
	c.space()
	switch c.in[c.pos] {
	case '"':
		c.stringToken()
	case '{', '[':
		depth := 0
		for {
			switch c.in[c.pos] {
			case '"':
				c.stringToken()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			c.pos++
			if depth == 0 {
				return
			}
		}
	default:
		c.scalar()
	}
}

// stringToken is the quoted string at pos, quotes included.
func (c *canonicalizer) stringToken() []byte {
	start := c.pos
	c.pos++
	for {
		switch c.in[c.pos] {
		case '\\':
			c.pos += 2
		case '"':
			c.pos++
			return c.in[start:c.pos]
		default:
			c.pos++
		}
	}
}

// member is one of an object's members: its key decoded, the key as
// written when it needs no other form (nil otherwise), and where its value
// starts.
type member struct {
	key   []byte
	tok   []byte
	value int
}

// object writes the object at pos with its members in key order (or as
// listed), the last of a repeated key winning, as a map would keep it. It finds the
// members first and then writes each value where it belongs, so nothing
// is written twice.
func (c *canonicalizer) object() {
	c.pos++
	c.space()
	if c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, '{', '}')
		return
	}
	base := len(c.members)
	sorted := true
	for {
		c.space()
		tok := c.stringToken()
		m := member{key: tok[1 : len(tok)-1], tok: tok}
		if !jsonstr.Plain(m.key) {
			m.key, m.tok = []byte(decodeString(tok)), nil
		}
		c.space()
		c.pos++ // ':'
		c.space()
		m.value = c.pos
		c.skip()
		if n := len(c.members); n > base && bytes.Compare(c.members[n-1].key, m.key) >= 0 {
			sorted = false
		}
		c.members = append(c.members, m)
		c.space()
		sep := c.in[c.pos]
		c.pos++
		if sep == '}' {
			break
		}
	}
	end := c.pos
	c.unsorted = c.unsorted || !sorted
	if !sorted && !c.listed {
		slices.SortStableFunc(c.members[base:], func(a, b member) int { return bytes.Compare(a.key, b.key) })
	}
	replaced := c.replacedFunc(base, sorted)
	c.out = append(c.out, '{')
	first := true
	for i := base; i < len(c.members); i++ {
		m := c.members[i]
		if replaced(i) {
			continue // a later member of the same key replaces it
		}
		if !first {
			c.out = append(c.out, ',')
		}
		first = false
		if m.tok != nil {
			c.out = append(c.out, m.tok...)
		} else {
			c.out = jsonstr.Append(c.out, string(m.key))
		}
		c.out = append(c.out, ':')
		c.pos = m.value
		c.value()
	}
	c.members = c.members[:base]
	c.pos = end
	c.out = append(c.out, '}')
}

// replacedFunc reports, of the members from base on of the object being
// written, whether a later member of the same key replaces member i. Sorted
// members have it next; listed ones anywhere after, which a large object
// looks up in a map rather than comparing every pair.
func (c *canonicalizer) replacedFunc(base int, sorted bool) func(i int) bool {
	ms := c.members
	if !c.listed || sorted {
		return func(i int) bool { return i+1 < len(ms) && bytes.Equal(ms[i+1].key, ms[i].key) }
	}
	if len(ms)-base <= 16 {
		return func(i int) bool {
			for j := i + 1; j < len(ms); j++ {
				if bytes.Equal(ms[j].key, ms[i].key) {
					return true
				}
			}
			return false
		}
	}
	last := make(map[string]int, len(ms)-base)
	for i := base; i < len(ms); i++ {
		last[string(ms[i].key)] = i
	}
	return func(i int) bool { return last[string(ms[i].key)] != i }
}

// appendCanonicalString appends the quoted string tok as encoding/json
// writes its value: as it is when it has no escape and nothing the
// encoder would escape, and otherwise decoded and encoded again.
func appendCanonicalString(out, tok []byte) []byte {
	if jsonstr.Plain(tok[1 : len(tok)-1]) {
		return append(out, tok...)
	}
	return jsonstr.Append(out, decodeString(tok))
}

func decodeString(tok []byte) string {
	if jsonstr.Plain(tok[1 : len(tok)-1]) {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	_ = json.Unmarshal(tok, &s) // the document is valid
	return s
}
