package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// The structured content of a result reaches the hub with the numbers the
// server wrote, over stdio and over HTTP (a JSON response and an event
// stream), not as the go-sdk client decodes them.
func TestUpstreamStructuredContentExact(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "numbers", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "big_number", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(hubtest.BigNumbers), Content: []mcp.Content{&mcp.TextContent{Text: "see the structured content"}}}, nil
		})
	serve := func(jsonResponse bool) string {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	u := newTestUpstreams(t, Options{}, hubtest.Config(map[string]*config.Source{
		"stdio": hubtest.FakeSource("leaky", nil),
		"json":  {URL: serve(true)},
		"sse":   {URL: serve(false)},
	}))
	for _, src := range []string{"stdio", "json", "sse"} {
		// Several at once: each call gets its own result.
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				res, err := u.Call(ctx, src, "", "big_number", nil)
				if err != nil {
					errs <- err
					return
				}
				got, err := json.Marshal(res.StructuredContent)
				if err == nil && string(got) != hubtest.BigNumbers {
					t.Errorf("%s: structured content = %s, want %s", src, got, hubtest.BigNumbers)
				}
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("%s: %v", src, err)
			}
		}
	}
}
