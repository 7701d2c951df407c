package mcpserver

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The MCP surface sits above the heart and below the local API, which
// serves it on the socket: it imports the heart, never the local API or
// the app.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.MCPServer, append([]string{deptest.LocalAPI}, deptest.App...)...)
}
