package inputstate

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Signed states sit at the bottom: they import the keychain and nothing of
// the hub.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/hub/inputstate", deptest.Heart, deptest.Module+"/hub/...")
}
