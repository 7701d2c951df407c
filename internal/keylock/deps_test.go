package keylock

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Locks by key are below everything of the hub's: the package imports no
// other package of this repository.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/keylock", deptest.Module+"/...")
}
