package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
)

// pagedTools is page n of a listing of size tools per page, each with a
// description of descBytes.
func pagedTools(n, size, descBytes int) []*mcp.Tool {
	tools := make([]*mcp.Tool, size)
	for i := range tools {
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("tool_%d_%d", n, i), Description: strings.Repeat("d", descBytes),
			InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	}
	return tools
}

// foreverLister pages without end: every page has new tools and a cursor.
func foreverLister(size, descBytes int, pages *int) func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	return func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		n := 0
		if p.Cursor != "" {
			n, _ = strconv.Atoi(p.Cursor)
		}
		*pages++
		return &mcp.ListToolsResult{Tools: pagedTools(n, size, descBytes), NextCursor: strconv.Itoa(n + 1)}, nil
	}
}

func TestListBoundedStopsAtEachBound(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name            string
		lim             CatalogLimits
		size, desc      int
		wantTools       int
		wantPages       int
		wantWarning     string
		loop, oneLarger bool
	}{
		{name: "default tools", size: 100, desc: 10, wantTools: 20_000, wantPages: 201, wantWarning: "stopped at 20000 tools (catalog.maxTools)"},
		{name: "default pages", size: 1, desc: 10, wantTools: 1000, wantPages: 1000, wantWarning: "stopped after 1000 pages (catalog.maxPages) with more to come"},
		{name: "source bytes", lim: CatalogLimits{MaxSourceBytes: 1 << 20}, size: 10, desc: 10_000, wantTools: 103, wantPages: 11,
			wantWarning: "the definitions passed 1048576 bytes (catalog.maxSourceBytes)"},
		{name: "configured pages", lim: CatalogLimits{MaxPages: 3}, size: 5, desc: 10, wantTools: 15, wantPages: 3, wantWarning: "stopped after 3 pages"},
		{name: "cursor loop", size: 5, desc: 10, loop: true, wantTools: 10, wantPages: 2, wantWarning: "sent the cursor of an earlier page again"},
		{name: "one too large", lim: CatalogLimits{MaxPages: 2}, size: 3, desc: 10, oneLarger: true, wantTools: 5, wantPages: 2,
			wantWarning: `skipped tool "tool_0_0": its definition is 1048`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := 0
			list := foreverLister(tc.size, tc.desc, &pages)
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
			tools, err := listBounded(ctx, "src", tc.lim, list)
			var partial *catalog.ListingLimitError
			if !errorsAs(err, &partial) {
				t.Fatalf("listBounded: %v, want a *ListingLimitError", err)
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
	graph := foreverLister(100, 2000, &pages)
	list := func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		res, err := graph(ctx, p)
		if pages == 160 {
			res.NextCursor = ""
		}
		return res, err
	}
	tools, err := listBounded(ctx, "graph", CatalogLimits{}, list)
	if err != nil || len(tools) != 16_000 {
		t.Fatalf("a Graph-sized listing: %d tools, %v", len(tools), err)
	}
	big := &mcp.Tool{Name: "issues/list-events-for-timeline", Description: strings.Repeat("x", 440_000), InputSchema: json.RawMessage(`{"type":"object"}`)}
	tools, err = listBounded(ctx, "github", CatalogLimits{}, func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		return &mcp.ListToolsResult{Tools: append(pagedTools(0, 1222, 12_000), big)}, nil
	})
	if err != nil || len(tools) != 1223 {
		t.Fatalf("a GitHub-sized listing: %d tools, %v", len(tools), err)
	}
}

func errorsAs(err error, target **catalog.ListingLimitError) bool {
	e, ok := err.(*catalog.ListingLimitError)
	if ok {
		*target = e
	}
	return ok
}
