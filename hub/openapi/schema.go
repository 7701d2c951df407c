package openapi

// OpenAPI schemas as JSON Schema.
//
// An operation's parameters, request body and response are written as
// self-contained JSON Schemas, the shape MCP tools have: each
// "#/components/schemas/NAME" reference becomes "#/$defs/NAME", and $defs
// holds every component the schema reaches, so describe prints them as
// named interfaces (tsgen). The document's nodes are read in order, so
// properties keep the order the document gives them. OpenAPI 3.0's
// departures from JSON Schema are translated: nullable: true adds "null" to
// the type, a boolean exclusiveMinimum or exclusiveMaximum moves the bound,
// and extensions (x-*), discriminator, xml and externalDocs are dropped.
//
// A schema is written for one side of the call. A property marked readOnly
// is the server's to send: a request's schema (the arguments) leaves it
// out, and out of its object's required; one marked writeOnly is never
// returned, and a result's schema leaves it out. A component whose two
// forms differ (it, or a component it reaches, has such a property) is
// two definitions: the result's under its own name, the request's under
// the name with Input after it (Version, VersionInput); every other
// component is one, the same on both sides.

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"capabilities.sh/capabilities/internal/jsonstr"
	"github.com/pb33f/go-yaml"
)

const componentSchemaPrefix = "#/components/schemas/"

// side is the way the instances of the schemas being written travel.
type side uint8

const (
	// sideResult: the server sends them; writeOnly properties are left out.
	sideResult side = iota
	// sideRequest: the client sends them; readOnly properties are left out.
	sideRequest
)

// schemaWriter turns schema nodes of one document into JSON. It collects
// the components the schemas it wrote refer to.
type schemaWriter struct {
	components map[string]*yaml.Node // by name, as in the document
	v30        bool                  // OpenAPI 3.0: nullable and boolean bounds
	side       side                  // of the schemas written since the last reset
	used       []usedDef             // definitions referred to, in first-use order
	seen       map[string]bool       // by definition name
	// split says of each component a request has reached whether its
	// request form differs from its result form (splitOf); inputNames
	// holds the definition names of those request forms, and folded every
	// component's name folded (foldName), which no such name may equal.
	split      map[string]bool
	inputNames map[string]string
	folded     map[string]bool
	// unwritten counts the properties left out, each as its name and
	// leftOutBytes, and the properties read to find them: not written,
	// they still count toward maxOpenAPIBuilt (takeUnwritten), so a
	// document whose shared schemas are all left out costs no more than
	// one that writes them.
	unwritten int64
}

// leftOutBytes is what a property left out counts beside its name, about
// what writing it as {} would take.
const leftOutBytes = 8

// skip counts the property name left out or read to find one.
func (w *schemaWriter) skip(name string) {
	w.unwritten += int64(len(name)) + leftOutBytes
}

// takeUnwritten is what skip counted since it was last called.
func (w *schemaWriter) takeUnwritten() int64 {
	n := w.unwritten
	w.unwritten = 0
	return n
}

// usedDef is a definition of $defs: the component written under name.
type usedDef struct {
	name, component string
}

func newSchemaWriter(components map[string]*yaml.Node, v30 bool) *schemaWriter {
	return &schemaWriter{components: components, v30: v30, seen: map[string]bool{}}
}

// reset forgets the components collected so far, for the next schema,
// which is written for side s.
func (w *schemaWriter) reset(s side) {
	w.used = w.used[:0]
	clear(w.seen)
	w.side = s
}

// schema writes one schema node as JSON. A nil node is the empty schema.
func (w *schemaWriter) schema(n *yaml.Node) json.RawMessage {
	var b bytes.Buffer
	w.write(&b, n, true)
	return b.Bytes()
}

// defs writes the $defs object of every component collected so far,
// including those the components themselves reach; nil when none.
func (w *schemaWriter) defs() json.RawMessage {
	d, _ := w.defsWithin(math.MaxInt)
	return d
}

