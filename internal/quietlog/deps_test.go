package quietlog

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Logging is below everything of the hub's: it imports no other package of
// this repository.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/quietlog", deptest.Module+"/...")
}
