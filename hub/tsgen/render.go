package tsgen

import (
	"encoding/json"
	"slices"
	"strings"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// unlimited is the depth that never cuts.
const unlimited = 1 << 30

// Operator precedence of a rendered type, to know when to parenthesize.
const (
	precUnion = iota + 1
	precIntersection
	precPrimary
)

// expr is a rendered TypeScript type.
type expr struct {
	s    string
	prec int
	// obj marks an object literal, which can be declared as an interface.
	obj bool
}

func prim(s string) expr { return expr{s: s, prec: precPrimary} }

var (
	tUnknown = prim("unknown")
	tNever   = prim("never")
)

// typeUse records a named type that rendered output mentions and how many
// object levels of it would still fit (see renderer.depth).
type typeUse struct {
	name      string
	remaining int
}

// renderer turns schema nodes into TypeScript types.
//
// Depth: an object literal directly in a method's parameter list or in a
// named declaration is at level 1, the objects in its properties at level
// 2, and so on. A literal deeper than depth is replaced by its name (and
// recorded in cuts); a named type mentioned at level l is worth showing
// with depth-l+1 levels of its own (recorded in uses).
type renderer struct {
	ix    *nsView
	depth int
	// oneLine renders without line breaks or comments, for search.
	oneLine bool
	// maxUnion, when positive, widens longer literal unions to their base
	// types (one-line abbreviation).
	maxUnion int
	// qualify prefixes type names ("github.") outside the namespace block.
	qualify string
	// root is the node being declared, which is never replaced by its name.
	root any

	uses []typeUse
	cuts []string
}

func (r *renderer) name(n string) string {
	if r.oneLine {
		return n
	}
	return r.qualify + n
}

// typ renders schema n (from document d). lvl is the level an object
// literal at this position would be at; ind is the indentation (in tabs)
// of the line the type starts on.
func (r *renderer) typ(d *schemaDoc, n any, lvl, ind int) expr {
	switch v := n.(type) {
	case bool:
		if v {
			return tUnknown
		}
		return tNever
	case *object:
	default:
		return tUnknown
	}
	o := n.(*object)

	if ref := kwString(o, "$ref"); ref != "" {
		parts := []expr{r.ref(d, ref, lvl, ind)}
		if rest := o.without("$ref", "$defs", "definitions", "$schema", "$id"); structural(rest) {
			parts = append(parts, r.typ(d, rest, lvl, ind))
		}
		return intersect(parts)
	}

	var parts []expr
	base, ok := r.base(d, o, lvl, ind)
	composite := has(o, "anyOf") || has(o, "oneOf") || has(o, "allOf")
	if ok && !(composite && (base.s == "{}" || base.s == "unknown")) {
		parts = append(parts, base)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		var members []expr
		for _, m := range kwArray(o, k) {
			if structural(m) {
				members = append(members, r.typ(d, m, lvl, ind))
			}
		}
		if len(members) > 0 {
			parts = append(parts, union(members))
		}
	}
	for _, m := range kwArray(o, "allOf") {
		if structural(m) {
			parts = append(parts, r.typ(d, m, lvl, ind))
		}
	}
	var t expr
	switch len(parts) {
	case 0:
		t = tUnknown
	case 1:
		t = parts[0]
	default:
		t = intersect(parts)
	}
	if kwBool(o, "nullable") && t.s != "unknown" {
		t = union([]expr{t, prim("null")})
	}
	return t
}

// base renders the schema's own shape: const, enum or type. ok is false
// when the schema has none.
func (r *renderer) base(d *schemaDoc, o *object, lvl, ind int) (expr, bool) {
	if c, ok := o.get("const"); ok {
		if lit := literal(c); lit != "" {
			return prim(lit), true
		}
		return tUnknown, true
	}
	if vals := kwArray(o, "enum"); vals != nil {
		var members []expr
		var bases []expr
		for _, v := range vals {
			lit := literal(v)
			if lit == "" {
				return tUnknown, true
			}
			members = append(members, prim(lit))
			bases = append(bases, prim(jsonType(v)))
		}
		if len(members) == 0 {
			return tNever, true
		}
		if r.maxUnion > 0 && len(members) > r.maxUnion {
			return union(bases), true
		}
		return union(members), true
	}
	ts := types(o)
	if len(ts) == 0 {
		switch {
		case has(o, "properties") || has(o, "additionalProperties") || has(o, "patternProperties") || has(o, "required"):
			ts = []string{"object"}
		case has(o, "items") || has(o, "prefixItems"):
			ts = []string{"array"}
		default:
			return tUnknown, false
		}
	}
	var members []expr
	for _, t := range ts {
		switch t {
		case "string", "boolean", "null":
			members = append(members, prim(t))
		case "number", "integer":
			members = append(members, prim("number"))
		case "object":
			members = append(members, r.object(d, o, lvl, ind))
		case "array":
			members = append(members, r.array(d, o, lvl, ind))
		default:
			members = append(members, tUnknown)
		}
	}
	return union(members), true
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "unknown"
}

func (r *renderer) ref(d *schemaDoc, ref string, lvl, ind int) expr {
	target, ok := r.ix.resolve(d, ref)
	if !ok {
		return tUnknown
	}
	if inlineable(d, target) {
		return r.typ(d, target, lvl, ind)
	}
	name := r.ix.nameOf(target)
	if name == "" {
		return tUnknown
	}
	if !r.oneLine {
		r.uses = append(r.uses, typeUse{name, r.depth - lvl + 1})
	}
	return prim(r.name(name))
}

// inlineable reports whether a reference target is small enough to print
// in place: no object literal and no reference anywhere inside it.
func inlineable(d *schemaDoc, n any) bool {
	switch c := n.(type) {
	case *object:
		if has(c, "$ref") || isObjectLiteral(c) {
			return false
		}
		for i, k := range c.keys {
			if k == "$defs" || k == "definitions" || k == "default" || k == "examples" || k == "const" || k == "enum" {
				continue
			}
			if !inlineable(d, c.vals[i]) {
				return false
			}
		}
	case []any:
		for _, e := range c {
			if !inlineable(d, e) {
				return false
			}
		}
	}
	return true
}

// field is one member of an object type.
type field struct {
	doc  []string
	text string // "name?: T" or "[key: string]: T"
}

func (r *renderer) object(d *schemaDoc, o *object, lvl, ind int) expr {
	if isObjectLiteral(o) && o != r.root && lvl > r.depth {
		if name := r.ix.nameOf(o); name != "" {
			if r.oneLine {
				return prim("{ ... }")
			}
			r.cuts = append(r.cuts, name)
			return prim(r.name(name))
		}
	}
	return r.formatObject(r.fields(d, o, lvl, ind), ind)
}

func (r *renderer) formatObject(fields []field, ind int) expr {
	if len(fields) == 0 {
		return expr{s: "{}", prec: precPrimary, obj: true}
	}
	var b strings.Builder
	if r.oneLine {
		b.WriteString("{ ")
		for i, f := range fields {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.text)
		}
		b.WriteString(" }")
		return expr{s: b.String(), prec: precPrimary, obj: true}
	}
	b.WriteString("{\n")
	for _, f := range fields {
		writeDoc(&b, f.doc, ind+1)
		b.WriteString(tabs(ind + 1))
		b.WriteString(f.text)
		b.WriteString(";\n")
	}
	b.WriteString(tabs(ind))
	b.WriteString("}")
	return expr{s: b.String(), prec: precPrimary, obj: true}
}

