package signin

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The sign-ins sit on the config and the flows of hub/oauth, below the
// heart that wires them: they reach the upstream sessions and the OpenAPI
// sources only through Options, never by import, and their own code
// speaks neither HTTP (hub/oauth does) nor SQL.
func TestDeps(t *testing.T) {
	self := deptest.Module + "/hub/signin"
	deptest.CheckImports(t, self, "net/http", "database/sql")
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"store", "upstream", "openapi", "catalog", "policy", "skills", "clients", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, self, append(forbidden, deptest.App...)...)
}