// defsWithin is defs for a result whose schema, with its $defs, may take
// budget bytes at most: the components in the order the schema reaches
// them (the nearest first), each written whole while it fits. One that
// does not is declared by a description alone (stubSchema), and the
// components only it reached are not collected; partial says whether any
// was. What was written and taken back counts toward maxOpenAPIBuilt
// (takeUnwritten).
func (w *schemaWriter) defsWithin(budget int) (defs json.RawMessage, partial bool) {
	if len(w.used) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(w.used); i++ { // w.used grows as components refer to others
		d := w.used[i]
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, d.name)
		b.WriteByte(':')
		mark, reached := b.Len(), len(w.used)
		w.write(&b, w.components[d.component], true)
		if b.Len()+1 <= budget {
			continue
		}
		w.unwritten += int64(b.Len() - mark)
		b.Truncate(mark)
		for _, u := range w.used[reached:] {
			delete(w.seen, u.name)
		}
		w.used = w.used[:reached]
		b.WriteString(stubSchema)
		partial = true
	}
	b.WriteByte('}')
	return b.Bytes(), partial
}

// stubSchema declares a component a result's budget left no room for:
// any value, said so.
const stubSchema = `{"description":"Not declared (too large)."}`

// pointerUnescaper undoes a JSON pointer token's escapes (RFC 6901).
var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// unescapePointer is a JSON pointer token without its escapes; most have
// none, and come back as they are.
func unescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return pointerUnescaper.Replace(tok)
}

// ref rewrites a reference to a component schema, collecting it. Any other
// reference cannot be followed and becomes "": the caller writes {}.
func (w *schemaWriter) ref(ref string) string {
	if !strings.HasPrefix(ref, componentSchemaPrefix) {
		return ""
	}
	esc := ref[len(componentSchemaPrefix):]
	if strings.Contains(esc, "/") {
		return "" // a pointer into a component, not one: not followed
	}
	name := unescapePointer(esc)
	if _, ok := w.components[name]; !ok {
		return ""
	}
	def := name
	if w.side == sideRequest && w.splitOf(name) {
		def = w.inputName(name)
		esc += def[len(name):] // letters, digits and the name's own separator
	}
	if !w.seen[def] {
		w.seen[def] = true
		w.used = append(w.used, usedDef{def, name})
	}
	return "#/$defs/" + esc
}

// leftOut reports whether the property schema n is left out on the
// writer's side: marked readOnly in a request, writeOnly in a result. Only
// the property's own mark counts, not one its component has as a whole:
// Jira marks some request types writeOnly throughout (ScreenTypes) and
// returns them still as ScreenScheme's screens.
func (w *schemaWriter) leftOut(n *yaml.Node) bool {
	key := "writeOnly"
	if w.side == sideRequest {
		key = "readOnly"
	}
	return marked(n, key)
}

// marked reports whether schema n has key (readOnly, writeOnly) true.
func marked(n *yaml.Node, key string) bool {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			return v.Kind == yaml.ScalarNode && v.Tag != "!!str" && strings.EqualFold(v.Value, "true")
		}
	}
	return false
}

// propertiesLeftOut appends to out the names of the properties of schema
// n left out on the writer's side, and those of its allOf members (each
// a component followed, or inline), as many schemas as budget says at
// most: a member that only lists required names (ShipEngine's shipment,
// all of partial_shipment and its ids required) must not require one of
// them.
func (w *schemaWriter) propertiesLeftOut(out []string, n *yaml.Node, budget *int) []string {
	n = w.resolve(n)
	if n == nil || *budget <= 0 {
		return out
	}
	*budget--
	if p := mappingGet(n, "properties"); p != nil && p.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(p.Content); i += 2 {
			w.skip(p.Content[i].Value)
			if w.leftOut(p.Content[i+1]) {
				out = append(out, p.Content[i].Value)
			}
		}
	}
	if all := mappingGet(n, "allOf"); all != nil && all.Kind == yaml.SequenceNode {
		for _, m := range all.Content {
			out = w.propertiesLeftOut(out, m, budget)
		}
	}
	return out
}

