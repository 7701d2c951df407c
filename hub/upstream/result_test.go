package upstream

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResultValue: structured content wins; a single text item of JSON is
// parsed; text items are joined; anything else is the content as sent.
func TestResultValue(t *testing.T) {
	text := func(s string) mcp.Content { return &mcp.TextContent{Text: s} }
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"structured", &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}, Content: []mcp.Content{text("ignored")}}, `{"n":1}`},
		{"one JSON text", &mcp.CallToolResult{Content: []mcp.Content{text(" [1, 2] ")}}, `[1, 2]`},
		{"one plain text", &mcp.CallToolResult{Content: []mcp.Content{text("42")}}, `"42"`},
		{"texts joined", &mcp.CallToolResult{Content: []mcp.Content{text("a"), text("{}")}}, `"a\n{}"`},
		{"no content", &mcp.CallToolResult{}, `""`},
		{"an image", &mcp.CallToolResult{Content: []mcp.Content{text("a"), &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}}}},
			`[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"AQ=="}]`},
	} {
		got, err := ResultValue(tc.res)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	if got := ErrorText(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}, &mcp.ImageContent{}, &mcp.TextContent{Text: "try another"}}}); got != "no such file\ntry another" {
		t.Errorf("ErrorText = %q", got)
	}
	if got := ErrorText(&mcp.CallToolResult{IsError: true}); got != "the tool reported an error without a message" {
		t.Errorf("ErrorText without text = %q", got)
	}
}
