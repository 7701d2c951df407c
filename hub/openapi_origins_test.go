package hub

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
)

// TestOpenAPIOtherOrigin: an API whose document puts one operation on
// another origin (GitHub's release-asset upload on uploads.github.com)
// leaves it out, says so, and names the origin in its status; once the
// person lists that origin in the source's "origins" (the window's Serve
// them) it serves it: the operation is pinned as it is, not as a change
// (it was never on the API's origin), the call goes there with the
// connection's credentials, and its request as pinned names that server.
// The document's other tricks stay refused (a path that names a host).
// Taking the origin away stops it: the tool leaves the catalog and the
// other origin receives nothing more.
func TestOpenAPIOtherOrigin(t *testing.T) {
	other, otherLog := startLoggingServer(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"uploaded":true}`)
	}))
	api, apiLog := originTestAPI(t, other.URL)
	kc := &svcMemKeychain{m: map[string]string{}}
	values := map[string]string{"hk": "hk_" + strings.Repeat("4", 28), "qk": "qk_" + strings.Repeat("5", 28), "ck": "ck_" + strings.Repeat("6", 28)}
	for k, v := range values {
		kc.Set(config.SecretKey("api", "default", k), v)
	}
	conn := &config.Connection{Headers: map[string]string{"X-Api-Key": "${secret:hk}"}, Query: map[string]string{"key": "${secret:qk}"},
		Cookies: map[string]string{"sid": "${secret:ck}"}}
	src := &config.Source{OpenAPI: api.URL + "/openapi.json", Connections: map[string]*config.Connection{"default": conn}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})
	ctx := context.Background()
	warnings := func() string { return strings.Join(h.catalog.Warnings("api"), "\n") }

	leftOut := func(when string) {
		t.Helper()
		if _, ok := h.catalog.Snapshot().Lookup("api.elsewhere"); ok {
			t.Errorf("%s: api.elsewhere is listed", when)
		}
		if want := "skipped GET /elsewhere: its own server " + secrets.ShownOrigin(secrets.OriginOfURL(other.URL)) + " is not on the API's origin"; !strings.Contains(warnings(), want) {
			t.Errorf("%s: the listing does not say why: %q", when, warnings())
		}
		st, err := h.Status(ctx)
		if err != nil || len(st.Sources) != 1 || !slices.Equal(st.Sources[0].Elsewhere, []string{other.URL}) || st.Sources[0].API != api.URL {
			t.Errorf("%s: status %+v %v", when, st.Sources, err)
		}
		if env := execCode(t, h, `return await api.elsewhere({})`); env.Error == nil || !strings.Contains(env.Error.Message, `api has no tool named "elsewhere"`) {
			t.Errorf("%s: api.elsewhere runs: %s", when, envJSON(env))
		}
	}
	leftOut("at first")

	// The person serves it.
	if err := h.EditSource(ctx, "api", func(s *config.Source) bool { return s.AddOrigin(other.URL) }); err != nil {
		t.Fatal(err)
	}
	h.Refresh(ctx)
	tool, ok := h.catalog.Snapshot().Lookup("api.elsewhere")
	if !ok || tool.Request == nil || tool.Request.Server != other.URL || tool.Request.Path != "/elsewhere" || tool.Changed() {
		t.Fatalf("api.elsewhere is not listed as it is, with its own server %s: %+v", other.URL, tool)
	}
	if _, ok := h.catalog.Snapshot().Lookup("api.steal"); ok {
		t.Error("api.steal, whose path names a host, is listed")
	}
	if strings.Contains(warnings(), "/elsewhere") || !strings.Contains(warnings(), `skipped GET @127.0.0.2/steal: its path does not start with "/"`) {
		t.Errorf("warnings: %s", warnings())
	}
	env := execCode(t, h, `return await api.elsewhere({})`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"uploaded":true`) {
		t.Fatalf("the call: %s", envJSON(env))
	}
	for _, v := range values {
		if strings.Contains(envJSON(env), v) {
			t.Errorf("a secret reached the envelope: %s", envJSON(env))
		}
	}
	sent := otherLog.find("/elsewhere")
	if len(sent) != 1 || sent[0].Header.Get("X-Api-Key") != values["hk"] || !strings.Contains(sent[0].URI, "key="+values["qk"]) ||
		sent[0].Header.Get("Cookie") != "sid="+values["ck"] {
		t.Errorf("the other origin did not get one call with the connection's credentials: %+v", otherLog.all())
	}
	if got := apiLog.find("/elsewhere"); len(got) != 0 {
		t.Errorf("the API's origin got the call: %+v", got)
	}

	// The person takes the origin away.
	if err := h.EditSource(ctx, "api", func(s *config.Source) bool { s.Origins = nil; return true }); err != nil {
		t.Fatal(err)
	}
	h.Refresh(ctx)
	leftOut("taken away")
	if n := len(otherLog.all()); n != 1 {
		t.Errorf("the other origin received %d requests, want the one call", n)
	}
}
