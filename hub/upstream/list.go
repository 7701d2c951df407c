package upstream

// Bounded listings.
//
// A tools/list is followed page by page within the config's config.CatalogLimits,
// so a server that pages forever, lists millions of tools or sends huge
// definitions costs the hub a bounded amount of memory, time and disk: the
// tools read before a bound was reached are served, with a
// *ListingLimitError that says what was cut. Upstreams lists MCP servers so,
// and a Backend lists its sources the same way.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
)

// ListingLimitError says that a listing was served in part: it reached a
// bound of config.CatalogLimits, or skipped definitions over one. ListTools
// returns it together with the tools it kept.
type ListingLimitError struct {
	Source   string
	Warnings []string // one line each, for the log and hub status
}

func (e *ListingLimitError) Error() string {
	return fmt.Sprintf("tools of %s served in part: %s", e.Source, strings.Join(e.Warnings, "; "))
}

// MaxListingWarnings bounds the warnings of one listing; the rest are
// counted.
const MaxListingWarnings = 10

// ListBounded follows list's pages from the first, within lim. It returns
// the tools kept and, when it stopped at a bound or skipped a definition,
// a *ListingLimitError with them; any other error ends the listing.
func ListBounded(ctx context.Context, source string, lim config.CatalogLimits, list func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error)) ([]*mcp.Tool, error) {
	lim = lim.WithDefaults()
	var tools []*mcp.Tool
	var warnings []string
	skipped := 0
	warn := func(format string, args ...any) {
		if len(warnings) < MaxListingWarnings {
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
				warn("skipped tool %q: its definition does not encode: %v", naming.Truncate(t.Name), err)
				continue
			}
			read += int64(len(b))
			if read > lim.MaxSourceBytes {
				stop = fmt.Sprintf("stopped after %d tools: the definitions passed %d bytes (catalog.maxSourceBytes)", len(tools), lim.MaxSourceBytes)
				break
			}
			if len(b) > lim.MaxDefinitionBytes {
				warn("skipped tool %q: its definition is %d bytes, above %d (catalog.maxDefinitionBytes)", naming.Truncate(t.Name), len(b), lim.MaxDefinitionBytes)
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
		return tools, &ListingLimitError{Source: source, Warnings: warnings}
	}
	return tools, nil
}
