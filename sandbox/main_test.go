package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
)

// The test binary doubles as the pool's worker: with workerEnv set it
// serves the protocol on stdin and stdout instead of running tests.
const workerEnv = "CAPABILITIES_SANDBOX_TEST_WORKER"

func TestMain(m *testing.M) {
	switch os.Getenv(workerEnv) {
	case "":
		os.Exit(m.Run())
	case "serve":
		if err := ServeWorker(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "crash-on-call":
		// Dies the moment the guest makes a tool call, as a worker killed
		// by the OS would.
		out := &crashWriter{w: os.Stdout}
		_ = ServeWorker(context.Background(), os.Stdin, out)
		os.Exit(0)
	case "broken":
		fmt.Fprintln(os.Stderr, "worker: refusing to start")
		os.Exit(2)
	}
}

type crashWriter struct{ w io.Writer }

func (c *crashWriter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte(`{"t":"call"`)) {
		fmt.Fprintln(os.Stderr, "fatal error: simulated crash")
		os.Exit(3)
	}
	return c.w.Write(p)
}

func workerOptions(mode string, size int) PoolOptions {
	opts := PoolOptions{Command: []string{os.Args[0]}, Size: size, Env: []string{workerEnv + "=" + mode}}
	if raceEnabled {
		opts.HardMemoryBytes = 1 << 40
	}
	return opts
}

var (
	sharedPoolOnce sync.Once
	sharedPool     Driver
	sharedPoolErr  error
)

// testPool is one pool shared by the behaviour tests; its workers serve
// many runs each to keep the suite fast (TestPoolReusesWorkers covers the
// default, TestPoolFreshWorkerPerRun one run per worker).
func testPool(t testing.TB) Driver {
	t.Helper()
	sharedPoolOnce.Do(func() {
		opts := workerOptions("serve", 2)
		opts.RunsPerWorker = 1000
		sharedPool, sharedPoolErr = NewPool(opts)
	})
	if sharedPoolErr != nil {
		t.Fatalf("NewPool: %v", sharedPoolErr)
	}
	return sharedPool
}
