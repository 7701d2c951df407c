package hub

import (
	"context"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// TestSearchWithoutAMatchShowsAFewTools: a request that shares no word
// with any tool gets every tool the policy lets through when they fit in
// the limit, so the model can pick by meaning without another round trip;
// past the limit it gets the namespaces and how to list one.
func TestSearchWithoutAMatchShowsAFewTools(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	ctx := context.Background()
	out, err := h.Search(ctx, SearchRequest{Query: "remember a person"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `No tools match "remember a person"; these are all the 2 there are:`) || !strings.Contains(out, "fake.echo(") || !strings.Contains(out, "fake.crash(") {
		t.Errorf("no match among two tools:\n%s", out)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "remember a person", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out != `No tools match "remember a person". Namespaces: fake. Try other words, or list one with namespace and an empty query.` {
		t.Errorf("no match among more tools than the limit:\n%s", out)
	}
	if err := h.SetPolicy(ctx, "fake.crash", config.Deny); err != nil {
		t.Fatal(err)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "remember a person", Namespace: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `No tools match "remember a person"; the only one there is:`) || strings.Contains(out, "fake.crash") {
		t.Errorf("no match with a denied tool:\n%s", out)
	}
}
