package clients

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The clients' files sit above the config: of the hub they import only
// config (and what it imports), never the heart, nor OAuth beside them, nor
// a package above them.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "store", "tsgen", "search", "oauth", "upstream", "openapi", "catalog", "policy", "skills", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/clients", forbidden...)
}
