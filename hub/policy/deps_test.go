package policy

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The policy is the rules and the pure gate: its own code never reaches the
// store, the keychain or the network (the catalog and the config it reads
// do, below it), and it imports nothing above it, neither the heart nor
// the skills nor the surfaces.
func TestDeps(t *testing.T) {
	self := deptest.Module + "/hub/policy"
	deptest.CheckImports(t, self, deptest.Module+"/hub/store", deptest.Module+"/keychain", "net/http")
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "clients", "openapi", "skills", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, self, forbidden...)
}
