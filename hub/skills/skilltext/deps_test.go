package skilltext

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The skills' text sits between the skills and the heart that answers with
// it: it imports neither the heart nor the surfaces above.
func TestDeps(t *testing.T) {
	forbidden := []string{deptest.Heart}
	for _, p := range []string{"mcpserver", "localapi"} {
		forbidden = append(forbidden, deptest.Module+"/hub/"+p+"/...")
	}
	deptest.Check(t, deptest.Module+"/hub/skills/skilltext", forbidden...)
}
