package exactjson

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Exact JSON sits at the bottom level of the hub: it imports no other
// package of this repository, of the hub or outside it.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/hub/exactjson", deptest.Module+"/...")
}
