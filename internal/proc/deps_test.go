package proc

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Processes are below everything of the hub's.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/proc", deptest.AllHub, deptest.Module+"/sandbox", deptest.Module+"/keychain")
}
