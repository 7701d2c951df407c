package config

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The config sits on the level above the leaves: of the hub it imports only
// naming and secrets, never the heart nor a package beside or above it.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "store", "tsgen", "search", "oauth", "clients", "upstream", "openapi", "catalog", "policy", "skills", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/config", forbidden...)
}
