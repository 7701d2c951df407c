package tsgen

import (
	"bufio"
	"crypto/sha256"
	"strconv"
	"strings"
	"sync"
)

// nsIndex holds one namespace of the catalog with a name for every type a
// declaration can mention: each tool's input (<Tool>Input) and result,
// each $defs/definitions entry, each $ref target, and each nested object
// with properties, named by its path from the nearest named ancestor.
// Names depend only on the catalog, never on the budget or the targets, so
// a name printed by one describe call resolves in the next.
//
// Naming needs every schema of the namespace decoded at once, but an index
// keeps none of those trees: each document records its named objects by
// position (schemaDoc.named), and a call decodes again only the documents
// it renders (nsView). GitHub's 1,222 operations decode to some 20 MB of
// trees; their names take well under one.
type nsIndex struct {
	name   string
	tools  []*toolInfo
	byName map[string]*toolInfo

	types map[string]*namedType
	order []string // type names in assignment order
	// canon holds, per type name, the key that lets another node share
	// the name; computed only when a second node asks for the name, and
	// dropped once the index is built.
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
	// node is the node while the index is built, and afterwards when it
	// is not an object; an object is found again by its position in doc,
	// ord (-1 until the index is sealed, and for a node not an object).
	node any
	ord  int
}

// nodeName names the object at position ord of a document, counting its
// objects in document order from 0 (eachObject).
type nodeName struct {
	ord  int
	name string
}

// nsView is an index as one call sees it: the documents it decoded, and
// the names of their objects. A view is used by one goroutine.
type nsView struct {
	*nsIndex
	names map[*object]string   // schema node -> type name
	trees map[*schemaDoc]*tree // decoded documents
}

// tree is a decoded document and its named objects by position.
type tree struct {
	root  any
	byOrd map[int]*object
}

// view is a fresh view of a built index.
func (ix *nsIndex) view() *nsView {
	return &nsView{nsIndex: ix, names: map[*object]string{}, trees: map[*schemaDoc]*tree{}}
}

// root decodes d, unless this view already has, and names its objects.
func (v *nsView) root(d *schemaDoc) any {
	if t, ok := v.trees[d]; ok {
		return t.root
	}
	root, _ := parseSchema(d.raw, nil) // it parsed when the index was built
	t := &tree{root: root, byOrd: map[int]*object{}}
	named := d.named
	eachObject(root, func(ord int, o *object) {
		if len(named) > 0 && named[0].ord == ord {
			v.names[o] = named[0].name
			t.byOrd[ord] = o
			named = named[1:]
		}
	})
	v.trees[d] = t
	return root
}

// node is a named type's schema node, from its document.
func (v *nsView) node(nt *namedType) any {
	if nt.ord < 0 {
		return nt.node
	}
	v.root(nt.doc)
	return v.trees[nt.doc].byOrd[nt.ord]
}

// eachObject calls f with every object below n, n included, in document
// order, numbering them from 0.
func eachObject(n any, f func(ord int, o *object)) {
	ord := 0
	var walk func(n any)
	walk = func(n any) {
		switch c := n.(type) {
		case *object:
			f(ord, c)
			ord++
			for _, e := range c.vals {
				walk(e)
			}
		case []any:
			for _, e := range c {
				walk(e)
			}
		}
	}
	walk(n)
}

