package upstream

// A tool's result as the guest receives it.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultValue is what the guest receives from a tool's result:
// structuredContent when the tool has an output schema (or sent one); else
// a single text item that parses as JSON, parsed; else the text of the text
// items joined by newlines; else the content array as-is.
func ResultValue(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content is not JSON: %w", err)
		}
		return b, nil
	}
	allText := true
	var texts []string
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			allText = false
			break
		}
		texts = append(texts, t.Text)
	}
	if allText {
		if len(texts) == 1 {
			s := strings.TrimSpace(texts[0])
			if (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s)) {
				return json.RawMessage(s), nil
			}
		}
		return json.Marshal(strings.Join(texts, "\n"))
	}
	return json.Marshal(res.Content)
}

// ErrorText is what a result that reports an error (IsError) says: the
// text of its text items, joined by newlines.
func ErrorText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "the tool reported an error without a message"
	}
	return strings.Join(parts, "\n")
}
