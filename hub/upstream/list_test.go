package upstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

func TestListBoundedStopsAtEachBound(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name            string
		lim             config.CatalogLimits
		size, desc      int
		wantTools       int
		wantPages       int
		wantWarning     string
		loop, oneLarger bool
	}{
		{name: "default tools", size: 100, desc: 10, wantTools: 20_000, wantPages: 201, wantWarning: "stopped at 20000 tools (catalog.maxTools)"},
		{name: "default pages", size: 1, desc: 10, wantTools: 1000, wantPages: 1000, wantWarning: "stopped after 1000 pages (catalog.maxPages) with more to come"},
		{name: "source bytes", lim: config.CatalogLimits{MaxSourceBytes: 1 << 20}, size: 10, desc: 10_000, wantTools: 103, wantPages: 11,
			wantWarning: "the definitions passed 1048576 bytes (catalog.maxSourceBytes)"},
		{name: "configured pages", lim: config.CatalogLimits{MaxPages: 3}, size: 5, desc: 10, wantTools: 15, wantPages: 3, wantWarning: "stopped after 3 pages"},
		{name: "cursor loop", size: 5, desc: 10, loop: true, wantTools: 10, wantPages: 2, wantWarning: "sent the cursor of an earlier page again"},
		{name: "one too large", lim: config.CatalogLimits{MaxPages: 2}, size: 3, desc: 10, oneLarger: true, wantTools: 5, wantPages: 2,
			wantWarning: `skipped tool "tool_0_0": its definition is 1048`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := 0
			list := hubtest.ForeverLister(tc.size, tc.desc, &pages)
			if tc.loop {
				inner := list
				list = func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
					res, err := inner(ctx, p)
					if p.Cursor == "1" {
						res.NextCursor = "1"
					}
					return res, err
				}
			}
			if tc.oneLarger {
				inner := list
				list = func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
					res, err := inner(ctx, p)
					if p.Cursor == "" {
						res.Tools[0].Description = strings.Repeat("x", 1<<20)
					}
					return res, err
				}
			}
			tools, err := ListBounded(ctx, "src", tc.lim, list)
			var partial *ListingLimitError
			if !errorsAs(err, &partial) {
				t.Fatalf("ListBounded: %v, want a *ListingLimitError", err)
			}
			if len(tools) != tc.wantTools || pages != tc.wantPages {
				t.Errorf("kept %d tools from %d pages, want %d from %d", len(tools), pages, tc.wantTools, tc.wantPages)
			}
			if !strings.Contains(err.Error(), tc.wantWarning) {
				t.Errorf("warning %q lacks %q", err, tc.wantWarning)
			}
		})
	}
}

// The largest real APIs list whole under the defaults: Microsoft Graph's
// ~16,000 operations, GitHub's 1,223 with its largest definition (440 KB
// with every schema inlined).
func TestListBoundedServesLargeRealAPIsWhole(t *testing.T) {
	ctx := context.Background()
	pages := 0
	graph := hubtest.ForeverLister(100, 2000, &pages)
	list := func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		res, err := graph(ctx, p)
		if pages == 160 {
			res.NextCursor = ""
		}
		return res, err
	}
	tools, err := ListBounded(ctx, "graph", config.CatalogLimits{}, list)
	if err != nil || len(tools) != 16_000 {
		t.Fatalf("a Graph-sized listing: %d tools, %v", len(tools), err)
	}
	big := &mcp.Tool{Name: "issues/list-events-for-timeline", Description: strings.Repeat("x", 440_000), InputSchema: json.RawMessage(`{"type":"object"}`)}
	tools, err = ListBounded(ctx, "github", config.CatalogLimits{}, func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		return &mcp.ListToolsResult{Tools: append(hubtest.PagedTools(0, 1222, 12_000), big)}, nil
	})
	if err != nil || len(tools) != 1223 {
		t.Fatalf("a GitHub-sized listing: %d tools, %v", len(tools), err)
	}
}

func errorsAs(err error, target **ListingLimitError) bool {
	e, ok := err.(*ListingLimitError)
	if ok {
		*target = e
	}
	return ok
}

// TestEncodedSize: a tool's size is what json.Marshal writes, whether its
// schemas came as bytes or decoded, and no smaller for schemas that came
// padded with spaces.
func TestEncodedSize(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"a <b> & \"c\""}}}`)
	out := json.RawMessage(`{"type":"object","properties":{"total":{"type":"integer"}}}`)
	decoded := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}
	ann := &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Find"}
	for _, tool := range []*mcp.Tool{
		{Name: "find", InputSchema: in},
		{Name: "find", Description: "Finds things.", InputSchema: in, OutputSchema: out, Annotations: ann},
		{Name: "find", Title: "Find", InputSchema: decoded, OutputSchema: out},
		{Name: "find", InputSchema: decoded},
		{Name: "find", InputSchema: json.RawMessage(nil), OutputSchema: out},
		{Name: "find"},
		{Name: "find", InputSchema: json.RawMessage("{\"description\":\"raw <b> & \u2028 \u2029\"}")},
	} {
		want, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := encodedSize(tool); err != nil || got != len(want) {
			t.Errorf("encodedSize(%s) = %d, %v; want %d", want, got, err, len(want))
		}
	}
	padded := &mcp.Tool{Name: "find", InputSchema: json.RawMessage(`{ "type" : "object" }`)}
	want, _ := json.Marshal(padded)
	if got, _ := encodedSize(padded); got < len(want) {
		t.Errorf("padded schema: %d bytes, json.Marshal writes %d", got, len(want))
	}
}
