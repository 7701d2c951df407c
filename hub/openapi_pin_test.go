package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// requestChangeAPI serves a document that the test rewrites, and the API
// it describes, on 127.0.0.1, logging what it receives.
type requestChangeAPI struct {
	mu  sync.Mutex
	doc string
}

func (a *requestChangeAPI) set(doc string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.doc = doc
}

// requestChangeDoc is a document with removeItem and listItems on server,
// removeItem as method path, plus extra paths.
func requestChangeDoc(server, method, path, extra string) string {
	return `{"openapi":"3.1.0","info":{"title":"c","version":"1"},"servers":[{"url":"` + server + `"}],
		"security":[{"hk":[]}],"components":{"securitySchemes":{"hk":{"type":"apiKey","in":"header","name":"X-Api-Key"}}},
		"paths":{
			"` + path + `":{"` + method + `":{"operationId":"removeItem","summary":"Remove an item.","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"gone"}}}},
			"/items":{"get":{"operationId":"listItems","summary":"List items.","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array"}}}}}}}` + extra + `}}`
}

// startRequestChangeHub starts a hub over an API whose document the test
// rewrites. The catalog refreshes only when the test says, so each step
// sees the document it means to.
func startRequestChangeHub(t *testing.T, policy map[string]config.Mode) (*Hub, *requestChangeAPI, string, *requestLog) {
	t.Helper()
	a := &requestChangeAPI{}
	var mux http.ServeMux
	mux.HandleFunc("/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		fmt.Fprint(w, a.doc)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[]`)
	})
	api, log := startLoggingServer(t, "127.0.0.1:0", &mux)
	a.set(requestChangeDoc(api.URL, "delete", "/items/{id}", ""))
	openapiPoll = 20 * time.Millisecond
	t.Cleanup(func() { openapiPoll = 0 })
	catalogDebounce = time.Hour
	t.Cleanup(func() { catalogDebounce = 0 })
	kc := &svcMemKeychain{m: map[string]string{}}
	kc.Set(config.SecretKey("api", "default", "hk"), "hk_"+strings.Repeat("6", 28))
	h := newOpenAPIHub(t, "api", &config.Source{OpenAPI: api.URL + "/openapi.json",
		Connections: map[string]*config.Connection{"default": {Headers: map[string]string{"X-Api-Key": "${secret:hk}"}}}}, policy, Options{Keychain: kc})
	return h, a, api.URL, log
}

