package search

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// maxEnum is the longest enum whose values a property adds to Doc.Values:
// a longer one lists data (time zones, countries), not the states, ways
// or verdicts a request names ("open", "squash", "APPROVE").
const maxEnum = 32

// maxValueLen is the longest enum value indexed, in bytes.
const maxValueLen = 40

// AddInputSchema indexes a tool's input schema in d: each top-level
// property's name (in name order), followed by the names of its own
// properties one level down, in Params, each top-level description in
// ParamDocs, and the string values of each top-level enum (or of its
// items' enum, or of the named schema of its own $defs it refers to) of
// at most maxEnum values in Values, but for a parameter that only orders
// results (sort, direction). A property without an enum whose description
// lists its values in backquotes adds those (describedValues). A schema
// that is not a JSON object with properties adds nothing; a property's
// enum or items of another shape add no values.
func (d *Doc) AddInputSchema(schema json.RawMessage) { d.AddSchemas(schema, nil) }

// AddSchemas is AddInputSchema, and then a top-level input property that
// adds no values of its own takes those of the result's property of the
// same name (resultEnums), when out, the result's schema, has one: a
// search's filter named as a field of what it returns takes that field's
// values (Star Trek's astronomicalObjectType: PLANET, MOON, STAR_SYSTEM,
// which a request names: "find the moons").
func (d *Doc) AddSchemas(schema, out json.RawMessage) {
	var s struct {
		Properties map[string]struct {
			Description string          `json:"description"`
			Properties  json.RawMessage `json:"properties"`
			Enum        json.RawMessage `json:"enum"`
			Items       json.RawMessage `json:"items"`
			Ref         string          `json:"$ref"`
		} `json:"properties"`
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	var bare []string // the properties without values of their own
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Properties[k]
		d.Params = append(d.Params, k)
		if p.Description != "" {
			d.ParamDocs = append(d.ParamDocs, p.Description)
		}
		var nested map[string]json.RawMessage
		if json.Unmarshal(p.Properties, &nested) == nil {
			for nk := range nested {
				d.Params = append(d.Params, nk)
			}
		}
		enum, items := p.Enum, p.Items
		if name, ok := strings.CutPrefix(p.Ref, "#/$defs/"); ok && len(enum) == 0 {
			// A named schema of the tool's own $defs.
			var def struct {
				Enum  json.RawMessage `json:"enum"`
				Items json.RawMessage `json:"items"`
			}
			if json.Unmarshal(s.Defs[name], &def) == nil {
				enum, items = def.Enum, def.Items
			}
		}
		if len(enum) == 0 && len(items) > 0 {
			var it struct {
				Enum json.RawMessage `json:"enum"`
			}
			if json.Unmarshal(items, &it) == nil {
				enum = it.Enum
			}
		}
		var vals []any
		if len(enum) > 0 && json.Unmarshal(enum, &vals) == nil {
			d.Values = appendValues(d.Values, k, vals)
		} else if len(enum) == 0 {
			if vals = describedValues(p.Description, keys); vals == nil && len(out) > 0 && !ordering(k) {
				bare = append(bare, k)
			}
			d.Values = appendValues(d.Values, k, vals)
		}
	}
	if len(bare) > 0 {
		found := resultEnums(out, bare)
		for _, k := range bare {
			d.Values = appendValues(d.Values, k, found[k])
		}
	}
}

// maxResultMatches bounds how many properties of one name resultEnums
// reads, and resultPasses how many times over a result's bytes it reads
// them, whatever the schemas hold.
const (
	maxResultMatches = 8
	resultPasses     = 4
)

// maxKeyLen is the longest key resultEnums reads.
const maxKeyLen = 128

