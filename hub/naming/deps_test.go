package naming

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Naming sits at the bottom level of the hub: it imports no other hub
// package, only the sandbox whose identifiers it makes.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/hub/naming", deptest.AllHub, deptest.Module+"/keychain")
}
