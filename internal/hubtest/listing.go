package hubtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PagedTools is page n of a listing of size tools per page, each with a
// description of descBytes.
func PagedTools(n, size, descBytes int) []*mcp.Tool {
	tools := make([]*mcp.Tool, size)
	for i := range tools {
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("tool_%d_%d", n, i), Description: strings.Repeat("d", descBytes),
			InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	}
	return tools
}

// ForeverLister is a tools/list that pages without end: every page has
// new tools and a cursor; it counts the pages it served in *pages.
func ForeverLister(size, descBytes int, pages *int) func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	return func(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		n := 0
		if p.Cursor != "" {
			n, _ = strconv.Atoi(p.Cursor)
		}
		*pages++
		return &mcp.ListToolsResult{Tools: PagedTools(n, size, descBytes), NextCursor: strconv.Itoa(n + 1)}, nil
	}
}
