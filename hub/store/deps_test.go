package store

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The store is the bottom level of the hub: it imports no other hub package.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/hub/store", deptest.AllHub, deptest.Module+"/sandbox", deptest.Module+"/keychain")
}
