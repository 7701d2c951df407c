package catalog

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnnotationWords: only what the annotations say is said; a read-only
// tool is not called destructive, and an unset hint says nothing.
func TestAnnotationWords(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		a    *mcp.ToolAnnotations
		want []string
	}{
		{nil, nil},
		{&mcp.ToolAnnotations{}, nil},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes, OpenWorldHint: &yes}, []string{"read-only", "open world"}},
		{&mcp.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}, []string{"destructive", "idempotent"}},
	} {
		if got := AnnotationWords(tc.a); !slices.Equal(got, tc.want) {
			t.Errorf("AnnotationWords(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}
