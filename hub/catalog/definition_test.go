package catalog

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/upstream"
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

// TestPinnedChangeSaysDeprecated: a change line says when the operation's
// deprecation mark came or went beside what else changed.
func TestPinnedChangeSaysDeprecated(t *testing.T) {
	def := func(desc string, deprecated bool) (toolDefinition, []byte, string) {
		tl := &mcp.Tool{Name: "op", Description: desc}
		req := &upstream.RESTRequest{Method: "GET", Path: "/x", Server: "https://api.example.com", Deprecated: deprecated}
		b, hash, err := Definition(tl, req)
		if err != nil {
			t.Fatal(err)
		}
		return toolDefinition{Name: "op", Description: desc, Request: req}, b, hash
	}
	_, oldDef, oldHash := def("List x.", false)
	cur, _, curHash := def("List the x.", true)
	if got, want := pinnedChange(oldHash, curHash, oldDef, &cur), "description changed (now deprecated)"; got != want {
		t.Errorf("pinnedChange = %q, want %q", got, want)
	}
	_, markedDef, markedHash := def("List x.", true)
	back, _, backHash := def("List the x.", false)
	if got, want := pinnedChange(markedHash, backHash, markedDef, &back), "description changed (no longer deprecated)"; got != want {
		t.Errorf("pinnedChange = %q, want %q", got, want)
	}
	same, _, sameHash := def("List x.", false)
	if got := pinnedChange(oldHash, sameHash, oldDef, &same); got != "" {
		t.Errorf("pinned to the same definition: %q", got)
	}
}
