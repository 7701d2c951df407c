package scope

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// A scope filters what the packages below the heart give it: its own code
// never reaches the store, the keychain or the network, and it imports
// neither the heart nor the surfaces above it.
func TestDeps(t *testing.T) {
	self := deptest.Module + "/hub/scope"
	deptest.CheckImports(t, self, deptest.Module+"/hub/store", deptest.Module+"/keychain", "net/http")
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, self, forbidden...)
}
