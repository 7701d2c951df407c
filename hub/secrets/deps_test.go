package secrets

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// Secrets sit at the bottom level of the hub: they import no other hub package.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/hub/secrets", deptest.AllHub, deptest.Module+"/keychain")
}
