package tsgen

import (
	"crypto/sha256"
	"strconv"
	"sync"
)

// nsIndex holds one namespace of the catalog with a name for every type a
// declaration can mention: each tool's input (<Tool>Input) and result,
// each $defs/definitions entry, each $ref target, and each nested object
// with properties, named by its path from the nearest named ancestor.
// Names depend only on the catalog, never on the budget or the targets, so
// a name printed by one describe call resolves in the next.
type nsIndex struct {
	name   string
	tools  []*toolInfo
	byName map[string]*toolInfo

	names map[*object]string // schema node -> type name
	types map[string]*namedType
	order []string // type names in assignment order
	// canon holds, per type name, the key that lets another node share
	// the name; computed only when a second node asks for the name.
	canon map[string]func() string
}

type toolInfo struct {
	tool   Tool
	pascal string
	input  *schemaDoc // nil when the tool has no input schema
	output *schemaDoc // nil when the tool has no usable output schema
}

// namedType is a schema node that has a type name.
type namedType struct {
	name string
	doc  *schemaDoc
	node any
}

func newIndex(ns string, catalog []Tool) *nsIndex {
	ix := &nsIndex{
		name:   ns,
		byName: map[string]*toolInfo{},
		names:  map[*object]string{},
		types:  map[string]*namedType{},
		canon:  map[string]func() string{},
	}
	// The schemas of a namespace repeat their keywords, and often their
	// property names and descriptions: each text is held once.
	strs := map[string]any{}
	for _, t := range catalog {
		if t.Namespace != ns {
			continue
		}
		if _, dup := ix.byName[t.Name]; dup {
			continue
		}
		ti := &toolInfo{tool: t, pascal: pascal(t.Name)}
		if root, ok := parseSchema(t.InputSchema, strs); ok {
			ti.input = &schemaDoc{root: root}
		}
		if root, ok := parseSchema(t.OutputSchema, strs); ok {
			ti.output = &schemaDoc{root: root}
		}
		ix.tools = append(ix.tools, ti)
		ix.byName[t.Name] = ti
	}

	// Roots first, so that they keep their natural names.
	for _, ti := range ix.tools {
		if ti.input != nil {
			ti.input.rootName = ix.claim(ti.pascal+"Input", ti.input, ti.input.root, nil)
		}
		if ti.output != nil {
			name := ti.pascal + "Result"
			if title := kwString(ti.output.root, "title"); isIdent(title) {
				name = title
			}
			root := ti.output.root
			key := lazyKey(func() string { return "result:" + encodeJSON(root) })
			if _, taken := ix.types[name]; taken && !ix.sameKey(name, key) {
				name = ti.pascal + "Result"
			}
			ti.output.rootName = ix.claim(name, ti.output, root, key)
		}
	}
	docs := ix.docs()
	// Then definitions; identical $defs sections in several tools share
	// their names.
	for _, d := range docs {
		for _, section := range []string{"$defs", "definitions"} {
			defs := kwObject(d.root, section)
			if defs == nil {
				continue
			}
			section := section
			all := lazyKey(func() string { return section + ":" + encodeJSON(defs) })
			for i, k := range defs.keys {
				key := func() string { return all() + "/" + k }
				name := pascal(k)
				if _, taken := ix.types[name]; taken && !ix.sameKey(name, key) {
					name = d.rootName + pascal(k)
				}
				ix.claim(name, d, defs.vals[i], key)
			}
		}
	}
	// Then nested objects, by path.
	for _, d := range docs {
		ix.walk(d, d.root, d.rootName, true)
		for _, section := range []string{"$defs", "definitions"} {
			if defs := kwObject(d.root, section); defs != nil {
				for i := range defs.keys {
					if o, ok := defs.vals[i].(*object); ok {
						ix.walk(d, o, ix.names[o], true)
					}
				}
			}
		}
	}
	// Last, reference targets that no rule above named.
	for _, d := range docs {
		ix.nameRefTargets(d, d.root)
	}
	return ix
}

func (ix *nsIndex) docs() []*schemaDoc {
	var out []*schemaDoc
	for _, ti := range ix.tools {
		if ti.input != nil {
			out = append(out, ti.input)
		}
		if ti.output != nil {
			out = append(out, ti.output)
		}
	}
	return out
}

