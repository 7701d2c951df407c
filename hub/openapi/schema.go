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

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"capabilities.sh/capabilities/internal/jsonstr"
	"github.com/pb33f/go-yaml"
)

const componentSchemaPrefix = "#/components/schemas/"

// schemaWriter turns schema nodes of one document into JSON. It collects
// the components the schemas it wrote refer to.
type schemaWriter struct {
	components map[string]*yaml.Node // by name, as in the document
	v30        bool                  // OpenAPI 3.0: nullable and boolean bounds
	used       []string              // components referred to, in first-use order
	seen       map[string]bool
}

func newSchemaWriter(components map[string]*yaml.Node, v30 bool) *schemaWriter {
	return &schemaWriter{components: components, v30: v30, seen: map[string]bool{}}
}

// reset forgets the components collected so far, for the next schema.
func (w *schemaWriter) reset() {
	w.used = w.used[:0]
	clear(w.seen)
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
	if len(w.used) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(w.used); i++ { // w.used grows as components refer to others
		name := w.used[i]
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, name)
		b.WriteByte(':')
		w.write(&b, w.components[name], true)
	}
	b.WriteByte('}')
	return b.Bytes()
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
	name := strings.NewReplacer("~1", "/", "~0", "~").Replace(esc)
	if _, ok := w.components[name]; !ok {
		return ""
	}
	if !w.seen[name] {
		w.seen[name] = true
		w.used = append(w.used, name)
	}
	return "#/$defs/" + esc
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
		w.writeSchemaObject(b, n)
	default:
		b.WriteString("null")
	}
}

// writeSchemaObject writes a schema object, rewriting its reference and
// translating OpenAPI 3.0's keywords.
func (w *schemaWriter) writeSchemaObject(b *bytes.Buffer, n *yaml.Node) {
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
		}
		key(k)
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			w.writeSchemaMap(b, v)
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

// writeSchemaMap writes an object whose values are schemas.
func (w *schemaWriter) writeSchemaMap(b *bytes.Buffer, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		w.write(b, n, false)
		return
	}
	b.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
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
