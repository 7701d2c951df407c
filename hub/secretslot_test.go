package hub

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// TestSetSecretGivesASourceItsFirstConnection stores the secret an
// OpenAPI source with no connection waits for, as the window's secret
// field does: the pending input says which header the secret fills, the
// source gets its default connection, "default", referencing it in that
// header, and the resumed call sends it. An API key goes in its header;
// an OAuth scheme's access token goes in Authorization as a bearer token,
// since an OpenAPI source has no sign-in to offer.
func TestSetSecretGivesASourceItsFirstConnection(t *testing.T) {
	for _, tc := range []struct {
		name, scheme       string
		header, prefix     string
		where, ref, config string
	}{
		{"api key", `{"type":"apiKey","in":"header","name":"X-Key"}`, "X-Key", "", "header X-Key", "X-Key", "${secret:X-Key}"},
		{"oauth", `{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://auth.example.test/token","scopes":{}}}}`,
			"Authorization", "Bearer ", "header Authorization", "Authorization", "Bearer ${secret:Authorization}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const key = "k_" + "0123456789abcdef0123"
			var mux http.ServeMux
			mux.HandleFunc("/things", func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get(tc.header) != tc.prefix+key {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `["one"]`)
			})
			api, _ := startLoggingServer(t, "127.0.0.1:0", &mux)
			doc := filepath.Join(t.TempDir(), "api.json")
			if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"`+api.URL+`"}],
		"components":{"securitySchemes":{"key":`+tc.scheme+`}},"security":[{"key":[]}],
		"paths":{"/things":{"get":{"operationId":"listThings","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array"}}}}}}}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			kc := &svcMemKeychain{m: map[string]string{}}
			h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: doc}, nil, Options{Keychain: kc})
			ctx := context.Background()

			env := execCode(t, h, `return await api.listThings();`)
			if env.Status != StatusAwaitingConnection && env.Status != StatusAwaitingApproval {
				t.Fatalf("a call without the secret: %s", envJSON(env))
			}
			pend, err := h.Pending(ctx, env.RunID)
			if err != nil {
				t.Fatal(err)
			}
			var input *Approval
			for i := range pend {
				if pend[i].Kind == KindConnection {
					input = &pend[i]
				}
			}
			if input == nil {
				t.Fatalf("no connection input among %+v", pend)
			}
			if input.Connection != "" || input.SecretWhere != tc.where || input.SignIn {
				t.Errorf("the input: connection %q, secret for %q, sign-in %v; want no connection yet, %s", input.Connection, input.SecretWhere, input.SignIn, tc.where)
			}

			if err := h.SetSecret(ctx, "api", "", key); err != nil {
				t.Fatalf("SetSecret on a source with no connection: %v", err)
			}
			cfg, err := config.Load(h.paths.Config())
			if err != nil {
				t.Fatal(err)
			}
			c := cfg.Sources["api"].Connections["default"]
			if c == nil || c.Headers[tc.header] != tc.config || cfg.Sources["api"].DefaultConnection() != "default" {
				t.Fatalf("the source's connections after SetSecret: %+v", cfg.Sources["api"].Connections)
			}
			if got, _ := kc.Get(config.SecretKey("api", "default", tc.ref)); got != key {
				t.Errorf("the keychain holds %q for the new connection", got)
			}
			slot, err := h.SecretSlot("api", "", "listThings")
			if err != nil || slot.Connection != "default" || slot.Where != tc.where || slot.Ref != tc.ref {
				t.Errorf("the slot once the connection exists: %+v, %v", slot, err)
			}

			env = resumeCode(t, h, env.RunID)
			for env.Status == StatusAwaitingApproval {
				pend, _ := h.Pending(ctx, env.RunID)
				for _, p := range pend {
					if err := h.Decide(ctx, p.ID, AllowOnce, "cli", "test"); err != nil {
						t.Fatal(err)
					}
				}
				env = resumeCode(t, h, env.RunID)
			}
			if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "one") {
				t.Fatalf("the resumed call with the stored secret: %s", envJSON(env))
			}
		})
	}
}

