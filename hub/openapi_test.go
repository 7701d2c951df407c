package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// newOpenAPIHub starts a hub whose only source is an OpenAPI source.
func newOpenAPIHub(t testing.TB, name string, src *config.Source, policy map[string]config.Mode, opts Options) *Hub {
	t.Helper()
	home := t.TempDir()
	if policy == nil {
		policy = map[string]config.Mode{}
	}
	cfg := &config.Config{Sources: map[string]*config.Source{name: src}, Policy: policy}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	opts.Home = home
	if opts.ConfigPoll == 0 {
		opts.ConfigPoll = -1
	}
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); errs[name] != nil {
		t.Fatalf("refresh %s: %v", name, errs[name])
	}
	return h
}

func execCode(t testing.TB, h *Hub, code string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: code, Client: "test"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return env
}

func resumeCode(t testing.TB, h *Hub, id string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Resume: id, Client: "test"})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	return env
}

func envJSON(env *Envelope) string {
	b, _ := json.Marshal(env)
	return string(b)
}

// TestOpenAPIPetstore drives the petstore description through a Prism mock
// that refuses requests breaking it: listing, describe, a GET that runs
// without asking, a POST with a body, a 400, a DELETE that asks, and an
// operation that needs an API key, without and then with its connection.
func TestOpenAPIPetstore(t *testing.T) {
	kc := requireTestKeychain(t)
	prism := hubtest.StartPrism(t, hubtest.PetstoreDoc(t))
	name := uniqueName("petstore")
	ns := naming.Namespace(name)
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: hubtest.PetstoreDoc(t), BaseURL: prism.URL},
		map[string]config.Mode{ns + ".placeOrder": config.Allow}, Options{Keychain: kc})
	ctx := context.Background()

	snap := h.catalog.Snapshot()
	if n := len(snap.BySource(name)); n != 20 {
		t.Fatalf("petstore has 20 operations; the catalog lists %d", n)
	}
	get, ok := snap.Lookup(ns + ".getOrderById")
	if !ok {
		t.Fatalf("no %s.getOrderById in the catalog", ns)
	}
	if get.Annotations == nil || !get.Annotations.ReadOnlyHint || !get.Annotations.IdempotentHint {
		t.Errorf("a GET is read-only and idempotent: %+v", get.Annotations)
	}
	del, _ := snap.Lookup(ns + ".deleteOrder")
	if del == nil || del.Annotations.ReadOnlyHint || del.Annotations.DestructiveHint == nil || !*del.Annotations.DestructiveHint {
		t.Errorf("a DELETE is destructive: %+v", del)
	}
	found, err := h.Search(ctx, SearchRequest{Query: "find purchase order by id", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(found, ns+".getOrderById(input: { orderId: number }): Promise<Order>") {
		t.Errorf("search does not show getOrderById with its typed result:\n%s", found)
	}
	decl, err := h.Describe(ctx, DescribeRequest{Targets: []string{ns + ".placeOrder"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"placeOrder(input", "shipDate?: string", `status?: "placed" | "approved" | "delivered"`, "Promise<" + ns + ".Order>"} {
		if !strings.Contains(decl, want) {
			t.Errorf("describe lacks %q:\n%s", want, decl)
		}
	}

	t.Run("get runs without asking", func(t *testing.T) {
		env := execCode(t, h, `const o = await `+ns+`.getOrderById({ orderId: 3 }); return { id: typeof o.id, status: o.status };`)
		if env.Status != StatusCompleted {
			t.Fatalf("GET: %s", envJSON(env))
		}
		if got := string(env.Result); !strings.Contains(got, `"id":"number"`) {
			t.Errorf("the result is not the parsed JSON order: %s", got)
		}
		// Prism logs a request on its own time, after it answered it.
		if !testwait.Until(10*time.Second, func() bool { return slices.Contains(prism.Requests(), "get /store/order/3") }) {
			t.Errorf("prism did not see the GET: %v", prism.Requests())
		}
	})

	t.Run("post with a body", func(t *testing.T) {
		env := execCode(t, h, `return await `+ns+`.placeOrder({ petId: 7, quantity: 2, shipDate: "2026-12-01T10:00:00Z", status: "placed" });`)
		if env.Status != StatusCompleted {
			t.Fatalf("POST: %s", envJSON(env))
		}
		var order map[string]any
		if err := json.Unmarshal(env.Result, &order); err != nil || order["id"] == nil {
			t.Errorf("the POST's result is not an order: %s", env.Result)
		}
	})

	t.Run("400 on bad input", func(t *testing.T) {
		// "yesterday" is a string, as the schema says, but not the
		// date-time its format asks for: the API refuses it.
		env := execCode(t, h, `try { await `+ns+`.placeOrder({ petId: 7, shipDate: "yesterday" }); return "sent"; }
			catch (e) { return { code: e.code, status: e.status, retryable: e.retryable, message: e.message }; }`)
		if env.Status != StatusCompleted {
			t.Fatalf("run: %s", envJSON(env))
		}
		var te struct {
			Code      string
			Status    int
			Retryable bool
			Message   string
		}
		json.Unmarshal(env.Result, &te)
		if te.Status != 400 || te.Retryable || te.Code != CodeUpstreamError || !strings.Contains(te.Message, "HTTP 400") {
			t.Errorf("a 400 is a ToolError with status 400, not retryable: %s", env.Result)
		}
	})

	t.Run("delete asks", func(t *testing.T) {
		before := len(prism.Requests())
		env := execCode(t, h, `return await `+ns+`.deleteOrder({ orderId: 4 });`)
		if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 || env.Pending[0].Address != ns+".deleteOrder" {
			t.Fatalf("a DELETE asks: %s", envJSON(env))
		}
		// Prism may log an earlier subtest's request late: only a
		// DELETE would be this one.
		if got := prism.Requests()[before:]; slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, "delete ") }) {
			t.Errorf("the DELETE was sent before approval: %v", got)
		}
		if _, err := h.ApproveRun(ctx, env.RunID, "allow_once", "cli", "test"); err != nil {
			t.Fatal(err)
		}
		env = resumeCode(t, h, env.RunID)
		// The document gives deleteOrder no 2xx answer, only 400 and 404:
		// Prism answers with the first.
		if env.Status != StatusFailed || env.Error == nil || !strings.Contains(env.Error.Message, "HTTP 400") {
			t.Fatalf("approved DELETE: %s", envJSON(env))
		}
		// Prism logs a request on its own time, after it answered it.
		if !testwait.Until(10*time.Second, func() bool { return slices.Contains(prism.Requests(), "delete /store/order/4") }) {
			t.Errorf("prism did not see the DELETE: %v", prism.Requests())
		}
	})

	t.Run("api key connection", func(t *testing.T) {
		before := len(prism.Requests())
		env := execCode(t, h, `const p = await `+ns+`.getPetById({ petId: 1 }); return p.name;`)
		if env.Status != StatusAwaitingConnection || len(env.Pending) != 1 {
			t.Fatalf("without an api_key connection the call waits for one: %s", envJSON(env))
		}
		msg := env.Pending[0].Message
		if !strings.Contains(msg, "capabilities connection add "+name+" default --header api_key") || !strings.Contains(msg, "never ask for it in chat") {
			t.Errorf("the model is not told how the user adds the key: %s", msg)
		}
		if got := prism.Requests()[before:]; slices.Contains(got, "get /pet/1") {
			t.Errorf("a request left before the connection existed: %v", got)
		}
		// Still waiting on resume while there is no connection.
		if env2 := resumeCode(t, h, env.RunID); env2.Status != StatusAwaitingConnection {
			t.Fatalf("resume without the connection: %s", envJSON(env2))
		}
		// The person adds it, as `connection add NAME default --header api_key` does.
		path := h.Paths().Config()
		c2, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c2.Sources[name].Connections = map[string]*config.Connection{"default": {Headers: map[string]string{"api_key": "${secret:api_key}"}}}
		if err := c2.Save(path); err != nil {
			t.Fatal(err)
		}
		secret := "pk_live_" + strings.Repeat("7", 24)
		storeTestSecret(t, kc, config.SecretKey(name, "default", "api_key"), secret)
		if err := h.ReloadConfig(ctx); err != nil {
			t.Fatal(err)
		}
		env = resumeCode(t, h, env.RunID)
		if env.Status != StatusCompleted {
			t.Fatalf("with the connection: %s", envJSON(env))
		}
		if !slices.Contains(prism.Requests(), "get /pet/1") {
			t.Errorf("prism did not see the GET: %v", prism.Requests())
		}
		if strings.Contains(envJSON(env), secret) {
			t.Errorf("the secret reached the envelope")
		}
	})
}

