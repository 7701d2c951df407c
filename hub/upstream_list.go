package hub

// Bounded listings.
//
// A tools/list is followed page by page within the config's CatalogLimits,
// so a server that pages forever, lists millions of tools or sends huge
// definitions costs the hub a bounded amount of memory, time and disk: the
// tools read before a bound was reached are served, with a
// *ListingLimitError that says what was cut. Upstreams lists MCP servers so,
// and a Backend lists its sources the same way.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
)

// maxListingWarnings bounds the warnings of one listing; the rest are
// counted.
const maxListingWarnings = 10

// listBounded follows list's pages from the first, within lim. It returns
// the tools kept and, when it stopped at a bound or skipped a definition,
// a *ListingLimitError with them; any other error ends the listing.
func listBounded(ctx context.Context, source string, lim CatalogLimits, list func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error)) ([]*mcp.Tool, error) {
	lim = lim.WithDefaults()
	var tools []*mcp.Tool
	var warnings []string
	skipped := 0
	warn := func(format string, args ...any) {
		if len(warnings) < maxListingWarnings {
			warnings = append(warnings, fmt.Sprintf(format, args...))
		} else {
			skipped++
		}
	}
	var read int64
	cursor := ""
	seenCursors := map[string]bool{}
	for page := 1; ; page++ {
		res, err := list(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		stop := ""
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			b, err := json.Marshal(t)
			if err != nil {
				warn("skipped tool %q: its definition does not encode: %v", truncateName(t.Name), err)
				continue
			}
			read += int64(len(b))
			if read > lim.MaxSourceBytes {
				stop = fmt.Sprintf("stopped after %d tools: the definitions passed %d bytes (catalog.maxSourceBytes)", len(tools), lim.MaxSourceBytes)
				break
			}
			if len(b) > lim.MaxDefinitionBytes {
				warn("skipped tool %q: its definition is %d bytes, above %d (catalog.maxDefinitionBytes)", truncateName(t.Name), len(b), lim.MaxDefinitionBytes)
				continue
			}
			if len(tools) == lim.MaxTools {
				stop = fmt.Sprintf("stopped at %d tools (catalog.maxTools)", lim.MaxTools)
				break
			}
			tools = append(tools, t)
		}
		if stop == "" {
			switch {
			case res.NextCursor == "":
			case seenCursors[res.NextCursor]:
				stop = fmt.Sprintf("stopped after %d pages: the server sent the cursor of an earlier page again", page)
			case page == lim.MaxPages:
				stop = fmt.Sprintf("stopped after %d pages (catalog.maxPages) with more to come", page)
			default:
				seenCursors[res.NextCursor] = true
				cursor = res.NextCursor
				continue
			}
		}
		if stop != "" {
			warnings = append(warnings, stop)
		}
		break
	}
	if skipped > 0 {
		warnings = append(warnings, fmt.Sprintf("and %d more skipped tools", skipped))
	}
	if len(warnings) > 0 {
		return tools, &catalog.ListingLimitError{Source: source, Warnings: warnings}
	}
	return tools, nil
}
