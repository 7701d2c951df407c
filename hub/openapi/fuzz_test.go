package openapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/secrets"
)

// FuzzBuildRESTRequest builds requests from any path template, parameter
// place, style, explode and value, and checks what buildRESTRequest
// promises whenever it builds one: the URL keeps the base's origin and
// path, each template segment stays one segment and none is "." or "..",
// the credentials' query key, cookie and header are there once with their
// values, and no parameter adds a query key, cookie or header that another
// owns.
func FuzzBuildRESTRequest(f *testing.F) {
	f.Add("/items/{p}", "path", "simple", false, `"a/../b"`, `"x"`)
	f.Add("/items/{p}", "path", "label", true, `["",""]`, `"x"`)
	f.Add("/items/{p}", "path", "matrix", true, `{"a":"b"}`, `"x"`)
	f.Add("/{p}{p}", "path", "simple", false, `"."`, `"x"`)
	f.Add("/a/{p}.json", "path", "simple", false, `".."`, `"x"`)
	f.Add("@127.0.0.2/{p}", "path", "simple", false, `"x"`, `"x"`)
	f.Add("//evil.example/{p}", "path", "simple", false, `"x"`, `"x"`)
	f.Add("/s", "query", "form", true, `{"key":"mine","q":"z"}`, `"x"`)
	f.Add("/s", "query", "deepObject", true, `{"]&key=1&[":"v"}`, `"x"`)
	f.Add("/s", "query", "form", false, `"a&key=mine#f"`, `"x"`)
	f.Add("/s", "query", "pipeDelimited", false, `["a|b","c"]`, `"x"`)
	f.Add("/s", "cookie", "form", false, `"v; sid=mine"`, `"x"`)
	f.Add("/s", "cookie", "form", false, `["a, sid=1","b"]`, `"x"`)
	f.Add("/s", "header", "simple", false, `"v\r\nX-Key: mine"`, `"x"`)
	f.Add("/s", "header", "simple", true, `{"X-Key":"mine"}`, `"x"`)
	f.Add("/s/{p}", "path", "simple", false, `"%2e%2e"`, `"q&key=1"`)
	f.Add("/ {p}", "path", "simple", false, `"/"`, `"x"`)
	f.Add("/a%zz\"<{p}>é", "path", "simple", false, `"%2F"`, `"x"`)
	const base = "https://api.example.com:8443/v1"
	cr := &restCredentials{
		headers: map[string]string{"X-Key": "hk"},
		query:   map[string]string{"key": "qk"},
		cookies: map[string]string{"sid": "ck"},
	}
	f.Fuzz(func(t *testing.T, template, in, style string, explode bool, value, qValue string) {
		name := "p"
		if in == "header" || in == "cookie" {
			name = "P-Arg"
		}
		op := &openapiOp{method: http.MethodGet, path: template, params: []openapiParam{
			{name: name, arg: "p", in: in, style: style, explode: explode},
			{name: "q", arg: "q", in: "query", style: "form", explode: true},
		}}
		args := map[string]json.RawMessage{}
		if json.Valid([]byte(value)) {
			args["p"] = json.RawMessage(value)
		}
		if json.Valid([]byte(qValue)) {
			args["q"] = json.RawMessage(qValue)
		}
		r, err := buildRESTRequest(base, op, args, cr)
		if err != nil {
			return
		}
		u, err := url.Parse(r.url)
		if err != nil {
			t.Fatalf("built URL %q does not parse: %v", r.url, err)
		}
		if secrets.OriginOf(u) != "https://api.example.com:8443" || u.User != nil || u.Fragment != "" {
			t.Fatalf("built URL %q left the origin", r.url)
		}
		path := u.EscapedPath()
		if !strings.HasPrefix(path, "/v1/") && path != "/v1" {
			t.Fatalf("built URL %q left the base path", r.url)
		}
		segs := strings.Split(strings.TrimPrefix(path, "/v1"), "/")
		if want := strings.Count(template, "/") + 1; len(segs) != want {
			t.Fatalf("template %q with %s made %d segments, want %d: %q", template, value, len(segs), want, r.url)
		}
		for _, s := range segs {
			if dotSegment(s) {
				t.Fatalf("template %q with %s made a dot segment: %q", template, value, r.url)
			}
		}
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			t.Fatalf("query of %q does not parse: %v", r.url, err)
		}
		if got := q["key"]; len(got) != 1 || got[0] != "qk" {
			t.Fatalf("the credential's query key is %q in %q", got, r.url)
		}
		if in != "query" {
			for k := range q {
				if k != "key" && k != "q" {
					t.Fatalf("a %s parameter added the query key %q: %q", in, k, r.url)
				}
			}
		}
		cookies, err := http.ParseCookie(r.headers.Get("Cookie"))
		if err != nil {
			t.Fatalf("Cookie header %q does not parse: %v", r.headers.Get("Cookie"), err)
		}
		want := map[string]bool{"sid": true}
		if in == "cookie" {
			want[name] = true
		}
		for _, c := range cookies {
			if !want[c.Name] {
				t.Fatalf("a parameter added the cookie %q: %q", c.Name, r.headers.Get("Cookie"))
			}
			delete(want, c.Name)
			if c.Name == "sid" && c.Value != "ck" {
				t.Fatalf("the credential's cookie is %q", c.Value)
			}
		}
		if want["sid"] {
			t.Fatalf("the credential's cookie is missing: %q", r.headers.Get("Cookie"))
		}
		if got := r.headers.Values("X-Key"); len(got) != 1 || got[0] != "hk" {
			t.Fatalf("the credential's header is %q", got)
		}
		for k, v := range r.headers {
			for _, s := range v {
				if strings.ContainsAny(s, "\r\n\x00") {
					t.Fatalf("header %s holds a line break: %q", k, s)
				}
			}
		}
	})
}
