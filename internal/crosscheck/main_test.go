package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSeesEachTarget: a type error in a file only windows builds is
// an error for windows/amd64 and none for linux/arm64, and a package the
// headless tag leaves out is not checked with it.
func TestCheckSeesEachTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("m.go", "package m\n\nfunc F() int { return g() }\n")
	write("m_windows.go", "package m\n\nfunc g() int { return \"not a number\" }\n")
	write("m_other.go", "//go:build !windows\n\npackage m\n\nfunc g() int { return 1 }\n")
	write("gui.go", "//go:build !headless\n\npackage m\n\nvar _ = undefinedWithoutHeadless\n")

	errs, err := check(dir, "windows/amd64", "headless", []string{"./..."})
	if err != nil || len(errs) != 1 || !strings.Contains(errs[0], "m_windows.go:3") {
		t.Fatalf("windows/amd64: %v, %q", err, errs)
	}
	if errs, err := check(dir, "linux/arm64", "headless", []string{"./..."}); err != nil || len(errs) != 0 {
		t.Fatalf("linux/arm64: %v, %q", err, errs)
	}
	if errs, err := check(dir, "linux/arm64", "", []string{"./..."}); err != nil || len(errs) != 1 || !strings.Contains(errs[0], "undefinedWithoutHeadless") {
		t.Fatalf("linux/arm64 without headless: %v, %q", err, errs)
	}
	if _, err := check(dir, "plan9", "", []string{"./..."}); err == nil {
		t.Fatal("a target without an architecture was taken")
	}
}
