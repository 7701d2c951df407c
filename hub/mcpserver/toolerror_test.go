package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

// TestToolErrorStatus: a ToolError carries the upstream's HTTP status when
// an HTTP source answers a call with an error status, and the JSON-RPC
// error code when the upstream answers with one.
func TestToolErrorStatus(t *testing.T) { bothVersions(t, testToolErrorStatus) }

func testToolErrorStatus(t *testing.T, version string) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "statuses", Version: "1"}, nil)
	for _, name := range []string{"forbidden", "quota"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reached the tool"}}}, nil, nil
		})
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	// In front of the real server: tools/call of "forbidden" gets HTTP 403,
	// of "quota" a JSON-RPC error -32029 in a 200 answer.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		if msg.Method == "tools/call" {
			switch msg.Params.Name {
			case "forbidden":
				http.Error(w, "not for you", http.StatusForbidden)
				return
			case "quota":
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32029,"message":"quota exceeded"}}`, msg.ID)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	h := hubWith(t, map[string]*config.Source{"statuses": {URL: ts.URL}}, nil)
	cs := connect(t, h, version, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": `const out = {};
for (const name of ["quota", "forbidden"]) {
	try { await statuses[name]({}); out[name] = "called"; } catch (e) { out[name] = [e.code, e.status]; }
}
return out;`}})
	if err != nil {
		t.Fatal(err)
	}
	var env hub.Envelope
	if err := json.Unmarshal([]byte(resultText(res)), &env); err != nil || env.Status != hub.StatusCompleted {
		t.Fatalf("%s", resultText(res))
	}
	var out map[string][2]any
	json.Unmarshal(env.Result, &out)
	if got := out["quota"]; got[0] != hub.CodeUpstreamError || got[1] != float64(-32029) {
		t.Errorf("a JSON-RPC error: %v; want [%s -32029]", got, hub.CodeUpstreamError)
	}
	if got := out["forbidden"]; got[1] != float64(http.StatusForbidden) {
		t.Errorf("an HTTP 403: %v; want status 403", got)
	}
}
