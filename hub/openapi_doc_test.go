package hub

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpenAPIConfig(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "api.json")
	tests := []struct {
		name, json string
		want       []string // problems; none when the config is valid
	}{
		{"file", `{"sources": {"api": {"openapi": "` + abs + `", "baseUrl": "http://127.0.0.1:9/v1"}}}`, nil},
		{"url", `{"sources": {"api": {"openapi": "https://example.com/openapi.json", "connections": {"me": {"query": {"key": "${secret:key}"}}}}}}`, nil},
		{"relative file", `{"sources": {"api": {"openapi": "api.json"}}}`, []string{"sources.api.openapi: a file path must be absolute"}},
		{"other scheme", `{"sources": {"api": {"openapi": "ftp://example.com/a.json"}}}`, []string{"sources.api.openapi: must be an http:// or https:// URL or a file path"}},
		{"bad baseUrl", `{"sources": {"api": {"openapi": "` + abs + `", "baseUrl": "example.com"}}}`, []string{"sources.api.baseUrl: must be an http:// or https:// URL"}},
		{"baseUrl alone", `{"sources": {"api": {"baseUrl": "https://example.com"}}}`, []string{"sources.api.baseUrl: belongs to OpenAPI sources"}},
		{"mixed with mcp", `{"sources": {"api": {"openapi": "` + abs + `", "command": "x"}}}`, []string{"sources.api: has \"openapi\" and \"command\" or \"url\""}},
		{"env connection", `{"sources": {"api": {"openapi": "` + abs + `", "connections": {"me": {"env": {"K": "${secret:k}"}}}}}}`, []string{"sources.api.connections.me.env: env belongs to stdio sources"}},
		{"query on mcp", `{"sources": {"api": {"url": "https://h/mcp", "connections": {"me": {"query": {"k": "${secret:k}"}}}}}}`, []string{"sources.api.connections.me: \"query\" and \"cookies\" belong to OpenAPI sources"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig("config.json", []byte(tc.json))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				b, _ := json.Marshal(cfg)
				again, err := ParseConfig("config.json", b)
				if err != nil {
					t.Fatalf("saved config does not parse: %v", err)
				}
				if diff := cmp.Diff(cfg.Sources["api"].OpenAPI+cfg.Sources["api"].BaseURL, again.Sources["api"].OpenAPI+again.Sources["api"].BaseURL); diff != "" {
					t.Errorf("round trip: %s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), "config.json: "+w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestOpenAPIBadDocuments(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	broken := filepath.Join("testdata", "openapi", "broken.json")
	_, err := parseOpenAPI(broken, read(broken))
	if err == nil || !strings.Contains(err.Error(), broken+": not valid JSON: line 5, column") {
		t.Errorf("a document that does not parse names the file and the place: %v", err)
	}
	swagger := filepath.Join(repoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "2.0", "json", "petstore.json")
	_, err = parseOpenAPI(swagger, read(swagger))
	if err == nil || !strings.Contains(err.Error(), "Swagger 2.0 (OpenAPI 2) is not served; convert it to OpenAPI 3") {
		t.Errorf("Swagger 2.0 is refused clearly: %v", err)
	}
	_, err = parseOpenAPI("x.yaml", []byte("openapi: [3\n  info: :"))
	if err == nil || !strings.HasPrefix(err.Error(), "x.yaml: ") {
		t.Errorf("broken YAML: %v", err)
	}
}

func TestOpenAPIOperations(t *testing.T) {
	mixed := filepath.Join("testdata", "openapi", "mixed.yaml")
	data, err := os.ReadFile(mixed)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseOpenAPI(mixed, data)
	if err != nil {
		t.Fatal(err)
	}
	if doc.server != "https://api.example.com/v2" {
		t.Errorf("server variables at their defaults: %q", doc.server)
	}
	if want := []string{"skipped POST /files: its request body is multipart/form-data, not JSON"}; !cmp.Equal(doc.skipped, want) {
		t.Errorf("skipped: %q, want %q", doc.skipped, want)
	}
	byName := map[string]string{}
	for _, tl := range doc.tools {
		b, _ := json.Marshal(tl)
		byName[tl.Name] = string(b)
	}
	put := byName["items/replace"]
	for _, want := range []string{
		`"inputSchema":{"type":"object","properties":{"id":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"body":{"description":"The request body.","$ref":"#/$defs/Item"}},"required":["id","body"],"$defs":{"Item":`,
		`"outputSchema":{"type":"object","required":["name"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"parent":{"$ref":"#/$defs/Item"}},"title":"Item","$defs":{"Item":`,
		`"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":true,"readOnlyHint":false}`,
		`"title":"Replace an item"`,
	} {
		if !strings.Contains(put, want) {
			t.Errorf("items/replace lacks %s:\n%s", want, put)
		}
	}
	get := byName["GET /items"]
	if !strings.Contains(get, `"properties":{"filter":{"type":"object","properties":{"color":{"type":"string"}}},"id":{"type":"string"},"id_query":{"type":["string","null"]}}`) ||
		!strings.Contains(get, `"readOnlyHint":true`) {
		t.Errorf("an operation without operationId, with a name used twice: %s", get)
	}

	// The request each writes.
	in := map[string]json.RawMessage{"id": json.RawMessage(`"a b"`), "tags": json.RawMessage(`["x","y"]`), "body": json.RawMessage(`{"name":"n"}`)}
	r, err := buildRESTRequest("https://h/v2", doc.ops["items/replace"], in, &restCredentials{query: map[string]string{"key": "k1"}, headers: map[string]string{"X-Key": "k2"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.method != "PUT" || r.url != "https://h/v2/items/a%20b?tags=x,y&key=k1" || string(r.body) != `{"name":"n"}` ||
		r.headers.Get("X-Key") != "k2" || r.headers.Get("Content-Type") != "application/json" || r.headers.Get("Accept") != "application/json" {
		t.Errorf("PUT request: %+v %s", r, r.body)
	}
	in = map[string]json.RawMessage{"filter": json.RawMessage(`{"color":"red"}`), "id": json.RawMessage(`"h1"`), "id_query": json.RawMessage(`"q1"`)}
	r, err = buildRESTRequest("https://h", doc.ops["GET /items"], in, &restCredentials{})
	if err != nil {
		t.Fatal(err)
	}
	if r.url != "https://h/items?filter%5Bcolor%5D=red&id=q1" || r.headers.Get("id") != "h1" || r.body != nil {
		t.Errorf("GET request: %s %v", r.url, r.headers)
	}
}

func TestOpenAPISerialize(t *testing.T) {
	arr := []any{"a", "b"}
	obj := map[string]any{"r": json.Number("1"), "g": "2"}
	tests := []struct {
		p    openapiParam
		v    any
		want string
	}{
		{openapiParam{name: "id", in: "path", style: "simple"}, arr, "a,b"},
		{openapiParam{name: "id", in: "path", style: "simple", explode: true}, obj, "g=2,r=1"},
		{openapiParam{name: "id", in: "path", style: "label"}, arr, ".a,b"},
		{openapiParam{name: "id", in: "path", style: "label", explode: true}, arr, ".a.b"},
		{openapiParam{name: "id", in: "path", style: "matrix"}, arr, ";id=a,b"},
		{openapiParam{name: "id", in: "path", style: "matrix", explode: true}, arr, ";id=a;id=b"},
		{openapiParam{name: "q", in: "query", style: "form", explode: true}, arr, "q=a&q=b"},
		{openapiParam{name: "q", in: "query", style: "form"}, obj, "q=g,2,r,1"},
		{openapiParam{name: "q", in: "query", style: "form", explode: true}, obj, "g=2&r=1"},
		{openapiParam{name: "q", in: "query", style: "spaceDelimited"}, arr, "q=a%20b"},
		{openapiParam{name: "q", in: "query", style: "pipeDelimited"}, arr, "q=a|b"},
		{openapiParam{name: "q", in: "query", style: "form", explode: true}, true, "q=true"},
	}
	for _, tc := range tests {
		var got string
		if tc.p.in == "path" {
			got = serializePath(tc.p, tc.v)
		} else {
			got = strings.Join(serializeQuery(tc.p, tc.v), "&")
		}
		if got != tc.want {
			t.Errorf("%s %s explode=%v of %v: %q, want %q", tc.p.in, tc.p.style, tc.p.explode, tc.v, got, tc.want)
		}
	}
}
