package hub

// The fake upstreams (a crash mid-call, a hang in the handshake or in
// tools/list, malformed schemas, a leaked grandchild) live in
// internal/hubtest; TestMain lets this test binary serve them.

import (
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// fakeUpstreamEnv selects the fake a re-executed test binary serves.
const fakeUpstreamEnv = hubtest.FakeUpstreamEnv

// sandboxWorkerEnv makes the test binary serve as a sandbox worker.
const sandboxWorkerEnv = hubtest.SandboxWorkerEnv

func TestMain(m *testing.M) { hubtest.Main(m) }

// fakeSource is a stdio source served by the fake named mode.
func fakeSource(mode string, env map[string]string) *config.Source {
	return hubtest.FakeSource(mode, env)
}
