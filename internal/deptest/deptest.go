// Package deptest checks which packages a package depends on, so that the
// rule that imports run one way (a package imports only packages on lower
// levels) is a test and not a wish. It follows tailscale's tstest/deptest:
// a package's deps_test.go lists what it must never depend on, and the
// test asks the go command for the package's whole dependency graph.
package deptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Module is this repository's module path.
const Module = "capabilities.sh/capabilities"

// Platforms are the systems the hub builds for; a dependency that only one
// of them pulls in counts.
var Platforms = []string{"linux", "darwin", "windows"}

// Violations returns the packages of deps that one of forbidden names, in
// the order of deps, leaving out self (a package's dependency list holds
// itself). A forbidden path ending in "/..." names every package below it
// too.
func Violations(self string, deps []string, forbidden []string) []string {
	var out []string
	for _, d := range deps {
		if d == self {
			continue
		}
		for _, f := range forbidden {
			if matches(f, d) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

func matches(f, pkg string) bool {
	if base, ok := strings.CutSuffix(f, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == f
}

// T is what the checks report to: a *testing.T, or a recorder in the
// checker's own tests, which see a check fail on purpose.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Deps returns every package pkg depends on when built for goos, itself
// included (go list -deps), without test files. The go command runs with
// GOPROXY=off, so a test never reaches the network.
func Deps(t T, pkg, goos string) []string {
	t.Helper()
	return goList(t, goos, "-deps", pkg)
}

// Imports returns the packages pkg's own files import when built for goos
// (go list's Imports), without test files: what pkg uses itself, not what
// those packages use in turn.
func Imports(t T, pkg, goos string) []string {
	t.Helper()
	return goList(t, goos, "-f", "{{join .Imports \"\\n\"}}", pkg)
}

// goList runs go list with args for goos and returns the fields of its
// output.
func goList(t T, goos string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(goCommand(), append([]string{"list", "-tags", "headless"}, args...)...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0", "GOPROXY=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list %s for %s: %v\n%s", strings.Join(args, " "), goos, err, stderr)
	}
	return strings.Fields(string(out))
}

// Check fails t when pkg depends, on any of Platforms, on a package that
// forbidden names, naming each one.
func Check(t T, pkg string, forbidden ...string) {
	t.Helper()
	for _, goos := range Platforms {
		if bad := Violations(pkg, Deps(t, pkg, goos), forbidden); len(bad) > 0 {
			t.Errorf("%s depends on %s (for %s), which it must not: imports run one way", pkg, strings.Join(bad, ", "), goos)
		}
	}
}

// CheckImports fails t when pkg's own files import, on any of Platforms, a
// package that forbidden names. Unlike Check it does not follow those
// imports: it says what a package's code may not use itself, where a
// package it may use does (the policy reads the catalog, which keeps its
// tools in the store, but decides nothing there).
func CheckImports(t T, pkg string, forbidden ...string) {
	t.Helper()
	for _, goos := range Platforms {
		if bad := Violations(pkg, Imports(t, pkg, goos), forbidden); len(bad) > 0 {
			t.Errorf("%s imports %s (for %s), which its own code must not use", pkg, strings.Join(bad, ", "), goos)
		}
	}
}

// goCommand is the go command of the toolchain running the test.
func goCommand() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if runtime.GOOS == "windows" {
		p += ".exe"
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}

// Hub packages: the heart and everything below and above it.
var (
	Heart = Module + "/hub"
	// AllHub is every package under hub/, the heart included.
	AllHub = Module + "/hub/..."
	// MCPServer and LocalAPI are the two surfaces above the heart: nothing
	// under hub/ but LocalAPI imports MCPServer, and nothing imports
	// LocalAPI but the app.
	MCPServer = Module + "/hub/mcpserver"
	LocalAPI  = Module + "/hub/localapi"
	// App is the command (app) and its tray app (ui), above every hub
	// package.
	App = []string{Module + "/app/...", Module + "/ui/..."}
)
