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

// exactSources are three sources of the same tools: the leaky fake over
// stdio, and server over streamable HTTP answering with JSON ("json") and
// with an event stream ("sse").
func exactSources(t *testing.T, server *mcp.Server) *Upstreams {
	serve := func(jsonResponse bool) string {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL
	}
	return newTestUpstreams(t, Options{}, hubtest.Config(map[string]*config.Source{
		"stdio": hubtest.FakeSource("leaky", nil),
		"json":  {URL: serve(true)},
		"sse":   {URL: serve(false)},
	}))
}

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
	u := exactSources(t, server)
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

// A listing reaches the hub with each tool's schemas as the server wrote
// them, their properties in their author's order, over stdio and over
// HTTP (a JSON response and an event stream), not as the go-sdk client
// decodes them into maps.
func TestUpstreamListingSchemasExact(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "ordered", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ordered_params", InputSchema: json.RawMessage(hubtest.OrderedSchema), OutputSchema: json.RawMessage(hubtest.OrderedSchema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"owner":"o","repo":"r"}`)}, nil
		})
	u := exactSources(t, server)
	for _, src := range []string{"stdio", "json", "sse"} {
		tools, err := u.ListTools(ctx, src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var found bool
		for _, tool := range tools {
			if tool.Name != "ordered_params" {
				continue
			}
			found = true
			for what, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
				raw, ok := schema.(json.RawMessage)
				if !ok || string(raw) != hubtest.OrderedSchema {
					t.Errorf("%s: %s schema %T %s, want %s as written", src, what, schema, raw, hubtest.OrderedSchema)
				}
			}
		}
		if !found {
			t.Errorf("%s: no ordered_params among %d tools", src, len(tools))
		}
		// Listed again on a new session, the same listing: no change.
		if _, err := u.Call(ctx, src, "", "ordered_params", json.RawMessage(`{"owner":"o","repo":"r"}`)); err != nil {
			t.Errorf("%s: calling after the listing: %v", src, err)
		}
	}
}

// A listing's fingerprint is the same whether its schemas came as written
// or decoded: sessions of one source compare their listings by it.
func TestFingerprintIgnoresSchemaOrder(t *testing.T) {
	var decoded any
	if err := json.Unmarshal([]byte(hubtest.OrderedSchema), &decoded); err != nil {
		t.Fatal(err)
	}
	raw := []*mcp.Tool{{Name: "ordered_params", InputSchema: json.RawMessage(hubtest.OrderedSchema), OutputSchema: json.RawMessage(hubtest.OrderedSchema)}}
	dec := []*mcp.Tool{{Name: "ordered_params", InputSchema: decoded, OutputSchema: decoded}}
	if a, b := toolsFingerprint(raw), toolsFingerprint(dec); a != b {
		t.Errorf("fingerprints %s (as written) and %s (decoded) differ", a, b)
	}
	if _, ok := raw[0].InputSchema.(json.RawMessage); !ok {
		t.Errorf("the fingerprint changed the listing's tool: %T", raw[0].InputSchema)
	}
	changed := []*mcp.Tool{{Name: "ordered_params", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	if toolsFingerprint(raw) == toolsFingerprint(changed) {
		t.Error("a changed schema has the same fingerprint")
	}
}
