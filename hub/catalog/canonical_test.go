package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodedCanonical is the canonical form as pins first hashed it: the
// document decoded into Go values (numbers as json.Number) and marshalled
// again. canonicalJSON must write the same bytes for a document as a
// json.RawMessage.
func decodedCanonical(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if !json.Valid(doc) { // a value then more
		return nil, &json.SyntaxError{}
	}
	return json.Marshal(v)
}

var canonicalSeeds = []string{
	`{}`, `[]`, `null`, `true`, `0`, `-1.5e+10`, `""`,
	`{"b":1,"a":[3,2,{"d":null,"c":false}],"":"empty key"}`,
	` { "z" : [ 1 , 2 ] , "a" : { } } `,
	`{"a":1,"a":2,"b":{"x":1,"x":{"y":3}}}`,
	`{"s":"<b>&amp;</b>","t":"\u003c\u0026\u003e","u":"\/slash"}`,
	`{"n":"line\nbreak\ttab\r\"q\" \\ \b\f\u0001\u001f"}`,
	`{"uni":"h\u00e9llo \u2028 \u2029 \ufffd \ud83d\ude00 日本語"}`,
	`{"bad":"\ud800 lone surrogate"}`,
	"{\"raw\":\"invalid \xff utf-8 \xe2\x80\xa8\"}",
	`{"\u00e9":1,"é":2,"e\u0301":3,"Z":4,"a":5}`,
	`{"k<>":"v","k\n":"w"}`,
	`[{"a":[{"b":[{"c":{}}]}]},[],[[]],-0,1E2,0.000]`,
}

// TestCanonicalBytes: the canonical form written from bytes is the one
// decoding and marshalling again writes, escapes, repeated keys, invalid
// UTF-8 and all, and a document that is not JSON is an error.
func TestCanonicalBytes(t *testing.T) {
	for _, doc := range canonicalSeeds {
		checkCanonical(t, []byte(doc))
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `{"a":1}x`, `"\x"`} {
		if _, err := canonicalJSON(json.RawMessage(bad)); err == nil {
			t.Errorf("canonicalJSON(%q) is no error", bad)
		}
	}
}

// TestCanonicalBytesGitHub: the same over GitHub's REST description, a
// 13 MB document of every kind of schema and text.
func TestCanonicalBytesGitHub(t *testing.T) {
	if testing.Short() {
		t.Skip("a 13 MB document")
	}
	p := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
	doc, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("GitHub's description (make test runs npm ci): %v", err)
	}
	checkCanonical(t, doc)
}

func FuzzCanonicalBytes(f *testing.F) {
	for _, doc := range canonicalSeeds {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkCanonical(t, doc)
	})
}

func checkCanonical(t *testing.T, doc []byte) {
	t.Helper()
	want, werr := decodedCanonical(doc)
	got, err := canonicalJSON(json.RawMessage(doc))
	switch {
	case (werr == nil) != (err == nil):
		t.Fatalf("canonicalJSON(%q): error %v, decoding: %v", doc, err, werr)
	case err == nil && !bytes.Equal(got, want):
		t.Fatalf("canonicalJSON(%q)\n = %s\nwant %s", doc, got, want)
	}
	if err != nil {
		return
	}
	// As listed: the same document, its canonical form the same.
	l := canonicalizer{in: doc, listed: true}
	l.value()
	if again, err := canonicalJSON(json.RawMessage(l.out)); err != nil || !bytes.Equal(again, want) {
		t.Fatalf("listed %q\n = %s, canonical %s (%v)\nwant %s", doc, l.out, again, err, want)
	}
}