// fields lists an object's members: required properties first, then the
// optional ones, each group in schema order, then one index signature for
// additionalProperties and patternProperties.
func (r *renderer) fields(d *schemaDoc, o *object, lvl, ind int) []field {
	props := kwObject(o, "properties")
	required := requiredSet(o)
	var keys []string
	if props != nil {
		keys = props.keys
	}
	var out []field
	var propTypes []expr
	anyOptional := false
	add := func(k string, req bool) {
		var s any = true
		if props != nil {
			if v, ok := props.get(k); ok {
				s = v
			}
		}
		t := r.typ(d, s, lvl+1, ind+1)
		propTypes = append(propTypes, t)
		q := ""
		if !req {
			q = "?"
			anyOptional = true
		}
		f := field{text: propName(k) + q + ": " + t.s}
		if !r.oneLine {
			f.doc = r.propDoc(d, s, k)
		}
		out = append(out, f)
	}
	for _, k := range keys {
		if slices.Contains(required, k) {
			add(k, true)
		}
	}
	for _, k := range required {
		if !slices.Contains(keys, k) {
			add(k, true)
		}
	}
	for _, k := range keys {
		if !slices.Contains(required, k) {
			add(k, false)
		}
	}

	var index []expr
	var indexDoc []string
	if ap, ok := o.get("additionalProperties"); ok && ap != false {
		index = append(index, r.typ(d, ap, lvl+1, ind+1))
		indexDoc = append(indexDoc, r.propDoc(d, ap, "")...)
	}
	if pp := kwObject(o, "patternProperties"); pp != nil {
		for i, k := range pp.keys {
			index = append(index, r.typ(d, pp.vals[i], lvl+1, ind+1))
			indexDoc = append(indexDoc, "Keys matching "+k+".")
			indexDoc = append(indexDoc, r.propDoc(d, pp.vals[i], "")...)
		}
	}
	if len(index) > 0 {
		t := union(index)
		if t.s != "unknown" && len(propTypes) > 0 {
			// TypeScript requires every property to fit the index signature,
			// although JSON Schema applies additionalProperties only to the
			// other keys.
			all := append(append([]expr{}, index...), propTypes...)
			if anyOptional {
				all = append(all, prim("undefined"))
			}
			t = union(all)
		}
		f := field{text: "[key: string]: " + t.s}
		if !r.oneLine {
			f.doc = indexDoc
		}
		out = append(out, f)
	}
	return out
}

