package tsgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// renderType translates one schema, as a tool's input schema, to the type
// Describe would print for it at indentation 0.
func renderType(t *testing.T, schema string) string {
	t.Helper()
	ix := newIndex("ns", []Tool{{Namespace: "ns", Name: "tool", InputSchema: json.RawMessage(schema)}})
	d := ix.tools[0].input
	if d == nil {
		t.Fatalf("schema did not parse: %s", schema)
	}
	root := ix.root(d)
	r := &renderer{ix: ix, depth: unlimited, qualify: "ns.", root: root}
	return r.typ(d, root, 1, 0).s
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		// Primitive types.
		{"string", `{"type":"string"}`, "string"},
		{"integer is number", `{"type":"integer"}`, "number"},
		{"number", `{"type":"number"}`, "number"},
		{"boolean", `{"type":"boolean"}`, "boolean"},
		{"null", `{"type":"null"}`, "null"},
		{"type array is a union", `{"type":["string","integer","boolean"]}`, "string | number | boolean"},
		{"type array with null", `{"type":["string","null"]}`, "string | null"},
		{"nullable", `{"type":"number","nullable":true}`, "number | null"},
		{"missing type", `{"description":"anything"}`, "unknown"},
		{"empty schema", `{}`, "unknown"},
		{"true schema", `true`, "unknown"},
		{"false schema", `false`, "never"},
		{"unknown type name", `{"type":"decimal"}`, "unknown"},

		// Literals.
		{"string enum", `{"type":"string","enum":["open","closed"]}`, `"open" | "closed"`},
		{"mixed enum", `{"enum":[1,"a",null,true,-2.5]}`, `1 | "a" | null | true | -2.5`},
		{"enum with an object", `{"enum":[{"a":1}]}`, "unknown"},
		{"empty enum", `{"enum":[]}`, "never"},
		{"const", `{"const":"text"}`, `"text"`},
		{"const number", `{"const":42}`, "42"},
		{"const object", `{"const":{"a":1}}`, "unknown"},
		{"enum quotes and escapes", `{"enum":["say \"hi\"","a\nb"]}`, `"say \"hi\"" | "a\nb"`},

		// Composition.
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, "string | string[]"},
		{"oneOf", `{"oneOf":[{"const":"a"},{"const":"b"},{"type":"null"}]}`, `"a" | "b" | null`},
		{"anyOf duplicates collapse", `{"anyOf":[{"type":"string"},{"type":"string","format":"email"}]}`, "string"},
		{"anyOf with unknown member", `{"anyOf":[{"type":"string"},{}]}`, "string"},
		{"anyOf with true member", `{"anyOf":[{"type":"string"},true]}`, "unknown"},
		{"constraint-only members", `{"type":"string","anyOf":[{"format":"email"},{"format":"uri"}]}`, "string"},
		{"allOf", `{"allOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}],"$defs":{"A":{"type":"object","properties":{"a":{"type":"string"}}},"B":{"type":"object","properties":{"b":{"type":"number"}}}}}`,
			"ns.A & ns.B"},
		{"allOf of unions", `{"allOf":[{"type":["string","number"]},{"type":["number","null"]}]}`, "(string | number) & (number | null)"},
		{"type and oneOf", `{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"],"oneOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}]}`,
			"{\n\tkind: string;\n} & ({\n\ta?: string;\n} | {\n\tb?: string;\n})"},
		{"allOf never", `{"allOf":[{"type":"string"},false]}`, "never"},
		{"nullable union", `{"anyOf":[{"type":"string"},{"type":"number"}],"nullable":true}`, "string | number | null"},

		// Arrays and tuples.
		{"array", `{"type":"array","items":{"type":"string"}}`, "string[]"},
		{"array without items", `{"type":"array"}`, "unknown[]"},
		{"array inferred", `{"items":{"type":"number"}}`, "number[]"},
		{"array of union", `{"type":"array","items":{"type":["string","number"]}}`, "(string | number)[]"},
		{"array of arrays", `{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}`, "boolean[][]"},
		{"nullable array items", `{"type":"array","items":{"type":"string","nullable":true}}`, "(string | null)[]"},
		{"prefixItems closed", `{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":false,"minItems":2}`, "[number, string]"},
		{"prefixItems with rest", `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"},"minItems":1}`, "[string, ...number[]]"},
		{"prefixItems open", `{"type":"array","prefixItems":[{"type":"string"}],"minItems":1}`, "[string, ...unknown[]]"},
		{"optional tuple elements", `{"type":"array","prefixItems":[{"type":"string"},{"type":["number","null"]}],"items":false,"minItems":1}`, "[string, (number | null)?]"},
		{"draft 7 tuple", `{"type":"array","items":[{"type":"number"},{"type":"number"}],"additionalItems":false,"minItems":2}`, "[number, number]"},
		{"draft 7 tuple rest", `{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"boolean"},"minItems":1}`, "[string, ...boolean[]]"},
		{"maxItems closes a tuple", `{"type":"array","items":[{"type":"integer"},{"type":"integer"}],"minItems":2,"maxItems":2}`, "[number, number]"},

		// Objects.
		{"empty object", `{"type":"object"}`, "{}"},
		{"object with no properties", `{"type":"object","properties":{},"additionalProperties":false}`, "{}"},
		{"required first, schema order", `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"number"},"c":{"type":"boolean"}},"required":["c","a"]}`,
			"{\n\ta: number;\n\tc: boolean;\n\tb?: string;\n}"},
		{"object inferred from properties", `{"properties":{"x":{"type":"number"}}}`, "{\n\tx?: number;\n}"},
		{"quoted names", `{"type":"object","properties":{"content-type":{"type":"string"},"2fa":{"type":"boolean"},"$ok":{"type":"string"},"with space":{}}}`,
			"{\n\t\"content-type\"?: string;\n\t\"2fa\"?: boolean;\n\t$ok?: string;\n\t\"with space\"?: unknown;\n}"},
		{"required but not in properties", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`,
			"{\n\ta: string;\n\tb: unknown;\n}"},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, "{\n\t[key: string]: string;\n}"},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`, "{\n\t[key: string]: unknown;\n}"},
		{"additionalProperties false", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, "{\n\ta?: string;\n}"},
		{"index signature admits properties", `{"type":"object","properties":{"id":{"type":"number"},"name":{"type":"string"}},"required":["id"],"additionalProperties":{"type":"boolean"}}`,
			"{\n\tid: number;\n\tname?: string;\n\t[key: string]: boolean | number | string | undefined;\n}"},
		{"patternProperties", `{"type":"object","patternProperties":{"^x-":{"type":"string"},"^n-":{"type":"number"}},"additionalProperties":false}`,
			"{\n\t/**\n\t * Keys matching ^x-.\n\t * Keys matching ^n-.\n\t */\n\t[key: string]: string | number;\n}"},
		{"nested object", `{"type":"object","properties":{"user":{"type":"object","properties":{"login":{"type":"string"}},"required":["login"]}},"required":["user"]}`,
			"{\n\tuser: {\n\t\tlogin: string;\n\t};\n}"},
		{"array of objects", `{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"}}}}}}`,
			"{\n\tedits?: {\n\t\told?: string;\n\t}[];\n}"},
		{"object or null", `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`, "{\n\ta?: string;\n} | null"},

		// References.
		{"$ref to $defs", `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}}}}`, "ns.Node"},
		{"$ref to definitions", `{"type":"object","properties":{"a":{"$ref":"#/definitions/thing"}},"definitions":{"thing":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			"{\n\ta?: ns.Thing;\n}"},
		{"small $ref inlined", `{"type":"object","properties":{"color":{"$ref":"#/$defs/Color"}},"$defs":{"Color":{"enum":["red","green"]}}}`,
			"{\n\tcolor?: \"red\" | \"green\";\n}"},
		{"$ref to the root", `{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}`,
			"{\n\tchildren?: ns.ToolInput[];\n}"},
		{"$ref by JSON pointer", `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}}},"b":{"$ref":"#/properties/a"}}}`,
			"{\n\ta?: {\n\t\tx?: string;\n\t};\n\tb?: ns.ToolInputA;\n}"},
		{"$ref with siblings", `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","properties":{"extra":{"type":"string"}}}},"$defs":{"A":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			"{\n\ta?: ns.A & {\n\t\textra?: string;\n\t};\n}"},
		{"$anchor", `{"type":"object","properties":{"a":{"$ref":"#item"}},"$defs":{"Item":{"$anchor":"item","type":"object","properties":{"x":{"type":"number"}}}}}`,
			"{\n\ta?: ns.Item;\n}"},
		{"unresolvable $ref", `{"$ref":"https://example.com/schema.json"}`, "unknown"},
		{"escaped pointer", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"object","properties":{"x":{"type":"string"}}}}}`,
			"{\n\ta?: ns.AB;\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, renderType(t, tt.schema)); diff != "" {
				t.Errorf("schema %s (-want +got):\n%s", tt.schema, diff)
			}
		})
	}
}

func TestDocLines(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		prop   string
		want   []string
	}{
		{"description", `{"description":"The owner."}`, "owner", []string{"The owner."}},
		{"multi-line description", "{\"description\":\"First.\\n\\nSecond.\\n\"}", "x", []string{"First.", "", "Second."}},
		{"title stands in", `{"title":"Repository owner"}`, "owner", []string{"Repository owner"}},
		{"title repeating the name", `{"title":"Per Page"}`, "per_page", nil},
		{"tags", `{"type":"integer","default":30,"minimum":1,"maximum":100,"exclusiveMinimum":0,"exclusiveMaximum":101,"multipleOf":1}`, "n",
			[]string{"@default 30", "@minimum 1", "@maximum 100", "@exclusiveMinimum 0", "@exclusiveMaximum 101", "@multipleOf 1"}},
		{"string tags", `{"type":"string","format":"date-time","minLength":1,"maxLength":9,"pattern":"^a+$","default":"a"}`, "s",
			[]string{"@default \"a\"", "@format date-time", "@minLength 1", "@maxLength 9", "@pattern ^a+$"}},
		{"array and object tags", `{"minItems":1,"maxItems":3,"uniqueItems":true,"minProperties":1,"maxProperties":2}`, "a",
			[]string{"@minItems 1", "@maxItems 3", "@uniqueItems", "@minProperties 1", "@maxProperties 2"}},
		{"examples", `{"examples":["a",{"b":1}],"example":2}`, "e", []string{"@example \"a\"", "@example {\"b\":1}", "@example 2"}},
		{"deprecated", `{"description":"Old.","deprecated":true}`, "d", []string{"Old.", "@deprecated"}},
		{"none", `{"type":"string"}`, "s", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := parseJSON([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, docLines(v, tt.prop)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteDoc(t *testing.T) {
	tests := []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{"One line."}, "\t/** One line. */\n"},
		{[]string{"Two", "", "lines */ here"}, "\t/**\n\t * Two\n\t *\n\t * lines *\\/ here\n\t */\n"},
	}
	for _, tt := range tests {
		var b stringsBuilder
		writeDoc(&b.Builder, tt.lines, 1)
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("writeDoc(%q) (-want +got):\n%s", tt.lines, diff)
		}
	}
}

func TestParseJSONKeepsOrder(t *testing.T) {
	v, err := parseJSON([]byte(`{"z":1,"a":{"y":true,"b":null},"m":[1,"x"],"z":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := encodeJSON(v), `{"z":2,"a":{"y":true,"b":null},"m":[1,"x"]}`; got != want {
		t.Errorf("encodeJSON = %s, want %s", got, want)
	}
	for _, bad := range []string{`{"a":`, `{"a":1} {}`, `[1,]`} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("parseJSON(%s) succeeded, want an error", bad)
		}
	}
}

func TestPascal(t *testing.T) {
	for in, want := range map[string]string{
		"create_issue": "CreateIssue",
		"createIssue":  "CreateIssue",
		"x-api-key":    "XApiKey",
		"2fa":          "T2fa",
		"":             "Type",
		"a/b":          "AB",
		"$defs":        "Defs",
	} {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

type stringsBuilder struct{ strings.Builder }
