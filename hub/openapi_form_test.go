package hub

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestOpenAPIFormSearch drives the Star Trek API's description, whose
// searches take a URL-encoded form, first against a local server that
// logs what it receives (the form's fields arrive as the model gave them,
// parsed by Go's own form reader), then against a Prism mock that refuses
// a body breaking the document; a field of the wrong type is refused
// before anything is sent.
func TestOpenAPIFormSearch(t *testing.T) {
	doc := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "star-trek.json")
	var mu sync.Mutex
	var got []url.Values
	var types []string
	logged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Errorf("the body is not a form: %v", err)
		}
		mu.Lock()
		got = append(got, r.PostForm)
		types = append(types, r.Header.Get("Content-Type"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"page":{"pageNumber":0},"spacecrafts":[]}`))
	}))
	defer logged.Close()

	name := uniqueName("stapi")
	ns := naming.Namespace(name)
	allow := func(ns string) map[string]config.Mode {
		return map[string]config.Mode{ns + ".postSpacecraftSearch": config.Allow, ns + ".postLocationSearch": config.Allow, ns + ".postEpisodeSearch": config.Allow}
	}
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: logged.URL}, allow(ns), Options{})
	decl, err := h.Describe(t.Context(), DescribeRequest{Targets: []string{ns + ".postSpacecraftSearch"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(decl, "name?: string") {
		t.Errorf("describe does not declare the form's fields:\n%s", decl)
	}
	env := execCode(t, h, `return await `+ns+`.postSpacecraftSearch({ pageSize: 5, name: "Enterprise & Defiant" });`)
	if env.Status != StatusCompleted {
		t.Fatalf("search: %s", envJSON(env))
	}
	env = execCode(t, h, `return await `+ns+`.postLocationSearch({ name: "Risa", earthlyLocation: false, buildingInterior: true });`)
	if env.Status != StatusCompleted {
		t.Fatalf("search: %s", envJSON(env))
	}
	mu.Lock()
	if len(got) != 2 || got[0].Get("name") != "Enterprise & Defiant" || len(got[0]) != 1 ||
		got[1].Get("name") != "Risa" || got[1].Get("earthlyLocation") != "false" || got[1].Get("buildingInterior") != "true" ||
		types[0] != "application/x-www-form-urlencoded" {
		t.Errorf("the server received %v as %q", got, types)
	}
	mu.Unlock()

	prism := hubtest.StartPrism(t, doc)
	name = uniqueName("stapi")
	ns = naming.Namespace(name)
	h = newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: prism.URL}, allow(ns), Options{})
	env = execCode(t, h, `const r = await `+ns+`.postEpisodeSearch({ title: "The Trouble with Tribbles", seasonNumberFrom: 2, featureLength: false }); return typeof r;`)
	if env.Status != StatusCompleted || string(env.Result) != `"object"` {
		t.Fatalf("prism refused the form: %s", envJSON(env))
	}
	// Prism logs a request on its own time, after it answered it.
	if !testwait.Until(10*time.Second, func() bool { return slices.Contains(prism.Requests(), "post /episode/search") }) {
		t.Errorf("prism did not see the POST: %v", prism.Requests())
	}
	// A field of the wrong type is refused before anything is sent, named.
	env = execCode(t, h, `try { await `+ns+`.postEpisodeSearch({ seasonNumberFrom: "two" }); return "sent"; } catch (e) { return String(e.message); }`)
	if !strings.Contains(string(env.Result), "seasonNumberFrom") || !strings.Contains(string(env.Result), "want \\\"integer\\\"") {
		t.Errorf("a field of the wrong type: %s", envJSON(env))
	}
}

// TestOpenAPITextBodySent: an operation whose body is text (as GitHub's
// markdown/render-raw) takes it as one string, which the API receives as
// it was given, with its media type.
func TestOpenAPITextBodySent(t *testing.T) {
	var mu sync.Mutex
	var got, ctype string
	logged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, ctype = string(b), r.Header.Get("Content-Type")
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<h1>Hi</h1>"))
	}))
	defer logged.Close()
	doc := filepath.Join(t.TempDir(), "md.yaml")
	if err := os.WriteFile(doc, []byte(`openapi: 3.0.3
info: {title: md, version: "1"}
paths:
  /markdown/raw:
    post:
      operationId: renderRaw
      requestBody:
        content:
          text/plain: {schema: {type: string}}
      responses: {"200": {description: ok, content: {text/html: {schema: {type: string}}}}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	name := uniqueName("md")
	ns := naming.Namespace(name)
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: logged.URL}, map[string]config.Mode{ns + ".renderRaw": config.Allow}, Options{})
	env := execCode(t, h, `return await `+ns+`.renderRaw({ body: "# Hi & \"you\"\n" });`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "Hi") {
		t.Fatalf("render: %s", envJSON(env))
	}
	mu.Lock()
	defer mu.Unlock()
	if got != "# Hi & \"you\"\n" || ctype != "text/plain; charset=utf-8" {
		t.Errorf("the server received %q as %q", got, ctype)
	}
}