// splitOf reports whether the request form of component name differs
// from its result form: it has a property marked readOnly or writeOnly at
// any depth, or refers to a component that has. A component is read when
// a request first reaches it, once, and only the components that one
// reaches are (the components of a cycle are found together, as Tarjan's
// strongly connected components): no more than writing them once reads,
// and GitHub's requests reach few of its components.
func (w *schemaWriter) splitOf(name string) bool {
	if s, ok := w.split[name]; ok {
		return s
	}
	if w.split == nil {
		w.split = map[string]bool{}
	}
	sw := &splitWalk{w: w, index: map[string]int{}, low: map[string]int{}, marked: map[string]bool{}}
	sw.visit(name)
	return w.split[name]
}

// splitWalk is one walk of splitOf: Tarjan's algorithm over the
// references between components, each component's split found when its
// strongly connected component is complete.
type splitWalk struct {
	w          *schemaWriter
	index, low map[string]int  // visit order, and the lowest reachable on the stack
	marked     map[string]bool // a mark of its own, or a reference to a split component outside its cycle
	stack      []string
}

func (sw *splitWalk) visit(name string) {
	n := len(sw.index)
	sw.index[name], sw.low[name] = n, n
	sw.stack = append(sw.stack, name)
	own, refs := sw.w.readComponent(name)
	sw.marked[name] = own
	for _, to := range refs {
		if s, done := sw.w.split[to]; done {
			sw.marked[name] = sw.marked[name] || s
			continue
		}
		if _, seen := sw.index[to]; !seen {
			sw.visit(to)
			if s, done := sw.w.split[to]; done {
				sw.marked[name] = sw.marked[name] || s
			} else {
				sw.low[name] = min(sw.low[name], sw.low[to])
			}
			continue
		}
		sw.low[name] = min(sw.low[name], sw.index[to]) // on the stack: the same cycle
	}
	if sw.low[name] != sw.index[name] {
		return
	}
	i := len(sw.stack) - 1
	for sw.stack[i] != name {
		i--
	}
	split := false
	for _, m := range sw.stack[i:] {
		split = split || sw.marked[m]
	}
	for _, m := range sw.stack[i:] {
		sw.w.split[m] = split
	}
	sw.stack = sw.stack[:i]
}

// readComponent reads component name: whether a property in it is marked
// readOnly or writeOnly, and the components it refers to.
func (w *schemaWriter) readComponent(name string) (marks bool, refs []string) {
	walkMappings(w.components[name], map[*yaml.Node]bool{}, func(m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			switch k, v := m.Content[i].Value, m.Content[i+1]; k {
			case "properties":
				if v.Kind != yaml.MappingNode || marks {
					continue
				}
				for j := 1; j < len(v.Content); j += 2 {
					if marked(v.Content[j], "readOnly") || marked(v.Content[j], "writeOnly") {
						marks = true
						break
					}
				}
			case "$ref":
				esc, ok := strings.CutPrefix(v.Value, componentSchemaPrefix)
				if !ok || strings.Contains(esc, "/") {
					continue
				}
				to := unescapePointer(esc)
				if _, ok := w.components[to]; ok && to != name {
					refs = append(refs, to)
				}
			}
		}
	})
	return marks, refs
}

// walkMappings calls f with each mapping node of n, n included. An
// alias's target is walked once (seen), so the walk reads no node twice.
func walkMappings(n *yaml.Node, seen map[*yaml.Node]bool, f func(*yaml.Node)) {
	for n != nil && n.Kind == yaml.AliasNode {
		if seen[n.Alias] {
			return
		}
		seen[n.Alias] = true
		n = n.Alias
	}
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		f(n)
	}
	for _, c := range n.Content {
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode || c.Kind == yaml.AliasNode || c.Kind == yaml.DocumentNode {
			walkMappings(c, seen, f)
		}
	}
}

