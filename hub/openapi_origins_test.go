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
// serves it once the person lists that origin in the source's "origins":
// the call goes there, with the connection's credentials, and its request
// as pinned names that server. The document's other tricks stay refused
// (a path that names a host). Taking the origin away stops it: the tool
// leaves the catalog and the other origin receives nothing more.
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
	src := &config.Source{OpenAPI: api.URL + "/openapi.json", Origins: []string{other.URL}, Connections: map[string]*config.Connection{"default": conn}}
	h := newOpenAPIHub(t, "api", src, nil, Options{Keychain: kc})

	tool, ok := h.catalog.Snapshot().Lookup("api.elsewhere")
	if !ok || tool.Request == nil || tool.Request.Server != other.URL || tool.Request.Path != "/elsewhere" {
		t.Fatalf("api.elsewhere is not listed with its own server %s: %+v", other.URL, tool)
	}
	if _, ok := h.catalog.Snapshot().Lookup("api.steal"); ok {
		t.Error("api.steal, whose path names a host, is listed")
	}
	warnings := strings.Join(h.catalog.Warnings("api"), "\n")
	if strings.Contains(warnings, "/elsewhere") || !strings.Contains(warnings, `skipped GET @127.0.0.2/steal: its path does not start with "/"`) {
		t.Errorf("warnings: %s", warnings)
	}

	env := execCode(t, h, `return await api.elsewhere({})`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"uploaded":true`) {
		t.Fatalf("the call: %s", envJSON(env))
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
	cfg := h.Config()
	cfg.Sources["api"].Origins = nil
	if err := h.SaveConfig(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(context.Background()); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	if _, ok := h.catalog.Snapshot().Lookup("api.elsewhere"); ok {
		t.Error("api.elsewhere is still listed")
	}
	if env := execCode(t, h, `return await api.elsewhere({})`); env.Error == nil || !strings.Contains(env.Error.Message, `api has no tool named "elsewhere"`) {
		t.Errorf("api.elsewhere still runs: %s", envJSON(env))
	}
	if want := "skipped GET /elsewhere: its own server " + secrets.ShownOrigin(secrets.OriginOfURL(other.URL)) + " is not on the API's origin"; !strings.Contains(strings.Join(h.catalog.Warnings("api"), "\n"), want) {
		t.Errorf("the listing does not say why: %q", h.catalog.Warnings("api"))
	}
	if n := len(otherLog.all()); n != 1 {
		t.Errorf("the other origin received %d requests, want the one call", n)
	}

	// The window's status names the origin, and its button allows it
	// again.
	st, err := h.Status(context.Background())
	if err != nil || len(st.Sources) != 1 || !slices.Equal(st.Sources[0].Elsewhere, []string{secrets.OriginOfURL(other.URL)}) || st.Sources[0].API != api.URL {
		t.Fatalf("status: %+v %v", st.Sources, err)
	}
	if err := h.EditSource(context.Background(), "api", func(s *config.Source) bool { return s.AddOrigin(st.Sources[0].Elsewhere[0]) }); err != nil {
		t.Fatal(err)
	}
	h.Refresh(context.Background())
	if _, ok := h.catalog.Snapshot().Lookup("api.elsewhere"); !ok || !slices.Equal(h.Config().Sources["api"].Origins, []string{other.URL}) {
		t.Errorf("allowed again: listed %v, origins %q", ok, h.Config().Sources["api"].Origins)
	}
}