// parseSchema parses a schema's JSON, taking each key and string it holds
// from strs when strs has it (and adding it when not).
func parseSchema(raw []byte, strs map[string]any) (any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	v, err := parseJSONInterned(raw, strs)
	if err != nil {
		return nil, false
	}
	switch v.(type) {
	case bool, *object:
		return v, true
	}
	return nil, false
}

// lazyKey memoizes a sharing key. Keys are compared, never shown, and may
// be a schema's whole text: what is kept is their SHA-256.
func lazyKey(f func() string) func() string {
	return sync.OnceValue(func() string {
		sum := sha256.Sum256([]byte(f()))
		return string(sum[:])
	})
}

// sameKey reports whether name was claimed with a key equal to key.
func (ix *nsIndex) sameKey(name string, key func() string) bool {
	have := ix.canon[name]
	return have != nil && key != nil && have() == key()
}

// claim gives node a name, preferring want. A name already given to
// another node is reused when both carry the same key (the same schema
// text); otherwise a number is appended. A nil key never shares.
func (ix *nsIndex) claim(want string, d *schemaDoc, node any, key func() string) string {
	if o, ok := node.(*object); ok {
		if name, ok := ix.names[o]; ok {
			return name
		}
	}
	name := want
	for i := 2; ; i++ {
		if _, taken := ix.types[name]; !taken {
			break
		}
		if ix.sameKey(name, key) {
			if o, ok := node.(*object); ok {
				ix.names[o] = name
			}
			return name
		}
		name = want + strconv.Itoa(i)
	}
	ix.types[name] = &namedType{name: name, doc: d, node: node}
	ix.order = append(ix.order, name)
	if key != nil {
		ix.canon[name] = key
	}
	if o, ok := node.(*object); ok {
		ix.names[o] = name
	}
	return name
}

// walk names the object literals below n, following the same structure as
// the renderer. name is n's own name ("" when n has none).
func (ix *nsIndex) walk(d *schemaDoc, n any, name string, root bool) {
	o, ok := n.(*object)
	if !ok {
		return
	}
	if !root && isObjectLiteral(o) {
		// Identical nested schemas at the same path (shared definitions,
		// repeated result types) share the name.
		name = ix.claim(name, d, o, lazyKey(func() string { return "path:" + encodeJSON(o) }))
	}
	if props := kwObject(o, "properties"); props != nil {
		for i, k := range props.keys {
			ix.walk(d, props.vals[i], name+pascal(k), false)
		}
	}
	if ap, ok := o.get("additionalProperties"); ok {
		ix.walk(d, ap, name+"Value", false)
	}
	if pp := kwObject(o, "patternProperties"); pp != nil {
		for i := range pp.keys {
			ix.walk(d, pp.vals[i], name+"Value"+suffix(i, len(pp.keys)), false)
		}
	}
	if items, ok := o.get("items"); ok {
		if arr, ok := items.([]any); ok {
			for i, e := range arr {
				ix.walk(d, e, name+"Item"+strconv.Itoa(i+1), false)
			}
		} else {
			ix.walk(d, items, name+"Item", false)
		}
	}
	for i, e := range kwArray(o, "prefixItems") {
		ix.walk(d, e, name+"Item"+strconv.Itoa(i+1), false)
	}
	for _, k := range []string{"additionalItems"} {
		if v, ok := o.get(k); ok {
			ix.walk(d, v, name+"Item", false)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		for i, e := range kwArray(o, k) {
			ix.walk(d, e, name+"Option"+strconv.Itoa(i+1), false)
		}
	}
	for i, e := range kwArray(o, "allOf") {
		ix.walk(d, e, name+"Part"+strconv.Itoa(i+1), false)
	}
}

func suffix(i, n int) string {
	if n == 1 {
		return ""
	}
	return strconv.Itoa(i + 1)
}

func (ix *nsIndex) nameRefTargets(d *schemaDoc, n any) {
	switch c := n.(type) {
	case *object:
		if ref := kwString(c, "$ref"); ref != "" {
			if target, ok := d.resolve(ref); ok {
				if o, ok := target.(*object); ok && ix.names[o] == "" {
					ix.claim(d.rootName+pascal(ref), d, o, nil)
				}
			}
		}
		for _, v := range c.vals {
			ix.nameRefTargets(d, v)
		}
	case []any:
		for _, e := range c {
			ix.nameRefTargets(d, e)
		}
	}
}

// nameOf returns the type name of a node, "" when it has none.
func (ix *nsIndex) nameOf(n any) string {
	if o, ok := n.(*object); ok {
		return ix.names[o]
	}
	return ""
}
