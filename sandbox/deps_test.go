package sandbox

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The sandbox never imports the hub, nor MCP types: it runs code against
// its own Host interface.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/sandbox", deptest.AllHub, deptest.Module+"/keychain", "github.com/modelcontextprotocol/go-sdk/...")
}
