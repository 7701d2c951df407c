package hiddentext

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The words of others are cleaned below everything that shows them.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/hiddentext", deptest.AllHub, deptest.Module+"/sandbox", deptest.Module+"/keychain", deptest.Module+"/ui")
}
