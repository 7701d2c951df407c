package tsgen

import (
	"slices"
	"testing"
)

// TestHubTargets: the targets that name the hub global give its
// declaration once, and the others are left in order.
func TestHubTargets(t *testing.T) {
	decl, rest := HubTargets([]string{"github", " hub.read ", "hub", "memory.readGraph"})
	if decl != HubDeclaration || !slices.Equal(rest, []string{"github", "memory.readGraph"}) {
		t.Errorf("got %.30q, %q", decl, rest)
	}
	if decl, rest := HubTargets([]string{"hubspot", "hub.other"}); decl != "" || len(rest) != 2 {
		t.Errorf("targets that only start like the hub global: %.30q, %q", decl, rest)
	}
}