// TestListedOrder: written as listed, an object keeps its members in the
// order they came, the last of a repeated key in its place, at every
// depth and however large the object; the canonical form and the hash do
// not depend on that order.
func TestListedOrder(t *testing.T) {
	listed := func(doc string) string {
		c := canonicalizer{in: []byte(doc), listed: true}
		c.value()
		return string(c.out)
	}
	for _, tt := range []struct{ in, want string }{
		{`{"z":1,"a":{"y":[{"q":1,"b":2}],"c":3}}`, `{"z":1,"a":{"y":[{"q":1,"b":2}],"c":3}}`},
		{` { "b" : 1 , "a" : 2 , "b" : 3 } `, `{"a":2,"b":3}`},
		{`{"s":"<&>","\u00e9":1}`, `{"s":"\u003c\u0026\u003e","é":1}`},
	} {
		if got := listed(tt.in); got != tt.want {
			t.Errorf("listed %s = %s, want %s", tt.in, got, tt.want)
		}
	}
	// A large object finds its repeated keys by map.
	var in, want bytes.Buffer
	in.WriteString("{")
	want.WriteString("{")
	for i := 40; i > 0; i-- {
		fmt.Fprintf(&in, `"k%d":%d,`, i, i)
		if i != 7 {
			fmt.Fprintf(&want, `"k%d":%d,`, i, i)
		}
	}
	in.WriteString(`"k7":"last"}`)
	want.WriteString(`"k7":"last"}`)
	if got := listed(in.String()); got != want.String() {
		t.Errorf("listed large object\n = %s\nwant %s", got, want.String())
	}

	tool := func(schema string) *mcp.Tool {
		return &mcp.Tool{Name: "pullsList", InputSchema: json.RawMessage(schema)}
	}
	a := `{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"state":{"enum":["open","closed"]}},"required":["owner","repo"]}`
	b := `{"required":["owner","repo"],"properties":{"state":{"enum":["open","closed"]},"repo":{"type":"string"},"owner":{"type":"string"}},"type":"object"}`
	defA, hashA, err := Definition(tool(a), nil)
	if err != nil {
		t.Fatal(err)
	}
	defB, hashB, err := Definition(tool(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if hashA != hashB {
		t.Errorf("the same definition listed in two orders hashes %s and %s", hashA, hashB)
	}
	if want := `{"inputSchema":` + a + `,"name":"pullsList"}`; string(defA) != want {
		t.Errorf("definition = %s, want %s", defA, want)
	}
	if bytes.Equal(defA, defB) {
		t.Errorf("both orders are stored as %s", defA)
	}
}

// TestDefinitionCanonical: a definition written member by member is the
// canonical form of the whole, over GitHub's operations (each one's
// parameters and responses as its schemas, as the document writes them)
// and over definitions with every member, none, and text to escape.
func TestDefinitionCanonical(t *testing.T) {
	yes := true
	defs := []toolDefinition{
		{Name: "bare"},
		{Name: "all<&>", Title: "T\u2028", Description: "line\nbreak \"q\"", InputSchema: json.RawMessage(` {"b" : 1, "a":[ ]} `),
			OutputSchema: json.RawMessage(`null`), Annotations: &mcp.ToolAnnotations{Title: "x", DestructiveHint: &yes},
			Request: &upstream.RESTRequest{Method: "GET", Path: "/a/{b}", Server: "https://example.com"}},
	}
	if !testing.Short() {
		p := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
		if doc, err := os.ReadFile(p); err == nil {
			var d struct {
				Paths map[string]map[string]struct {
					OperationID string          `json:"operationId"`
					Summary     string          `json:"summary"`
					Description string          `json:"description"`
					Parameters  json.RawMessage `json:"parameters"`
					Responses   json.RawMessage `json:"responses"`
				} `json:"paths"`
			}
			if err := json.Unmarshal(doc, &d); err != nil {
				t.Fatal(err)
			}
			for path, ops := range d.Paths {
				for method, op := range ops {
					defs = append(defs, toolDefinition{Name: op.OperationID, Title: op.Summary, Description: op.Description,
						InputSchema: op.Parameters, OutputSchema: op.Responses,
						Request: &upstream.RESTRequest{Method: method, Path: path}})
				}
			}
		}
	}
	for _, d := range defs {
		want, err := canonicalJSON(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.canonical()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", d.Name, got, want)
		}
		if old, _ := decodedCanonical(want); !bytes.Equal(old, want) {
			t.Fatalf("%s: not the decoded form", d.Name)
		}
	}
	t.Logf("%d definitions", len(defs))
}
