package tsgen

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// Schema keyword helpers. A schema is a bool or an *object; anything else
// reads as an empty schema.

func kw(n any, key string) (any, bool) {
	o, ok := n.(*object)
	if !ok {
		return nil, false
	}
	return o.get(key)
}

func kwString(n any, key string) string {
	v, _ := kw(n, key)
	s, _ := v.(string)
	return s
}

func kwBool(n any, key string) bool {
	v, _ := kw(n, key)
	b, _ := v.(bool)
	return b
}

func kwObject(n any, key string) *object {
	v, _ := kw(n, key)
	o, _ := v.(*object)
	return o
}

func kwArray(n any, key string) []any {
	v, _ := kw(n, key)
	a, _ := v.([]any)
	return a
}

func has(n any, key string) bool {
	_, ok := kw(n, key)
	return ok
}

// types returns the schema's "type" keyword as a list.
func types(n any) []string {
	v, _ := kw(n, "type")
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func requiredSet(n any) []string {
	var out []string
	for _, e := range kwArray(n, "required") {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// isObjectLiteral reports whether n renders as an object type with named
// properties: the unit that nesting depth counts and the budget cuts into
// named interfaces.
func isObjectLiteral(n any) bool {
	o, ok := n.(*object)
	if !ok || has(o, "$ref") || has(o, "enum") || has(o, "const") {
		return false
	}
	props := kwObject(o, "properties")
	if props == nil || len(props.keys) == 0 {
		return false
	}
	ts := types(o)
	return len(ts) == 0 || slices.Contains(ts, "object")
}

// structural reports whether n says anything about the shape of a value,
// as opposed to only constraining it (required, format, minimum...). The
// boolean schemas do: true allows anything, false nothing.
func structural(n any) bool {
	if _, ok := n.(bool); ok {
		return true
	}
	for _, k := range []string{"type", "properties", "additionalProperties", "patternProperties",
		"items", "prefixItems", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "nullable"} {
		if has(n, k) {
			return true
		}
	}
	return false
}

// schemaDoc is one schema document (a tool's input or output schema),
// which a view decodes (nsView.root); $ref pointers resolve against its
// root.
type schemaDoc struct {
	raw []byte // the schema's JSON, the catalog's own
	// rootName is the type name of the root: <Tool>Input or the result name.
	rootName string
	// named lists the document's named objects by position, in order;
	// set when the index is sealed.
	named []nodeName
}

// resolve follows a local reference ("#", "#/$defs/Node", any JSON
// pointer, or "#name" for a $anchor) in document d.
func (v *nsView) resolve(d *schemaDoc, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag := ref[1:]
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	root := v.root(d)
	if frag == "" {
		return root, true
	}
	if !strings.HasPrefix(frag, "/") {
		return findAnchor(root, frag)
	}
	cur := root
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *object:
			v, ok := c.get(seg)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func findAnchor(n any, name string) (any, bool) {
	switch c := n.(type) {
	case *object:
		if kwString(c, "$anchor") == name {
			return c, true
		}
		for _, v := range c.vals {
			if v, ok := findAnchor(v, name); ok {
				return v, true
			}
		}
	case []any:
		for _, e := range c {
			if v, ok := findAnchor(e, name); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// pascal turns a name such as "create_issue", "createIssue" or
// "x-api-key" into an exported-looking identifier: CreateIssue, XApiKey.
func pascal(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if r > unicode.MaxASCII {
			upper = false
			continue
		}
		if upper {
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		} else {
			b.WriteRune(r)
		}
	}
	out := b.String()
	if out == "" {
		return "Type"
	}
	if out[0] >= '0' && out[0] <= '9' {
		return "T" + out
	}
	return out
}

// isIdent reports whether s is an ASCII JavaScript identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

// propName renders a property key, quoted when it is not an identifier,
// with the characters a reader does not see as escapes.
func propName(s string) string {
	if isIdent(s) {
		return s
	}
	return hiddentext.Reveal(quote(s))
}

// literal renders a JSON value as a TypeScript literal type, or "" when
// the value has no literal type (objects and arrays).
func literal(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool, string:
		return encodeJSON(t)
	case json.Number:
		return t.String()
	}
	return ""
}
