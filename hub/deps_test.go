package hub

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The heart imports the packages below it, never the surfaces above it
// (the MCP server and the local API hold the heart, not the other way
// round) nor the app.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Heart, append([]string{deptest.MCPServer, deptest.LocalAPI}, deptest.App...)...)
}