// inputName is the definition name of the request form of the split
// component name: the name with Input after it, written as the name's
// words are ("repository-advisory-input", "VersionInput"); a number
// follows when another component has that name, however written.
func (w *schemaWriter) inputName(name string) string {
	if def, ok := w.inputNames[name]; ok {
		return def
	}
	if w.inputNames == nil {
		w.inputNames, w.folded = map[string]string{}, make(map[string]bool, len(w.components))
		for c := range w.components {
			w.folded[foldName(c)] = true
		}
	}
	suffix := "Input"
	if strings.ToLower(name) == name {
		if i := strings.LastIndexAny(name, "-_."); i >= 0 {
			suffix = name[i:i+1] + "input"
		}
	}
	def := name + suffix
	for i := 2; w.folded[foldName(def)]; i++ {
		def = name + suffix + strconv.Itoa(i)
	}
	w.folded[foldName(def)] = true
	w.inputNames[name] = def
	return def
}

// foldName is a name as a type name compares: its letters and digits,
// lower-cased ("Version-Input" and "versionInput" are one).
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 0x7f:
			return r
		}
		return -1
	}, s)
}

// schemaDropped are keywords of OpenAPI schemas that mean nothing to JSON
// Schema or to the declarations.
var schemaDropped = map[string]bool{"discriminator": true, "xml": true, "externalDocs": true}

// write writes node n; isSchema says n is a schema (not a list of them or
// a value such as an example or an enum member).
func (w *schemaWriter) write(b *bytes.Buffer, n *yaml.Node, isSchema bool) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.DocumentNode && len(n.Content) == 0 {
		b.WriteString("{}")
		return
	}
	if n.Kind == yaml.DocumentNode {
		w.write(b, n.Content[0], isSchema)
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		writeScalar(b, n)
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			w.write(b, c, isSchema)
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		if !isSchema {
			w.writeValue(b, n)
			return
		}
		w.writeSchemaObject(b, n, nil)
	default:
		b.WriteString("null")
	}
}

// writeSchemaObject writes a schema object, rewriting its reference and
// translating OpenAPI 3.0's keywords. Its properties left out on the
// writer's side are left out of its required too, and so are gone: those
// of the object whose allOf member it is.
func (w *schemaWriter) writeSchemaObject(b *bytes.Buffer, n *yaml.Node, gone []string) {
	get := func(key string) *yaml.Node {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
		return nil
	}
	if r := get("$ref"); r != nil && r.Kind == yaml.ScalarNode {
		ref := w.ref(r.Value)
		if ref == "" {
			b.WriteString("{}")
			return
		}
		b.WriteString(`{"$ref":`)
		writeJSONString(b, ref)
		// 3.1 allows siblings of $ref; descriptions are worth keeping.
		for _, k := range []string{"description", "title"} {
			if v := get(k); v != nil && v.Kind == yaml.ScalarNode {
				b.WriteByte(',')
				writeJSONString(b, k)
				b.WriteByte(':')
				writeJSONString(b, v.Value)
			}
		}
		b.WriteByte('}')
		return
	}
	nullable := false
	if v := get("nullable"); v != nil && v.Value == "true" {
		nullable = true
	}
	// The names of the properties left out here, of this object and its
	// allOf members, and gone: found when required or allOf needs them.
	var out []string
	found := false
	goneHere := func() []string {
		if !found {
			found = true
			budget := maxAllOfWalk
			out = w.propertiesLeftOut(slices.Clip(gone), n, &budget)
		}
		return out
	}
	b.WriteByte('{')
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(b, k)
		b.WriteByte(':')
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if strings.HasPrefix(k, "x-") || schemaDropped[k] {
			continue
		}
		switch k {
		case "nullable":
			continue
		case "type":
			key(k)
			if nullable && v.Kind == yaml.ScalarNode && v.Value != "null" {
				b.WriteByte('[')
				writeJSONString(b, v.Value)
				b.WriteString(`,"null"]`)
			} else {
				w.write(b, v, false)
			}
			continue
		case "exclusiveMinimum", "exclusiveMaximum":
			if v.Kind == yaml.ScalarNode && (v.Value == "true" || v.Value == "false") {
				// 3.0: a flag on minimum or maximum.
				bound := get(strings.ToLower(k[len("exclusive"):len("exclusive")+1]) + k[len("exclusive")+1:])
				if v.Value == "true" && bound != nil {
					key(k)
					writeScalar(b, bound)
				}
				continue
			}
		case "minimum", "maximum":
			if ex := get("exclusive" + strings.ToUpper(k[:1]) + k[1:]); ex != nil && ex.Value == "true" {
				continue // written as the exclusive bound
			}
		case "required":
			if v.Kind == yaml.SequenceNode && len(goneHere()) > 0 {
				w.writeRequired(b, v, goneHere(), key)
				continue
			}
		case "allOf":
			if v.Kind == yaml.SequenceNode && len(goneHere()) > 0 {
				key(k)
				b.WriteByte('[')
				for i, m := range v.Content {
					if i > 0 {
						b.WriteByte(',')
					}
					if m.Kind == yaml.MappingNode {
						w.writeSchemaObject(b, m, goneHere())
					} else {
						w.write(b, m, true)
					}
				}
				b.WriteByte(']')
				continue
			}
		}
		key(k)
		switch k {
		case "properties":
			w.writeSchemaMap(b, v, true)
		case "patternProperties", "$defs", "definitions", "dependentSchemas":
			w.writeSchemaMap(b, v, false)
		case "items", "additionalProperties", "not", "if", "then", "else", "contains",
			"propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems",
			"allOf", "anyOf", "oneOf", "prefixItems":
			w.write(b, v, true)
		default:
			w.write(b, v, false)
		}
	}
	b.WriteByte('}')
}

