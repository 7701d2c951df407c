package main

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestPersonPresentNeedsTerminals: /dev/null is a character device but not
// a terminal; only a terminal on stdin and on stdout counts.
func TestPersonPresentNeedsTerminals(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	tty := openPTY(t)
	oldIn, oldOut := os.Stdin, os.Stdout
	t.Cleanup(func() { os.Stdin, os.Stdout = oldIn, oldOut })
	for _, tc := range []struct {
		name    string
		in, out *os.File
		want    bool
	}{
		{"dev null both", devnull, devnull, false},
		{"terminal in, dev null out", tty, devnull, false},
		{"dev null in, terminal out", devnull, tty, false},
		{"terminals", tty, tty, true},
	} {
		os.Stdin, os.Stdout = tc.in, tc.out
		e := processEnv()
		os.Stdin, os.Stdout = oldIn, oldOut
		if got := e.personPresent(); got != tc.want {
			t.Errorf("%s: personPresent = %v, want %v", tc.name, got, tc.want)
		}
	}
}
