package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

// TestResumeRightAfterConnectionAdd: a run waiting for an API key resumes
// at once after `capabilities connection add` stored it, through the CLI
// and the running hub's local API, without waiting for the hub to notice
// the new config.json on its own. The API (on loopback) logs the key it
// received: the one added.
func TestResumeRightAfterConnectionAdd(t *testing.T) {
	requireKeychain(t)
	var mu sync.Mutex
	var keys []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		if r.Header.Get("X-Api-Key") == "" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"title":"first note"}]`)
	}))
	t.Cleanup(api.Close)
	doc := filepath.Join(t.TempDir(), "notes.json")
	spec := `{"openapi": "3.1.0", "info": {"title": "notes", "version": "1"}, "servers": [{"url": "` + api.URL + `"}],
		"security": [{"key": []}],
		"components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
		"paths": {"/notes": {"get": {"operationId": "listNotes", "responses": {"200": {"description": "the notes",
			"content": {"application/json": {"schema": {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}}}}}}}}}}}`
	if err := os.WriteFile(doc, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, 0)
	homeKeychain(t, w.home) // its entries go when the test ends
	path := filepath.Join(w.home, "config.json")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sources["notes"] = &config.Source{OpenAPI: doc}
	if err := cfg.Save(path); err != nil {
		t.Fatal(err)
	}
	w.startHub()

	envelope := func(stdout, stderr string, _ int) hub.Envelope {
		t.Helper()
		var env hub.Envelope
		if err := json.Unmarshal([]byte(stdout), &env); err != nil {
			t.Fatalf("not an envelope: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		return env
	}
	env := envelope(w.cli(`return await notes.listNotes({})`, "execute", "-", "--json"))
	if env.Status != hub.StatusAwaitingConnection || env.RunID == "" {
		t.Fatalf("first attempt: %+v; want it to await the API key", env)
	}
	if out, errOut, code := w.cli("k3y-for-notes\n", "connection", "add", "notes", "default", "--header", "X-Api-Key"); code != 0 {
		t.Fatalf("connection add: exit %d\n%s%s", code, out, errOut)
	}
	env = envelope(w.cli("", "execute", "--resume", env.RunID, "--json"))
	if env.Status != hub.StatusCompleted || !strings.Contains(string(env.Result), "first note") {
		t.Fatalf("resume right after connection add: %s %s %+v; want it completed", env.Status, env.Result, env.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 1 || keys[0] != "k3y-for-notes" {
		t.Errorf("the API received keys %q; want one request with the key added", keys)
	}
}
