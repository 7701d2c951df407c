package skills

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The skills sit above the config, the catalog, the store, the secrets and
// the upstream sessions they work with, and below the heart that searches and describes them:
// they import neither the heart, nor the policy beside them, nor the
// surfaces above; and their own code holds no SQL driver, since pins and
// the audit trail go through the store's typed calls.
func TestDeps(t *testing.T) {
	self := deptest.Module + "/hub/skills"
	deptest.CheckImports(t, self, "database/sql")
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "clients", "openapi", "policy", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, self, append(forbidden, deptest.App...)...)
}
