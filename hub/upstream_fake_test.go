package hub

// The fake upstreams (a crash mid-call, a hang in the handshake or in
// tools/list, malformed schemas, a leaked grandchild) live in
// internal/hubtest; TestMain lets this test binary serve them.

import (
	"fmt"
	"os"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/internal/hubtest"
)

// fakeUpstreamEnv selects the fake a re-executed test binary serves.
const fakeUpstreamEnv = hubtest.FakeUpstreamEnv

// sandboxWorkerEnv makes the test binary serve as a sandbox worker.
const sandboxWorkerEnv = hubtest.SandboxWorkerEnv

// openapiChildEnv makes the test binary serve as the OpenAPI parser child
// (testOpenAPIChild), as the tray hub's own executable does.
const openapiChildEnv = "HUB_TEST_OPENAPI_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(openapiChildEnv) != "" {
		if err := openapi.ServeChild(os.Stdin, os.Stdout, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	hubtest.Main(m)
}

// testOpenAPIChild parses OpenAPI documents in this test binary, re-run
// as the parser child, with no cache.
func testOpenAPIChild() *openapi.Child {
	return &openapi.Child{Command: []string{os.Args[0]}, Env: []string{openapiChildEnv + "=1"}}
}

// fakeSource is a stdio source served by the fake named mode.
func fakeSource(mode string, env map[string]string) *config.Source {
	return hubtest.FakeSource(mode, env)
}
