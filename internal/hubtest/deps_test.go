package hubtest

import (
	"testing"

	"capabilities.sh/capabilities/internal/deptest"
)

// The shared test parts sit below every package whose tests use them, the
// heart included.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/hubtest", deptest.Heart)
}