// seal records, for each document, its named objects by position, and
// returns the index without the trees: what a Catalog keeps. The index is
// copied anew, so that what it keeps does not sit scattered among the
// trees' memory, each piece holding on to a page the trees left.
func (v *nsView) seal() *nsIndex {
	old := v.nsIndex
	strs := map[string]string{}
	clone := func(s string) string {
		c, ok := strs[s]
		if !ok {
			c = strings.Clone(s)
			strs[s] = c
		}
		return c
	}
	docs := map[*schemaDoc]*schemaDoc{}
	seal := func(d *schemaDoc) *schemaDoc {
		if d == nil {
			return nil
		}
		c := &schemaDoc{raw: d.raw, rootName: clone(d.rootName)}
		eachObject(v.trees[d].root, func(ord int, o *object) {
			name, ok := v.names[o]
			if !ok {
				return
			}
			c.named = append(c.named, nodeName{ord, clone(name)})
			if nt := old.types[name]; nt.node == any(o) {
				nt.ord = ord
			}
		})
		c.named = exact(c.named)
		docs[d] = c
		return c
	}
	ix := &nsIndex{
		name:   old.name,
		tools:  make([]*toolInfo, len(old.tools)),
		byName: make(map[string]*toolInfo, len(old.tools)),
		types:  make(map[string]*namedType, len(old.types)),
		order:  make([]string, len(old.order)),
	}
	for i, ti := range old.tools {
		c := &toolInfo{tool: ti.tool, pascal: clone(ti.pascal), input: seal(ti.input), output: seal(ti.output)}
		ix.tools[i] = c
		ix.byName[c.tool.Name] = c
	}
	for i, name := range old.order {
		nt := old.types[name]
		c := &namedType{name: clone(name), doc: docs[nt.doc], ord: nt.ord}
		if _, ok := nt.node.(*object); !ok {
			c.node, c.ord = nt.node, -1
		}
		ix.types[c.name] = c
		ix.order[i] = c.name
	}
	return ix
}

// newIndex indexes namespace ns of catalog. It returns the view the index
// was built with, which holds every document decoded; seal keeps the index
// without them.
func newIndex(ns string, catalog []Tool) *nsView {
	ix := &nsIndex{
		name:   ns,
		byName: map[string]*toolInfo{},
		types:  map[string]*namedType{},
		canon:  map[string]func() string{},
	}
	v := ix.view()
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
			ti.input = &schemaDoc{raw: t.InputSchema}
			v.trees[ti.input] = &tree{root: root}
		}
		if root, ok := parseSchema(t.OutputSchema, strs); ok {
			ti.output = &schemaDoc{raw: t.OutputSchema}
			v.trees[ti.output] = &tree{root: root}
		}
		ix.tools = append(ix.tools, ti)
		ix.byName[t.Name] = ti
	}

	// Roots first, so that they keep their natural names.
	for _, ti := range ix.tools {
		if ti.input != nil {
			ti.input.rootName = v.claim(ti.pascal+"Input", ti.input, v.root(ti.input), nil)
		}
		if ti.output != nil {
			name := ti.pascal + "Result"
			root := v.root(ti.output)
			if title := kwString(root, "title"); isIdent(title) {
				name = title
			}
			key := lazyKey(func(w jsonWriter) { w.WriteString("result:"); writeJSON(w, root) })
			if _, taken := ix.types[name]; taken && !ix.sameKey(name, key) {
				name = ti.pascal + "Result"
			}
			ti.output.rootName = v.claim(name, ti.output, root, key)
		}
	}
	docs := ix.docs()
	// Then definitions; identical $defs sections in several tools share
	// their names.
	for _, d := range docs {
		for _, section := range []string{"$defs", "definitions"} {
			defs := kwObject(v.root(d), section)
			if defs == nil {
				continue
			}
			section := section
			all := lazyKey(func(w jsonWriter) { w.WriteString(section + ":"); writeJSON(w, defs) })
			for i, k := range defs.keys {
				key := func() string { return all() + "/" + k }
				name := pascal(k)
				if _, taken := ix.types[name]; taken && !ix.sameKey(name, key) {
					name = d.rootName + pascal(k)
				}
				v.claim(name, d, defs.vals[i], key)
			}
		}
	}
	// Then nested objects, by path.
	for _, d := range docs {
		v.walk(d, v.root(d), d.rootName, true)
		for _, section := range []string{"$defs", "definitions"} {
			if defs := kwObject(v.root(d), section); defs != nil {
				for i := range defs.keys {
					if o, ok := defs.vals[i].(*object); ok {
						v.walk(d, o, v.names[o], true)
					}
				}
			}
		}
	}
	// Last, reference targets that no rule above named.
	for _, d := range docs {
		v.nameRefTargets(d, v.root(d))
	}
	return v
}