// gatedOpenAPI makes every call of the heart and of Upstreams into the
// OpenAPI sources wait at a gate, a lock a test can hold, before it
// enters them. The gate is not held while the call runs: the sources call
// back into Upstreams, which asks them for a state.
type gatedOpenAPI struct {
	openAPI
	gate *sync.Mutex
}

// pass waits until the gate is open.
func (g gatedOpenAPI) pass() {
	g.gate.Lock()
	g.gate.Unlock()
}

func (g gatedOpenAPI) SetConfig(cfg *config.Config) {
	g.pass()
	g.openAPI.SetConfig(cfg)
}

func (g gatedOpenAPI) ListTools(ctx context.Context, source string) ([]*mcp.Tool, error) {
	g.pass()
	return g.openAPI.ListTools(ctx, source)
}

func (g gatedOpenAPI) Call(ctx context.Context, source, conn, name string, args json.RawMessage, listed *upstream.RESTRequest) (*mcp.CallToolResult, error) {
	g.pass()
	return g.openAPI.Call(ctx, source, conn, name, args, listed)
}

func (g gatedOpenAPI) State(source string) upstream.SourceState {
	g.pass()
	return g.openAPI.State(source)
}

func (g gatedOpenAPI) Close() error {
	g.pass()
	return g.openAPI.Close()
}

