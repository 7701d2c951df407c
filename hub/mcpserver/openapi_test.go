package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestOpenAPIOverMCP drives a petstore source through the hub's MCP server
// with the go-sdk client: search, a GET through execute, and a DELETE that
// asks.
func TestOpenAPIOverMCP(t *testing.T) {
	prism := hubtest.StartPrism(t, hubtest.PetstoreDoc(t))
	home := t.TempDir()
	saveConfig(t, home, &config.Config{Sources: map[string]*config.Source{"petstore": {OpenAPI: hubtest.PetstoreDoc(t), BaseURL: prism.URL}}, Policy: map[string]config.Mode{}})
	h := openHub(t, home, hub.Options{Keychain: &hubtest.MemKeychain{M: map[string]string{}}})
	if errs := h.Refresh(context.Background()); errs["petstore"] != nil {
		t.Fatalf("refresh petstore: %v", errs["petstore"])
	}
	cs := connect(t, h, "2025-11-25", nil)
	ctx := context.Background()
	call := func(tool string, args map[string]any) (string, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		var sc map[string]any
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			json.Unmarshal(b, &sc)
		}
		return text, sc
	}
	text, _ := call("search", map[string]any{"query": "order by id", "namespace": "petstore"})
	if !strings.Contains(text, "petstore.getOrderById(input: { orderId: number }): Promise<Order>") || !strings.Contains(text, "petstore.deleteOrder(input: { orderId: number }): Promise<unknown>   [asks]") {
		t.Errorf("search over MCP:\n%s", text)
	}
	_, sc := call("execute", map[string]any{"code": `return (await petstore.getOrderById({ orderId: 2 })).status;`})
	if sc["status"] != "completed" || sc["result"] == nil {
		t.Errorf("GET over MCP: %v", sc)
	}
	_, sc = call("execute", map[string]any{"code": `return await petstore.deleteOrder({ orderId: 2 });`})
	if sc["status"] != "awaiting_approval" {
		t.Errorf("DELETE over MCP asks: %v", sc)
	}
	if slices.Contains(prism.Requests(), "delete /store/order/2") {
		t.Errorf("the DELETE was sent before approval")
	}
}

// TestOpenAPIInDirectMode: in a direct-mode profile an OpenAPI source's
// operations are MCP tools like any other: a GET is listed read-only and
// returns what the API sent, a DELETE is listed as destructive, waits for
// the person without reaching the API, and is sent once after approval.
func TestOpenAPIInDirectMode(t *testing.T) {
	prism := hubtest.StartPrism(t, hubtest.PetstoreDoc(t))
	home := t.TempDir()
	saveConfig(t, home, &config.Config{
		Sources:  map[string]*config.Source{"petstore": {OpenAPI: hubtest.PetstoreDoc(t), BaseURL: prism.URL}},
		Policy:   map[string]config.Mode{},
		Profiles: map[string]*config.Profile{"pets": {Sources: []string{"petstore"}, Mode: config.ProfileDirect}},
	})
	h := openHub(t, home, hub.Options{Keychain: &hubtest.MemKeychain{M: map[string]string{}}})
	if errs := h.Refresh(context.Background()); errs["petstore"] != nil {
		t.Fatalf("refresh petstore: %v", errs["petstore"])
	}
	s := NewServers(h, Options{Version: "test"})
	t.Cleanup(s.Close)
	ctx := context.Background()
	cs := connectProfile(t, s, "pets", "direct-openapi", "", nil)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	get, del := byName["petstore__getOrderById"], byName["petstore__deleteOrder"]
	if get == nil || del == nil {
		t.Fatalf("tools %v; want petstore__getOrderById and petstore__deleteOrder", slices.Collect(func(yield func(string) bool) {
			for n := range byName {
				if !yield(n) {
					return
				}
			}
		}))
	}
	if get.Annotations == nil || !get.Annotations.ReadOnlyHint {
		t.Errorf("the GET is annotated %+v", get.Annotations)
	}
	if a := del.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("the DELETE asks but is annotated %+v", a)
	}
	var schema map[string]any
	if b, _ := json.Marshal(get.InputSchema); json.Unmarshal(b, &schema) != nil || !strings.Contains(string(b), "orderId") {
		t.Errorf("the GET's input schema does not name orderId: %s", b)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "petstore__getOrderById", Arguments: map[string]any{"orderId": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := json.Marshal(res.StructuredContent); res.IsError || len(res.Content) != 1 || resultText(res) != string(sc) || !strings.Contains(string(sc), `"status":"placed"`) {
		t.Errorf("the GET: isError %v, text %q, structured %s", res.IsError, resultText(res), sc)
	}
	if !slices.Contains(prism.Requests(), "get /store/order/2") {
		t.Errorf("the GET did not reach the API: %v", prism.Requests())
	}
	out, isErr := callText(t, cs, "petstore__deleteOrder", map[string]any{"orderId": 2})
	runID := regexp.MustCompile(`r_[A-Za-z0-9_-]+`).FindString(out)
	if isErr || runID == "" || slices.Contains(prism.Requests(), "delete /store/order/2") {
		t.Fatalf("the DELETE before approval: %q; requests %v", out, prism.Requests())
	}
	if _, err := h.ApproveRun(ctx, runID, hub.AllowOnce, "cli", "test"); err != nil {
		t.Fatal(err)
	}
	// The petstore's DELETE answers only 400 or 404: the API's error is
	// the call's, said without the sandbox's words.
	if out, isErr := callText(t, cs, "petstore__deleteOrder", map[string]any{"orderId": 2}); !isErr || !strings.HasPrefix(out, `ToolError: source "petstore": calling deleteOrder: HTTP 400`) {
		t.Errorf("the DELETE after approval: isError %v, %q", isErr, out)
	}
	n := 0
	for _, r := range prism.Requests() {
		if r == "delete /store/order/2" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the DELETE reached the API %d times, want once: %v", n, prism.Requests())
	}
}
