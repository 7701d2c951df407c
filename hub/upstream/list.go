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
	"bytes"
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
			size, err := encodedSize(t)
			if err != nil {
				warn("skipped tool %q: its definition does not encode: %v", naming.Truncate(t.Name), err)
				continue
			}
			read += int64(size)
			if read > lim.MaxSourceBytes {
				stop = fmt.Sprintf("stopped after %d tools: the definitions passed %d bytes (catalog.maxSourceBytes)", len(tools), lim.MaxSourceBytes)
				break
			}
			if size > lim.MaxDefinitionBytes {
				warn("skipped tool %q: its definition is %d bytes, above %d (catalog.maxDefinitionBytes)", naming.Truncate(t.Name), size, lim.MaxDefinitionBytes)
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

// encodedSize is the size of t as json.Marshal writes it. A schema that
// came as bytes (json.RawMessage: an OpenAPI source writes its schemas
// so) is not encoded again: Marshal would check and compact it (7 MB for
// GitHub's description) only to escape <, >, & and U+2028/U+2029 in it,
// and the catalog checks it where it makes the tool's definition. Its
// length and those escapes are counted instead: the same count for
// compact bytes, a larger one for bytes padded with spaces.
func encodedSize(t *mcp.Tool) (int, error) {
	in, inRaw := t.InputSchema.(json.RawMessage)
	out, outRaw := t.OutputSchema.(json.RawMessage)
	inRaw = inRaw && in != nil
	outRaw = outRaw && out != nil
	if !inRaw && !outRaw {
		b, err := json.Marshal(t)
		return len(b), err
	}
	shallow := *t
	n := 0
	if inRaw {
		shallow.InputSchema = nil // written as null
		n += rawSize(in) - len("null")
	}
	if outRaw {
		shallow.OutputSchema = nil // left out
		n += len(`,"outputSchema":`) + rawSize(out)
	}
	b, err := json.Marshal(&shallow)
	return len(b) + n, err
}

// rawSize is the size of a JSON document once json.Marshal has escaped
// <, > and & (\u003c: 5 bytes more each) and U+2028 and U+2029 (\u2028:
// 3 more) in it.
func rawSize(b []byte) int {
	n := len(b)
	for _, c := range []string{"<", ">", "&"} {
		n += 5 * bytes.Count(b, []byte(c))
	}
	for _, c := range []string{"\u2028", "\u2029"} {
		n += 3 * bytes.Count(b, []byte(c))
	}
	return n
}
