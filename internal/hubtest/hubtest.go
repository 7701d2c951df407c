// Package hubtest holds the parts the hub's tests share: the reference MCP
// servers installed from testdata/npm, a keychain in memory, a store in a
// temporary folder, a clock tests move by hand, a loopback MCP server over
// streamable HTTP, an OAuth authorization server with a protected MCP
// server and browsers that sign in, and Main, which lets a test binary
// re-run itself as a fake upstream or a sandbox worker.
//
// It is imported only by tests. Every package whose tests start fake
// upstreams calls Main from its TestMain, since a fake runs inside the test
// binary that asks for it (the go-sdk's own stdio tests do the same, in
// mcp/cmd_test.go).
package hubtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// RepoRoot is the folder holding go.mod, found from the test's folder up.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}

var npmInstall struct {
	once sync.Once
	err  error
}

// NpmServer returns the path of the executable name that the package-lock
// in testdata/npm installs (a reference MCP server, tsc, prism), installing
// them once when missing.
func NpmServer(t testing.TB, name string) string {
	t.Helper()
	npm := filepath.Join(RepoRoot(t), "testdata", "npm")
	npmInstall.once.Do(func() {
		if _, err := os.Stat(filepath.Join(npm, "node_modules")); err == nil {
			return
		}
		out, err := exec.Command("npm", "ci", "--prefix", npm).CombinedOutput()
		if err != nil {
			npmInstall.err = fmt.Errorf("npm ci: %v\n%s", err, out)
		}
	})
	if npmInstall.err != nil {
		t.Fatal(npmInstall.err)
	}
	bin := filepath.Join(npm, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: %v", name, err)
	}
	return bin
}
