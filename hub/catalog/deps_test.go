package catalog

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The catalog sits above the config and the upstream sessions it lists
// through, and below the policy that reads it and the heart: it imports
// neither them nor any package beside or above it.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "clients", "openapi", "policy", "skills", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/catalog", forbidden...)
}
