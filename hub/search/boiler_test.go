package search

import (
	"fmt"
	"slices"
	"testing"
)

func TestSentences(t *testing.T) {
	var got []string
	sentences("Lists the runs. Each has a status.\n\n**Permissions required:** none.\nv1.2 is out", func(s string) { got = append(got, s) })
	want := []string{"Lists the runs.", "Each has a status.", "**Permissions required:** none.", "v1.2 is out"}
	if !slices.Equal(got, want) {
		t.Errorf("sentences = %q, want %q", got, want)
	}
}

// TestBoilerplate: a sentence that boilerMin tools of a namespace repeat
// word for word leaves their descriptions' text; fewer, another
// namespace's, or a sentence said once stay.
func TestBoilerplate(t *testing.T) {
	const perm = "**Permissions required:** *Administer Jira* global permission."
	var docs []Doc
	for i := range boilerMin {
		docs = append(docs, Doc{Namespace: "jira", Name: fmt.Sprintf("op%d", i), Description: fmt.Sprintf("Returns thing %d. %s", i, perm)})
	}
	docs = append(docs, Doc{Namespace: "other", Name: "x", Description: "Returns a thing. " + perm})
	b := boilerplate(docs)
	var buf []byte
	if got := b.strip(&buf, "jira", "Returns the schemes. "+perm); got != "Returns the schemes." {
		t.Errorf("jira strip = %q", got)
	}
	if got := b.strip(&buf, "other", "Returns a thing. "+perm); got != "Returns a thing. "+perm {
		t.Errorf("other strip = %q, want it whole", got)
	}
	if boilerplate(docs[:boilerMin-1]) != nil {
		t.Errorf("%d repeats made boilerplate, want %d", boilerMin-1, boilerMin)
	}
}

// TestBoilerplateIDF: over Jira's operations as MCP tools, whose
// descriptions nearly all say "Permissions required", "permission" still
// tells the permission schemes' tools apart: "which permission schemes
// are there" found getAllPermissionSchemes 64th before its boilerplate
// left the descriptions' text.
func TestBoilerplateIDF(t *testing.T) {
	ops, ix := jiraIndex(t, true)
	wantOpFirst(t, ix, ops, "which permission schemes are there", "getAllPermissionSchemes")
}
