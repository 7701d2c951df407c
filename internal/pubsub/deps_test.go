package pubsub

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Publishing is below everything of the hub's: the package imports no
// other package of this repository.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/pubsub", deptest.Module+"/...")
}
