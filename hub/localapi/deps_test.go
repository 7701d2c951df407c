package localapi

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The local API is the top of the hub: it holds the heart and serves the
// MCP surface, and the app and the tray app use it, never the other way
// round.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.LocalAPI, deptest.App...)
}