// TestOpenAPIBinaryBodySent: a release asset's bytes, given as base64 by
// the model's code, reach the API as the bytes themselves, with the
// document's media type.
func TestOpenAPIBinaryBodySent(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	var ctype, query string
	logged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, ctype, query = b, r.Header.Get("Content-Type"), r.URL.RawQuery
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":1,"size":` + strconv.Itoa(len(b)) + `}`))
	}))
	defer logged.Close()
	doc := filepath.Join(t.TempDir(), "assets.yaml")
	if err := os.WriteFile(doc, []byte(`openapi: 3.0.3
info: {title: assets, version: "1"}
paths:
  /releases/{release_id}/assets:
    post:
      operationId: uploadReleaseAsset
      parameters:
        - {name: release_id, in: path, required: true, schema: {type: integer}}
        - {name: name, in: query, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/octet-stream: {schema: {type: string, format: binary}}
      responses: {"201": {description: ok, content: {application/json: {schema: {type: object}}}}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	name := uniqueName("assets")
	ns := naming.Namespace(name)
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: logged.URL}, map[string]config.Mode{ns + ".uploadReleaseAsset": config.Allow}, Options{})
	// "PK\x03\x04" and a NUL: the start of a zip file.
	env := execCode(t, h, `return await `+ns+`.uploadReleaseAsset({ release_id: 7, name: "a.zip", body: "UEsDBAA=" });`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"size":5`) {
		t.Fatalf("upload: %s", envJSON(env))
	}
	mu.Lock()
	defer mu.Unlock()
	if string(got) != "PK\x03\x04\x00" || ctype != "application/octet-stream" || query != "name=a.zip" {
		t.Errorf("the server received %q as %q, query %q", got, ctype, query)
	}
}

// TestOpenAPIMultipartSent: an attachment's file and fields, given by the
// model's code, reach the API as a multipart form Go's reader parses: the
// file's name, media type and bytes, and the fields' values.
func TestOpenAPIMultipartSent(t *testing.T) {
	type received struct {
		filename, ctype, content, comment string
	}
	var mu sync.Mutex
	var got received
	logged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		mu.Lock()
		got = received{fh.Filename, fh.Header.Get("Content-Type"), string(b), r.FormValue("comment")}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"id":"10042","filename":` + strconv.Quote(fh.Filename) + `,"size":` + strconv.Itoa(len(b)) + `}]`))
	}))
	defer logged.Close()
	doc := filepath.Join(t.TempDir(), "attach.yaml")
	if err := os.WriteFile(doc, []byte(`openapi: 3.0.3
info: {title: attach, version: "1"}
paths:
  /issue/{issueIdOrKey}/attachments:
    post:
      operationId: addAttachment
      parameters:
        - {name: issueIdOrKey, in: path, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
                comment: {type: string}
      responses: {"200": {description: ok, content: {application/json: {schema: {type: array, items: {type: object}}}}}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	name := uniqueName("attach")
	ns := naming.Namespace(name)
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: logged.URL}, map[string]config.Mode{ns + ".addAttachment": config.Allow}, Options{})
	env := execCode(t, h, `return await `+ns+`.addAttachment({ issueIdOrKey: "PROJ-8", comment: "the trace", file: { filename: "trace.log", base64: "bGluZSAxCmxpbmUgMgo=", contentType: "text/plain" } });`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"size":14`) {
		t.Fatalf("upload: %s", envJSON(env))
	}
	mu.Lock()
	defer mu.Unlock()
	if want := (received{"trace.log", "text/plain", "line 1\nline 2\n", "the trace"}); got != want {
		t.Errorf("the server received %+v, want %+v", got, want)
	}
}

// TestOpenAPIFileUploadsPrism: the file uploads of a published example
// (@readme/oas-examples' file-uploads.json: an image/png body, a
// multipart form with one file and two fields) are sent as Prism,
// validating against that document, accepts; its third, a list of files,
// is declared as one. (A list goes as a part per file with the field's
// name, as RFC 7578 and curl -F send it; Prism 5 reads only the last of
// them and refuses curl's too, so TestOpenAPIMultipartBody reads the
// parts back with Go's reader instead.)
func TestOpenAPIFileUploadsPrism(t *testing.T) {
	doc := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "file-uploads.json")
	prism := hubtest.StartPrism(t, doc)
	name := uniqueName("uploads")
	ns := naming.Namespace(name)
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: prism.URL}, map[string]config.Mode{ns: config.Allow}, Options{})
	decl, err := h.Describe(t.Context(), DescribeRequest{Targets: []string{ns}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"body?: string", "documentFile?: {", "filename: string;", "base64: string;", "}[]"} {
		if !strings.Contains(decl, want) {
			t.Errorf("describe lacks %q:\n%s", want, decl)
		}
	}
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	for _, c := range []struct{ code, request string }{
		{`return await ` + ns + `.postAnythingImagePng({ body: "` + png + `" });`, "post /anything/image-png"},
		{`return await ` + ns + `.postAnythingMultipartFormdata({ orderId: 7, userId: 9, documentFile: { filename: "order.pdf", base64: "JVBERi0xLjQK", contentType: "application/pdf" } });`, "post /anything/multipart-formdata"},
	} {
		if env := execCode(t, h, c.code); env.Status != StatusCompleted {
			t.Errorf("prism refused %s: %s", c.request, envJSON(env))
		}
		// Prism logs a request on its own time, after it answered it.
		if !testwait.Until(10*time.Second, func() bool { return slices.Contains(prism.Requests(), c.request) }) {
			t.Errorf("prism did not see %s: %v", c.request, prism.Requests())
		}
	}
}
