package search

import (
	"slices"
	"testing"
)

// TestAddInputSchema: top-level names in order, each followed by its own
// properties' names; descriptions of the top level only; anything that is
// not an object of properties adds nothing.
func TestAddInputSchema(t *testing.T) {
	var d Doc
	d.AddInputSchema([]byte(`{"type":"object","properties":{
		"repo":{"type":"string","description":"owner/name"},
		"filter":{"type":"object","properties":{"label":{"description":"not indexed"}}},
		"after":{"type":"string"}}}`))
	if want := []string{"after", "filter", "label", "repo"}; !slices.Equal(d.Params, want) {
		t.Errorf("Params = %q, want %q", d.Params, want)
	}
	if want := []string{"owner/name"}; !slices.Equal(d.ParamDocs, want) {
		t.Errorf("ParamDocs = %q, want %q", d.ParamDocs, want)
	}
	for _, schema := range []string{``, `null`, `true`, `{"type":"object"}`, `[1]`} {
		var e Doc
		e.AddInputSchema([]byte(schema))
		if len(e.Params) != 0 || len(e.ParamDocs) != 0 {
			t.Errorf("%q added %q %q", schema, e.Params, e.ParamDocs)
		}
	}
}