// resultEnums returns, for each of names, the enum of a property of that
// name in a result's schema out, at any depth, written in place, as its
// items' or as a named schema of out's $defs: the first of at most
// maxResultMatches with one. It passes once over out's bytes for the keys
// and reads only the properties whose key is one of names, and no more of
// them than resultPasses times out's length in all.
func resultEnums(out json.RawMessage, names []string) map[string][]any {
	want := make(map[string]int, len(names)) // name -> properties read
	for _, n := range names {
		want[n] = 0
	}
	found := map[string][]any{}
	budget := resultPasses * len(out)
	var defs map[string]json.RawMessage
	for i := 0; budget > 0; {
		// A key: a string right before a colon.
		c := bytes.Index(out[i:], []byte(`":`))
		if c < 0 {
			break
		}
		end := i + c // the key's closing quote
		i = end + 2
		start := bytes.LastIndexByte(out[max(0, end-maxKeyLen):end], '"')
		if start < 0 {
			continue
		}
		kb := out[max(0, end-maxKeyLen)+start+1 : end]
		n, ok := want[string(kb)] // no string made for the keys not asked for
		if !ok || n >= maxResultMatches || found[string(kb)] != nil {
			continue
		}
		key := string(kb)
		want[key] = n + 1
		var p struct {
			Enum  []any  `json:"enum"`
			Ref   string `json:"$ref"`
			Items *struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		}
		dec := json.NewDecoder(bytes.NewReader(out[i:]))
		err := dec.Decode(&p)
		if budget -= int(dec.InputOffset()); err != nil {
			continue
		}
		if def, ok := strings.CutPrefix(p.Ref, "#/$defs/"); ok && len(p.Enum) == 0 {
			if defs == nil {
				budget -= len(out)
				var root struct {
					Defs map[string]json.RawMessage `json:"$defs"`
				}
				json.Unmarshal(out, &root)
				defs = root.Defs
				if defs == nil {
					defs = map[string]json.RawMessage{}
				}
			}
			json.Unmarshal(defs[def], &p)
		}
		switch {
		case len(p.Enum) > 0:
			found[key] = p.Enum
		case p.Items != nil && len(p.Items.Enum) > 0:
			found[key] = p.Items.Enum
		}
		if len(found) == len(want) {
			break
		}
	}
	return found
}

// ordering reports whether a parameter's name says only how results are
// ordered: sort, order, direction, sort_by, orderBy, sortDirection.
func ordering(name string) bool {
	only := true
	forEachToken(name, nil, func(tok []byte) {
		switch string(tok) {
		case "sort", "order", "direction", "by", "dir":
		default:
			only = false
		}
	})
	return only && name != ""
}

// appendValues appends to dst the string values, of at most maxValueLen
// bytes, of the enum vals of a parameter named name: none when it has more
// than maxEnum, or when the parameter only orders results (sort: created,
// updated, comments says how results are ordered, not what the tool does).
func appendValues(dst []string, name string, vals []any) []string {
	if len(vals) > maxEnum || ordering(name) {
		return dst
	}
	for _, v := range vals {
		if s, ok := v.(string); ok && s != "" && len(s) <= maxValueLen {
			dst = append(dst, s)
		}
	}
	return dst
}

// describedValues returns the values a parameter's description lists in
// backquotes ("We accept the following permissions to be set: `pull`,
// `triage`, `push`, `maintain`, `admin`"; Jira's expand: "`groups`
// Returns all groups, including nested groups, the user belongs to"),
// when it names two or more, each one word of letters, digits, "_" or "-"
// that is no boolean and no parameter of the tool (params: "Specify
// either `tool_guid` or `tool_name`"); nil otherwise.
func describedValues(desc string, params []string) []any {
	var vals []any
	for rest := desc; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		v := rest[i+1 : i+1+j]
		rest = rest[i+1+j+1:]
		if v == "" || len(v) > maxValueLen || !valueWord(v) || v == "true" || v == "false" || slices.Contains(params, v) {
			continue
		}
		if !slices.Contains(vals, any(v)) {
			vals = append(vals, v)
		}
	}
	if len(vals) < 2 {
		return nil
	}
	return vals
}

// valueWord reports whether v is one word of ASCII letters, digits, "_"
// or "-" that starts with a letter.
func valueWord(v string) bool {
	for i := range len(v) {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}
