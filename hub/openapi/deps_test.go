package openapi

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The OpenAPI sources plug into the upstream sessions below them and sit
// beside the catalog: nothing they depend on is the catalog, the policy,
// the skills, the heart or a surface.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "catalog", "policy", "skills", "clients", "store", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/openapi", forbidden...)
}
