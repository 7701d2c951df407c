package search

import (
	"encoding/json"
	"sort"
)

// AddInputSchema indexes a tool's input schema in d: each top-level
// property's name (in name order), followed by the names of its own
// properties one level down, in Params, and each top-level description in
// ParamDocs. A schema that is not a JSON object with properties adds
// nothing.
func (d *Doc) AddInputSchema(schema json.RawMessage) {
	var s struct {
		Properties map[string]struct {
			Description string          `json:"description"`
			Properties  json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
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
	}
}
