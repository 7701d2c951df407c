package upstream

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The upstream sessions sit below the OpenAPI sources that plug into them,
// the catalog that lists through them and everything above: nothing they
// depend on, their own imports or what those use, is any of these.
func TestDeps(t *testing.T) {
	self := deptest.Module + "/hub/upstream"
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"signin", "openapi", "catalog", "policy", "skills", "clients", "store", "tsgen", "search", "mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, self, forbidden...)
}