func (r *renderer) array(d *schemaDoc, o *object, lvl, ind int) expr {
	var prefix []any
	var rest any = true
	restSet := false
	if items, ok := o.get("items"); ok {
		if arr, ok := items.([]any); ok {
			prefix = arr
			if ai, ok := o.get("additionalItems"); ok {
				rest, restSet = ai, true
			}
		} else {
			rest, restSet = items, true
		}
	}
	if pi := kwArray(o, "prefixItems"); pi != nil {
		prefix = pi
	}
	if prefix == nil {
		if !restSet {
			return prim("unknown[]")
		}
		return arrayOf(r.typ(d, rest, lvl, ind))
	}
	minItems := 0
	if v, ok := kw(o, "minItems"); ok {
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				minItems = int(i)
			}
		}
	}
	if len(prefix) == 0 {
		minItems = 0
	}
	var elems []string
	for i, p := range prefix {
		t := r.typ(d, p, lvl, ind)
		s := t.s
		if i >= minItems {
			if t.prec < precPrimary {
				s = "(" + s + ")"
			}
			s += "?"
		}
		elems = append(elems, s)
	}
	closed := false
	if v, ok := kw(o, "maxItems"); ok {
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil && int(i) <= len(prefix) {
				closed = true
			}
		}
	}
	if rest != false && !closed {
		elems = append(elems, "..."+arrayOf(r.typ(d, rest, lvl, ind)).s)
	}
	return prim("[" + strings.Join(elems, ", ") + "]")
}

func arrayOf(t expr) expr {
	if t.prec < precPrimary {
		return prim("(" + t.s + ")[]")
	}
	return prim(t.s + "[]")
}