func (g gatedOpenAPI) AuthNeed(source, tool, conn string) string {
	g.pass()
	return g.openAPI.AuthNeed(source, tool, conn)
}

// TestMCPCallEntersNoOpenAPICode runs a call of an MCP tool on a hub that
// also serves an OpenAPI source, while the gate in front of the OpenAPI
// sources is shut. The hub holds them only through the gate, and
// everything of hub/openapi that a call could reach (the heart's AuthNeed,
// and SetConfig, ListTools, Call, State and Close through Upstreams'
// Backend) waits there, so the run finishes only if its call goes from the
// heart to the upstream session and back without entering OpenAPI code.
func TestMCPCallEntersNoOpenAPICode(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],
		"components":{"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Key"}}},"security":[{"key":[]}],
		"paths":{"/things":{"get":{"operationId":"listThings","responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"fake": fakeSource("crash", nil), "api": {OpenAPI: doc}},
		Policy: map[string]config.Mode{"fake.echo": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gate := &sync.Mutex{}
	wrapOpenAPI = func(o openAPI) openAPI { return gatedOpenAPI{o, gate} }
	h, err := New(ctx, Options{Home: home, ConfigPoll: -1})
	wrapOpenAPI = nil
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatalf("refresh: %v", errs)
	}
	// The OpenAPI source is served, through the gate: its operation waits
	// for its API key.
	if need := h.openapi.AuthNeed("api", "listThings", ""); !strings.Contains(need, "X-Key") {
		t.Fatalf("the operation's need: %q", need)
	}

	if _, ok := h.openapi.(gatedOpenAPI); !ok {
		t.Fatalf("the hub holds %T, not the gated OpenAPI sources", h.openapi)
	}
	gate.Lock()
	done := make(chan *Envelope, 1)
	go func() {
		env, err := h.Execute(ctx, ExecuteRequest{Code: `return await fake.echo({ message: "hi" });`, Client: "test"})
		if err != nil {
			t.Errorf("Execute: %v", err)
		}
		done <- env
	}()
	var env *Envelope
	select {
	case env = <-done:
		gate.Unlock()
	case <-time.After(time.Minute):
		gate.Unlock()
		<-done
		t.Fatal("the MCP call waited at the gate of the OpenAPI sources")
	}
	if env == nil || env.Status != StatusCompleted || !strings.Contains(string(env.Result), "hi") {
		t.Fatalf("the MCP call: %s", envJSON(env))
	}
}