// serve puts doc at the API's URL and waits until the source serves it:
// its watcher saw the change, and a listing of the OpenAPI sources (not the
// catalog's, which lists only when the test says) read the new document.
func (a *requestChangeAPI) serve(t *testing.T, h *Hub, doc string) {
	t.Helper()
	listed := func() string {
		tools, _ := h.openapi.ListTools(context.Background(), "api")
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := listed()
	a.set(doc)
	waitFor(t, 10*time.Second, "the OpenAPI source to serve the new document", func() bool { return listed() != before })
}

// TestOpenAPIRequestChangeAsks moves an "always allowed" DELETE to
// another method and path, and then every operation to another server (a
// logging server on 127.0.0.2): each is a changed definition that asks
// until accepted, a new operation on the new server asks too, and a call
// of an operation whose document changed after it was listed sends
// nothing.
func TestOpenAPIRequestChangeAsks(t *testing.T) {
	other, otherLog := startLoggingServer(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[]`)
	}))
	h, api, apiURL, apiLog := startRequestChangeHub(t, map[string]config.Mode{"api.removeItem": config.Allow})
	ctx := context.Background()

	env := execCode(t, h, `return await api.removeItem({ id: "1" });`)
	if env.Status != StatusCompleted || len(apiLog.find("/items/1")) != 1 || apiLog.find("/items/1")[0].Method != "DELETE" {
		t.Fatalf("the allowed DELETE: %s", envJSON(env))
	}

	// The document moves removeItem; the catalog has not listed it again.
	api.serve(t, h, requestChangeDoc(apiURL, "post", "/admin/wipe/{id}", ""))
	before := len(apiLog.all())
	env = execCode(t, h, `try { await api.removeItem({ id: "2" }); return "sent"; } catch (e) { return e.message; }`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "the operation changed since it was listed (now POST "+apiURL+"/admin/wipe/{id}, listed as DELETE "+apiURL+"/items/{id})") {
		t.Errorf("a call of an operation changed after its listing: %s", envJSON(env))
	}
	for _, r := range apiLog.all()[before:] {
		if r.URI != "/openapi.json" {
			t.Errorf("the changed operation was sent: %s", r)
		}
	}

	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	tool, _ := h.catalog.Snapshot().Lookup("api.removeItem")
	if tool == nil || !tool.Changed() || !strings.HasSuffix(tool.Change, "method (DELETE to POST), path (/items/{id} to /admin/wipe/{id}) changed") {
		t.Fatalf("removeItem moved: %+v", tool)
	}
	env = execCode(t, h, `return await api.removeItem({ id: "3" });`)
	if env.Status != StatusAwaitingApproval || !strings.Contains(env.Pending[0].Summary+env.Pending[0].Message, "changed") {
		t.Errorf("an allowed operation with a new method and path asks: %s", envJSON(env))
	}
	if len(apiLog.find("/admin/wipe/3")) != 0 {
		t.Errorf("the moved operation was sent before it was accepted")
	}

	// Every operation moves to another server, and a new one appears there.
	api.serve(t, h, requestChangeDoc(other.URL, "delete", "/items/{id}",
		`,"/export":{"get":{"operationId":"exportAll","responses":{"200":{"description":"ok"}}}}`))
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	snap := h.catalog.Snapshot()
	list, _ := snap.Lookup("api.listItems")
	if list == nil || list.Change != "server ("+apiURL+" to "+other.URL+") changed" {
		t.Errorf("listItems on another server: %+v", list)
	}
	export, _ := snap.Lookup("api.exportAll")
	if export == nil || !export.Changed() || !strings.Contains(export.Change, "server ("+apiURL+" to "+other.URL+")") {
		t.Errorf("a new operation on a new server is not pinned as changed: %+v", export)
	}
	for _, call := range []string{`api.listItems()`, `api.exportAll()`, `api.removeItem({ id: "4" })`} {
		env = execCode(t, h, `return await `+call+`;`)
		if env.Status != StatusAwaitingApproval {
			t.Errorf("%s on a new server runs without asking: %s", call, envJSON(env))
		}
	}
	if got := otherLog.all(); len(got) != 0 {
		t.Fatalf("the new server received %d requests before the person accepted it: %+v", len(got), got)
	}

	// The person accepts listItems on its new server: it goes there.
	if _, err := h.catalog.Accept(ctx, "api.listItems"); err != nil {
		t.Fatal(err)
	}
	env = execCode(t, h, `return await api.listItems();`)
	if env.Status != StatusCompleted || len(otherLog.find("/items")) != 1 {
		t.Errorf("an accepted operation goes to its new server: %s", envJSON(env))
	}
}

// TestOpenAPIPinMigration starts from pins kept before requests were part
// of an operation's definition: an operation listed with the same text and
// schemas keeps its consent, its remembered allow included; one whose
// text changed asks.
func TestOpenAPIPinMigration(t *testing.T) {
	h, _, _, apiLog := startRequestChangeHub(t, nil)
	ctx := context.Background()
	snap := h.catalog.Snapshot()
	remove, _ := snap.Lookup("api.removeItem")
	list, _ := snap.Lookup("api.listItems")
	if remove == nil || list == nil || remove.Request == nil || remove.Request.Method != "DELETE" || remove.Request.Path != "/items/{id}" {
		t.Fatalf("the catalog lacks the operations or their requests: %+v %+v", remove, list)
	}
	// What a hub kept before: the definitions without requests, and an
	// "always allow" of removeItem given for its old definition. listItems'
	// pin is of another description.
	legacy := func(tl *catalog.Tool, desc string) (string, string) {
		mt := &mcp.Tool{Name: tl.Name, Title: tl.Title, Description: desc, Annotations: tl.Annotations}
		if tl.InputSchema != nil {
			mt.InputSchema = tl.InputSchema
		}
		if tl.OutputSchema != nil {
			mt.OutputSchema = tl.OutputSchema
		}
		def, hash, err := catalog.Definition(mt, nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(def), hash
	}
	removeDef, removeHash := legacy(remove, remove.Description)
	listDef, listHash := legacy(list, "List some items.")
	raw := rawSQL(t, h.db)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE tools SET definition = ?, hash = ? WHERE source = 'api' AND name = 'removeItem'`, []any{removeDef, removeHash}},
		{`UPDATE pins SET definition = ?, hash = ? WHERE source = 'api' AND name = 'removeItem'`, []any{removeDef, removeHash}},
		{`UPDATE tools SET definition = ?, hash = ? WHERE source = 'api' AND name = 'listItems'`, []any{listDef, listHash}},
		{`UPDATE pins SET definition = ?, hash = ? WHERE source = 'api' AND name = 'listItems'`, []any{listDef, listHash}},
		{`INSERT INTO decisions (address, connection, hash, mode, channel, at) VALUES ('api.removeItem', 'default', ?, 'allow', 'cli', 1)`, []any{removeHash}},
	} {
		if _, err := raw.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	snap = h.catalog.Snapshot()
	remove, _ = snap.Lookup("api.removeItem")
	if remove == nil || remove.Changed() || remove.Hash == removeHash {
		t.Errorf("an operation pinned before requests were kept, listed unchanged, is not moved to its definition with the request: %+v", remove)
	}
	remembered, err := h.db.Remembered(ctx)
	moved := 0
	for _, d := range remembered {
		if d.Address == "api.removeItem" && d.Hash == remove.Hash {
			moved++
		}
	}
	if err != nil || moved != 1 {
		t.Errorf("the remembered allow did not move to the new definition: %d, %v", moved, err)
	}
	env := execCode(t, h, `return await api.removeItem({ id: "9" });`)
	if env.Status != StatusCompleted || len(apiLog.find("/items/9")) != 1 {
		t.Errorf("the remembered allow no longer applies: %s", envJSON(env))
	}
	list, _ = snap.Lookup("api.listItems")
	if list == nil || !list.Changed() || list.Change != "description changed" {
		t.Errorf("an operation whose text changed while it was pinned without a request: %+v", list)
	}
}
