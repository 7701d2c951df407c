package search

import (
	"fmt"
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
		if len(e.Params) != 0 || len(e.ParamDocs) != 0 || len(e.Values) != 0 {
			t.Errorf("%q added %q %q %q", schema, e.Params, e.ParamDocs, e.Values)
		}
	}
}

// TestAddInputSchemaValues: the string values of a top-level enum, or of
// its items' enum, or of the named schema it refers to, in property order; an enum too long to name states, of
// another shape, or nested deeper adds none, and does not keep the
// property's name out.
func TestAddInputSchemaValues(t *testing.T) {
	long := `[`
	for i := range maxEnum + 1 {
		if i > 0 {
			long += ","
		}
		long += `"zone` + string(rune('a'+i%26)) + `"`
	}
	long += `]`
	var d Doc
	d.AddInputSchema([]byte(`{"type":"object","properties":{
		"state":{"type":"string","enum":["open","closed","all"]},
		"sort":{"type":"string","enum":["created","updated","comments"]},
		"order_by":{"enum":["name"]},
		"events":{"type":"array","items":{"type":"string","enum":["push","pull_request"]}},
		"count":{"type":"integer","enum":[1,2,"ten"]},
		"zone":{"type":"string","enum":` + long + `},
		"odd":{"enum":"open"},
		"tuple":{"items":[{"enum":["x"]}]},
		"deep":{"type":"object","properties":{"mode":{"enum":["fast"]}}},
		"method":{"$ref":"#/$defs/MergeMethod"}},
		"$defs":{"MergeMethod":{"type":"string","enum":["merge","squash","rebase"]}}}`))
	if want := []string{"ten", "push", "pull_request", "merge", "squash", "rebase", "open", "closed", "all"}; !slices.Equal(d.Values, want) {
		t.Errorf("Values = %q, want %q", d.Values, want)
	}
	if want := []string{"count", "deep", "mode", "events", "method", "odd", "order_by", "sort", "state", "tuple", "zone"}; !slices.Equal(d.Params, want) {
		t.Errorf("Params = %q, want %q", d.Params, want)
	}
}

// TestDescribedValues: a property without an enum whose description lists
// its values in backquotes adds them, but for booleans, other parameters'
// names, values of more than one word and a lone example.
func TestDescribedValues(t *testing.T) {
	var d Doc
	d.AddInputSchema([]byte(`{"type":"object","properties":{
		"permission":{"type":"string","description":"The permission to grant the collaborator. We accept the following permissions to be set: ` + "`pull`, `triage`, `push`, `maintain`, `admin`" + `."},
		"tool_name":{"type":"string","description":"The name of a code scanning tool. Specify either ` + "`tool_guid` or `tool_name`" + `, but not both."},
		"tool_guid":{"type":"string"},
		"flag":{"type":"string","description":"Either ` + "`true` or `false`" + `."},
		"assignee":{"type":"string","description":"Filter by a login, such as ` + "`octocat`" + `."},
		"query":{"type":"string","description":"Use ` + "`is:open label:bug` or `state`" + `."},
		"state":{"type":"string","enum":["open","closed"],"description":"Either ` + "`open` or `closed`" + `."}}}`))
	if want := []string{"pull", "triage", "push", "maintain", "admin", "open", "closed"}; !slices.Equal(d.Values, want) {
		t.Errorf("Values = %q, want %q", d.Values, want)
	}
}

// TestResultValues: an input property that adds no values of its own takes
// the enum of the result's property of that name, at any depth, in place,
// of its items or by a named schema of the result's $defs; one with values
// of its own, described or listed, keeps them; a key that is no property
// (a value of an example, an entry of "required") gives none.
func TestResultValues(t *testing.T) {
	in := []byte(`{"type":"object","properties":{
		"kind":{"type":"string","description":"Type of object"},
		"tags":{"type":"string"},
		"status":{"type":"string","enum":["draft"]},
		"mode":{"type":"string","description":"Either ` + "`fast` or `slow`" + `."},
		"sort":{"type":"string"},
		"name":{"type":"string"},
		"owner":{"type":"string"}}}`)
	out := []byte(`{"type":"object","required":["name"],"examples":[{"name":"Risa","owner":"x"}],"properties":{
		"page":{"type":"object"},
		"objects":{"type":"array","items":{"$ref":"#/$defs/Object"}}},
		"$defs":{
			"Object":{"type":"object","properties":{
				"name":{"type":"string"},
				"kind":{"$ref":"#/$defs/Kind"},
				"tags":{"type":"array","items":{"enum":["moon","planet"]}},
				"status":{"enum":["active","lost"]},
				"mode":{"enum":["cold"]},
				"sort" : {"enum":["name","date"]}}},
			"Kind":{"type":"string","enum":["PLANET","STAR_SYSTEM","NEBULA"]}}}`)
	var d Doc
	d.AddSchemas(in, out)
	if want := []string{"fast", "slow", "draft", "PLANET", "STAR_SYSTEM", "NEBULA", "moon", "planet"}; !slices.Equal(d.Values, want) {
		t.Errorf("Values = %q, want %q", d.Values, want)
	}
	var e Doc
	e.AddInputSchema(in)
	if want := []string{"fast", "slow", "draft"}; !slices.Equal(e.Values, want) {
		t.Errorf("without the result: Values = %q, want %q", e.Values, want)
	}
	// What it reads is bounded, whatever the schemas hold: properties
	// nested in each other are read again at each depth, and a key past
	// what resultPasses passes allow is not read.
	nested, names := `{"kind":{"enum":["PLANET"]}}`, []string{"kind"}
	for i := range 4 * resultPasses {
		nested = fmt.Sprintf(`{"n%d":%s}`, i, nested)
		names = append(names, fmt.Sprintf("n%d", i))
	}
	if got := resultEnums([]byte(nested), names); got["kind"] != nil {
		t.Errorf("read past its budget: %v", got)
	}
	if got := resultEnums([]byte(nested), []string{"kind"}); len(got["kind"]) != 1 {
		t.Errorf("within its budget: %v", got)
	}
	for _, bad := range []string{``, `null`, `{"properties":{"kind":"PLANET"}}`, `{"kind":`, `[{"kind":{"enum":`} {
		var f Doc
		f.AddSchemas(in, []byte(bad))
		if !slices.Equal(f.Values, e.Values) {
			t.Errorf("result %q: Values = %q", bad, f.Values)
		}
	}
}

// FuzzResultEnums: any result schema, as an upstream may send it, is read
// without a panic, within its budget of matches, and only for the names
// asked.
func FuzzResultEnums(f *testing.F) {
	for _, s := range []string{
		`{"properties":{"kind":{"$ref":"#/$defs/K"}},"$defs":{"K":{"enum":["A"]}}}`,
		`{"kind":{"enum":["A"]}}`, `"kind":`, `":`, `""":"`, `{"kind" :{"items":{"enum":[1]}}}`,
		`{"a\"kind":{"enum":["A"]}}`, `{"kind":{"$ref":"#/$defs/"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		got := resultEnums([]byte(out), []string{"kind", "a"})
		for k := range got {
			if k != "kind" && k != "a" {
				t.Errorf("%q: found %q", out, k)
			}
		}
		var d Doc
		d.AddSchemas([]byte(`{"properties":{"kind":{"type":"string"},"a":{}}}`), []byte(out))
		if len(d.Values) > 2*maxEnum {
			t.Errorf("%q: %d values", out, len(d.Values))
		}
	})
}