// union joins members, dropping duplicates and never, and collapsing to
// unknown when a member is unknown.
func union(members []expr) expr {
	var out []expr
	seen := map[string]bool{}
	for _, m := range members {
		if m.s == "unknown" {
			return tUnknown
		}
		if m.s == "never" || seen[m.s] {
			continue
		}
		seen[m.s] = true
		out = append(out, m)
	}
	switch len(out) {
	case 0:
		return tNever
	case 1:
		return out[0]
	}
	parts := make([]string, len(out))
	for i, m := range out {
		parts[i] = m.s
	}
	return expr{s: strings.Join(parts, " | "), prec: precUnion}
}

// intersect joins members with &, dropping unknown and duplicates.
func intersect(members []expr) expr {
	var out []expr
	seen := map[string]bool{}
	for _, m := range members {
		if m.s == "never" {
			return tNever
		}
		if m.s == "unknown" || seen[m.s] {
			continue
		}
		seen[m.s] = true
		out = append(out, m)
	}
	switch len(out) {
	case 0:
		return tUnknown
	case 1:
		return out[0]
	}
	parts := make([]string, len(out))
	for i, m := range out {
		if m.prec < precIntersection {
			parts[i] = "(" + m.s + ")"
		} else {
			parts[i] = m.s
		}
	}
	return expr{s: strings.Join(parts, " & "), prec: precIntersection}
}

func tabs(n int) string { return strings.Repeat("\t", n) }

// propDoc is the JSDoc of a property: its description, or the one of the
// small definition it references, then its annotations as tags.
func (r *renderer) propDoc(d *schemaDoc, s any, name string) []string {
	lines := docLines(s, name)
	if ref := kwString(s, "$ref"); ref != "" && kwString(s, "description") == "" && kwString(s, "title") == "" {
		if target, ok := r.ix.resolve(d, ref); ok && inlineable(d, target) {
			lines = append(docLines(target, name), lines...)
		}
	}
	return lines
}

// docTags lists the schema annotations shown as JSDoc tags, in order.
var docTags = []string{
	"default", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "examples", "example",
}

// docLines renders a schema's description and annotations. The title
// stands in for a missing description unless it only repeats name, as
// generated titles do ("title": "Owner" for owner).
func docLines(s any, name string) []string {
	text := kwString(s, "description")
	if title := kwString(s, "title"); text == "" && squash(title) != squash(name) {
		text = title
	}
	lines := textLines(text)
	if kwBool(s, "deprecated") {
		lines = append(lines, "@deprecated")
	}
	for _, tag := range docTags {
		v, ok := kw(s, tag)
		if !ok {
			continue
		}
		switch tag {
		case "format", "pattern":
			if str, ok := v.(string); ok {
				lines = append(lines, "@"+tag+" "+str)
			}
		case "uniqueItems":
			if v == true {
				lines = append(lines, "@uniqueItems")
			}
		case "examples":
			if arr, ok := v.([]any); ok {
				for _, e := range arr {
					lines = append(lines, "@example "+encodeJSON(e))
				}
			}
		case "example":
			lines = append(lines, "@example "+encodeJSON(v))
		default:
			lines = append(lines, "@"+tag+" "+encodeJSON(v))
		}
	}
	return lines
}

// textLines splits a description into trimmed lines without leading or
// trailing blank ones.
func textLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

func writeDoc(b *strings.Builder, lines []string, ind int) {
	if len(lines) == 0 {
		return
	}
	pad := tabs(ind)
	if len(lines) == 1 {
		b.WriteString(pad + "/** " + escapeDoc(lines[0]) + " */\n")
		return
	}
	b.WriteString(pad + "/**\n")
	for _, l := range lines {
		if l == "" {
			b.WriteString(pad + " *\n")
		} else {
			b.WriteString(pad + " * " + escapeDoc(l) + "\n")
		}
	}
	b.WriteString(pad + " */\n")
}

// squash lowercases s and keeps only its letters and digits.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeDoc is s as a comment's text: "*/" written "*\\/" so the comment
// ends only where it should, and without the characters the person does
// not see (hiddentext.ForModel): what the model reads of an upstream's
// words is what the window shows.
func escapeDoc(s string) string { return strings.ReplaceAll(hiddentext.ForModel(s), "*/", "*\\/") }