// maxAllOfWalk bounds the schemas propertiesLeftOut reads for one object:
// its allOf members, theirs, and so on.
const maxAllOfWalk = 64

// writeRequired writes the list required through key, less the names in
// gone; nothing at all when no name is left.
func (w *schemaWriter) writeRequired(b *bytes.Buffer, required *yaml.Node, gone []string, key func(string)) {
	isGone := func(name string) bool { return slices.Contains(gone, name) }
	if len(gone) > 8 && len(required.Content) > 8 {
		set := make(map[string]bool, len(gone))
		for _, g := range gone {
			set[g] = true
		}
		isGone = func(name string) bool { return set[name] }
	}
	n := 0
	for _, c := range required.Content {
		if c.Kind != yaml.ScalarNode || isGone(c.Value) {
			continue
		}
		if n == 0 {
			key("required")
			b.WriteByte('[')
		} else {
			b.WriteByte(',')
		}
		writeJSONString(b, c.Value)
		n++
	}
	if n > 0 {
		b.WriteByte(']')
	}
}

// writeSchemaMap writes an object whose values are schemas; a properties
// object (props) less the properties left out on the writer's side.
func (w *schemaWriter) writeSchemaMap(b *bytes.Buffer, n *yaml.Node, props bool) {
	if n.Kind != yaml.MappingNode {
		w.write(b, n, false)
		return
	}
	b.WriteByte('{')
	first := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if props && w.leftOut(n.Content[i+1]) {
			w.skip(n.Content[i].Value)
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(b, n.Content[i].Value)
		b.WriteByte(':')
		w.write(b, n.Content[i+1], true)
	}
	b.WriteByte('}')
}

// writeValue writes a mapping that is a value (an example, a default).
func (w *schemaWriter) writeValue(b *bytes.Buffer, n *yaml.Node) {
	b.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, n.Content[i].Value)
		b.WriteByte(':')
		w.write(b, n.Content[i+1], false)
	}
	b.WriteByte('}')
}

func writeScalar(b *bytes.Buffer, n *yaml.Node) {
	switch n.Tag {
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		if v, err := strconv.ParseBool(n.Value); err == nil {
			b.WriteString(strconv.FormatBool(v))
			return
		}
		writeJSONString(b, n.Value)
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) {
			b.WriteString(n.Value)
			return
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			return
		}
		writeJSONString(b, n.Value)
	default:
		writeJSONString(b, n.Value)
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	b.Write(jsonstr.Append(b.AvailableBuffer(), s))
}

// mappingGet returns the value of key in mapping node n, or nil.
func mappingGet(n *yaml.Node, key string) *yaml.Node {
	for n != nil && (n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