// schemaBytes is the size of the namespace's schemas.
func (ix *nsIndex) schemaBytes() int {
	n := 0
	for _, d := range ix.docs() {
		n += len(d.raw)
	}
	return n
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
// be a schema's whole text: write writes the text straight into a SHA-256,
// which is what is kept.
func lazyKey(write func(w jsonWriter)) func() string {
	return sync.OnceValue(func() string {
		h := sha256.New()
		w := bufio.NewWriter(h)
		write(w)
		w.Flush() // a hash takes every write
		return string(h.Sum(nil))
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
func (v *nsView) claim(want string, d *schemaDoc, node any, key func() string) string {
	ix := v.nsIndex
	if o, ok := node.(*object); ok {
		if name, ok := v.names[o]; ok {
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
				v.names[o] = name
			}
			return name
		}
		name = want + strconv.Itoa(i)
	}
	ix.types[name] = &namedType{name: name, doc: d, node: node, ord: -1}
	ix.order = append(ix.order, name)
	if key != nil {
		ix.canon[name] = key
	}
	if o, ok := node.(*object); ok {
		v.names[o] = name
	}
	return name
}

// walk names the object literals below n, following the same structure as
// the renderer. name is n's own name ("" when n has none).
func (v *nsView) walk(d *schemaDoc, n any, name string, root bool) {
	o, ok := n.(*object)
	if !ok {
		return
	}
	if !root && isObjectLiteral(o) {
		// Identical nested schemas at the same path (shared definitions,
		// repeated result types) share the name.
		name = v.claim(name, d, o, lazyKey(func(w jsonWriter) { w.WriteString("path:"); writeJSON(w, o) }))
	}
	if props := kwObject(o, "properties"); props != nil {
		for i, k := range props.keys {
			v.walk(d, props.vals[i], name+pascal(k), false)
		}
	}
	if ap, ok := o.get("additionalProperties"); ok {
		v.walk(d, ap, name+"Value", false)
	}
	if pp := kwObject(o, "patternProperties"); pp != nil {
		for i := range pp.keys {
			v.walk(d, pp.vals[i], name+"Value"+suffix(i, len(pp.keys)), false)
		}
	}
	if items, ok := o.get("items"); ok {
		if arr, ok := items.([]any); ok {
			for i, e := range arr {
				v.walk(d, e, name+"Item"+strconv.Itoa(i+1), false)
			}
		} else {
			v.walk(d, items, name+"Item", false)
		}
	}
	for i, e := range kwArray(o, "prefixItems") {
		v.walk(d, e, name+"Item"+strconv.Itoa(i+1), false)
	}
	for _, k := range []string{"additionalItems"} {
		if e, ok := o.get(k); ok {
			v.walk(d, e, name+"Item", false)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		for i, e := range kwArray(o, k) {
			v.walk(d, e, name+"Option"+strconv.Itoa(i+1), false)
		}
	}
	for i, e := range kwArray(o, "allOf") {
		v.walk(d, e, name+"Part"+strconv.Itoa(i+1), false)
	}
}

func suffix(i, n int) string {
	if n == 1 {
		return ""
	}
	return strconv.Itoa(i + 1)
}

func (v *nsView) nameRefTargets(d *schemaDoc, n any) {
	switch c := n.(type) {
	case *object:
		if ref := kwString(c, "$ref"); ref != "" {
			if target, ok := v.resolve(d, ref); ok {
				if o, ok := target.(*object); ok && v.names[o] == "" {
					v.claim(d.rootName+pascal(ref), d, o, nil)
				}
			}
		}
		for _, e := range c.vals {
			v.nameRefTargets(d, e)
		}
	case []any:
		for _, e := range c {
			v.nameRefTargets(d, e)
		}
	}
}

// nameOf returns the type name of a node, "" when it has none.
func (v *nsView) nameOf(n any) string {
	if o, ok := n.(*object); ok {
		return v.names[o]
	}
	return ""
}
