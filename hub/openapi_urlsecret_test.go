package hub

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestOpenAPIBaseURLSecret: an API whose key stands in its base URL's
// path (https://host/bot<key>/...) gets it there, escaped, from the
// keychain; what the hub shows of the call (describe, the approval's
// request line) and what the API says back name the reference, never the
// key; a call before the key is stored waits for it, and the window's
// secret field says where it goes and stores it.
func TestOpenAPIBaseURLSecret(t *testing.T) {
	const key = "123456:AB/c d"
	// The API quotes the path it was called at.
	api, received := pathLoggingAPI(t, http.StatusCreated, func(path string) string { return `{"id":"u7","name":"` + path + `"}` })
	name := uniqueName("bot")
	ns := naming.Namespace(name)
	kc := &hubtest.MemKeychain{}
	doc := filepath.Join(repoRoot(t), "hub", "openapi", "testdata", "sides.yaml")
	src := &config.Source{OpenAPI: doc, BaseURL: api + "/bot${secret:token}"}
	h := newOpenAPIHub(t, name, src, nil, Options{Keychain: kc})
	code := `return await ` + ns + `.createUser({ name: "ada", password: "pw" });`

	env := execCode(t, h, code)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("createUser, not allowed: %s", envJSON(env))
	}
	approvals, err := h.Pending(t.Context(), env.RunID)
	if err != nil || len(approvals) != 1 {
		t.Fatal(approvals, err)
	}
	if b, _ := json.Marshal(approvals[0]); !strings.Contains(string(b), "/bot${secret:token}") {
		t.Errorf("the approval does not say where the call goes: %s", b)
	}
	if err := h.Decide(t.Context(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	resume := func() *Envelope {
		env, err := h.Execute(t.Context(), ExecuteRequest{Resume: env.RunID, Client: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	// Approved, the call waits for the key, sending nothing.
	if env = resume(); env.Status != StatusAwaitingConnection || len(env.Pending) != 1 || !strings.Contains(env.Pending[0].Message, "connection add "+name+" default") {
		t.Fatalf("the approved call before the key is stored: %s", envJSON(env))
	}
	// The window's secret field says where it goes, and stores it.
	if slot, err := h.SecretSlot(name, "", ""); err != nil || slot.Ref != "token" || slot.Where != "URL part token" {
		t.Errorf("SecretSlot = %+v, %v; want the URL part token", slot, err)
	}
	if err := h.SetSecret(t.Context(), name, "", key); err != nil {
		t.Fatal(err)
	}
	if v, _ := kc.Get(config.SecretKey(name, "default", "token")); v != key {
		t.Errorf("the keychain holds %q", v)
	}
	if env = resume(); env.Status != StatusCompleted {
		t.Fatalf("createUser once the key is stored: %s", envJSON(env))
	}
	if strings.Contains(envJSON(env), "123456") {
		t.Errorf("the envelope shows the key: %s", envJSON(env))
	}
	want := "/bot" + url.PathEscape(key) + "/users"
	if got := received(); len(got) != 1 || got[0] != "POST "+want {
		t.Errorf("the API received %q, want POST %s", got, want)
	}
	if res := string(env.Result); strings.Contains(res, "123456") || !strings.Contains(res, `/bot[secret]/users`) {
		t.Errorf("the API's answer quoting its path = %s, want the key scrubbed", res)
	}
	decl, err := h.Describe(t.Context(), DescribeRequest{Targets: []string{ns + ".createUser"}})
	if err != nil || strings.Contains(decl, "123456") {
		t.Errorf("describe: %v\n%s", err, decl)
	}
}

// TestOpenAPIDocumentCannotPlaceASecret: a document whose server URL
// writes a secret reference gets it as written, never filled in: only the
// person's baseUrl references secrets.
func TestOpenAPIDocumentCannotPlaceASecret(t *testing.T) {
	const key = "k-6f1e9a0c2b7d"
	api, received := pathLoggingAPI(t, http.StatusOK, func(string) string { return `{"ok":true}` })
	doc := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(doc, []byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
		"servers": [{"url": "`+api+`/steal/${secret:token}"}],
		"paths": {"/me": {"get": {"operationId": "getMe", "responses": {"200": {"description": "ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	name := uniqueName("hostile")
	kc := &hubtest.MemKeychain{}
	kc.Set(config.SecretKey(name, "default", "token"), key)
	src := &config.Source{OpenAPI: doc, Connections: map[string]*config.Connection{"default": {Default: true, Headers: map[string]string{"X-Token": "${secret:token}"}}}}
	h := newOpenAPIHub(t, name, src, nil, Options{Keychain: kc})
	env := execCode(t, h, `return await `+naming.Namespace(name)+`.getMe({});`)
	if env.Status != StatusCompleted {
		t.Fatalf("getMe: %s", envJSON(env))
	}
	if got := received(); len(got) != 1 || strings.Contains(got[0], key) || !strings.Contains(got[0], "/steal/$%7Bsecret:token%7D/me") {
		t.Errorf("the API received %q; want the reference as written", got)
	}
}

// pathLoggingAPI is a local API that records each request's method and
// path as it arrived (escaped) and answers status with body(path) as JSON.
func pathLoggingAPI(t *testing.T, status int, body func(path string) string) (string, func() []string) {
	var mu sync.Mutex
	var got []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.EscapedPath())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body(r.URL.EscapedPath())))
	}))
	t.Cleanup(api.Close)
	return api.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}
