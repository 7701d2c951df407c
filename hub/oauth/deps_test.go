package oauth

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// OAuth sits above the config: of the hub it imports only config and
// secrets, never the heart nor the upstream sessions that use it.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "store", "tsgen", "search", "clients", "upstream", "openapi", "catalog", "policy", "skills", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/oauth", forbidden...)
}
