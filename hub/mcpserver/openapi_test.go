package mcpserver

import (
	"context"
	"encoding/json"
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