// TestSecretSlotSaysWhereASecretGoes: a reference in a connection's
// environment, in a source's header, and a stdio source that references
// none, which the hub cannot place.
func TestSecretSlotSaysWhereASecretGoes(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{}, nil)
	cfg := &config.Config{Sources: map[string]*config.Source{
		"gh": {Command: "gh-mcp", Connections: map[string]*config.Connection{
			"work": {Env: map[string]string{"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}},
		}},
		"notes":  {URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer ${secret:token}"}},
		"plain":  {Command: "plain-mcp"},
		"shared": {URL: "http://127.0.0.1:9/mcp", Connections: map[string]*config.Connection{"a": {}, "b": {}}},
	}}
	for _, tc := range []struct {
		source, conn string
		want         SecretSlot
		err          string
	}{
		{source: "gh", want: SecretSlot{Connection: "work", Ref: "GITHUB_TOKEN", Where: "environment variable GITHUB_TOKEN"}},
		{source: "notes", want: SecretSlot{Connection: "default", Ref: "token", Where: "header Authorization"}},
		{source: "plain", err: "capabilities connection add plain default --env VAR"},
		{source: "shared", err: "several connections and none is the default"},
		{source: "nope", err: `no source named "nope"`},
	} {
		got, err := h.secretSlot(cfg, tc.source, tc.conn, "")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.source, err, tc.err)
			}
			continue
		}
		if err != nil || got.Connection != tc.want.Connection || got.Ref != tc.want.Ref || got.Where != tc.want.Where || got.SignIn || got.put != nil {
			t.Errorf("%s: %+v, %v; want %+v", tc.source, got, err, tc.want)
		}
	}
}

// TestPendingShowsTheChangedDefinition: an approval asked because an
// operation moved carries its request and the accepted and current
// definitions, for the dialog's diff.
func TestPendingShowsTheChangedDefinition(t *testing.T) {
	h, api, apiURL, _ := startRequestChangeHub(t, map[string]config.Mode{"api.removeItem": config.Allow})
	ctx := context.Background()
	if env := execCode(t, h, `return await api.removeItem({ id: "1" });`); env.Status != StatusCompleted {
		t.Fatalf("the allowed DELETE: %s", envJSON(env))
	}
	api.serve(t, h, requestChangeDoc(apiURL, "post", "/admin/wipe/{id}", ""))
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	env := execCode(t, h, `return await api.removeItem({ id: "3" });`)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("the moved operation: %s", envJSON(env))
	}
	pend, err := h.Pending(ctx, env.RunID)
	if err != nil || len(pend) != 1 {
		t.Fatalf("pending: %+v, %v", pend, err)
	}
	a := pend[0]
	if a.Request == nil || a.Request.Method != "POST" || a.Request.Server+a.Request.Path != apiURL+"/admin/wipe/{id}" {
		t.Errorf("the approval's request: %+v", a.Request)
	}
	if a.Change == "" || !strings.Contains(a.DefinitionWas, `"path":"/items/{id}"`) || !strings.Contains(a.DefinitionIs, `"path":"/admin/wipe/{id}"`) {
		t.Errorf("the approval's definitions:\nwas %s\nis  %s", a.DefinitionWas, a.DefinitionIs)
	}
}

// TestSetSecretNamesASourcesFirstConnection: the window's form names the
// first connection of a source that has none; a second, unknown name is
// refused as before.
func TestSetSecretNamesASourcesFirstConnection(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],
		"components":{"securitySchemes":{"q":{"type":"apiKey","in":"query","name":"api_key"}}},"security":[{"q":[]}],
		"paths":{"/things":{"get":{"operationId":"listThings","responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := &svcMemKeychain{m: map[string]string{}}
	h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: doc}, nil, Options{Keychain: kc})
	ctx := context.Background()
	if err := h.SetSecret(ctx, "api", "work", "k_first"); err != nil {
		t.Fatalf("the first connection, named: %v", err)
	}
	s := h.Config().Sources["api"]
	if c := s.Connections["work"]; c == nil || c.Query["api_key"] != "${secret:api_key}" || s.DefaultConnection() != "work" {
		t.Errorf("connections after SetSecret: %+v", s.Connections)
	}
	if got, _ := kc.Get(config.SecretKey("api", "work", "api_key")); got != "k_first" {
		t.Errorf("the keychain holds %q", got)
	}
	if err := h.SetSecret(ctx, "api", "other", "k_second"); err == nil || !strings.Contains(err.Error(), `has no connection "other"`) {
		t.Errorf("a second, unknown connection: %v", err)
	}
}
