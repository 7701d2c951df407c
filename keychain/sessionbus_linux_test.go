package keychain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/proc"
)

func TestSessionBusOverride(t *testing.T) {
	none, withBus, withFile := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(withBus, "bus"), nil, 0o600)
	os.WriteFile(filepath.Join(withFile, "dbus-session"), []byte("DBUS_SESSION_BUS_ADDRESS=unix:abstract=/tmp/x\n"), 0o600)
	for _, tc := range []struct {
		addr, dir, want string
	}{
		{"unix:path=/run/user/1000/bus", none, ""},
		{"", none, "disabled:"},
		{"autolaunch:", none, "disabled:"},
		{"", withBus, ""},
		{"", withFile, ""},
	} {
		if got := sessionBusOverride(tc.addr, tc.dir); got != tc.want {
			t.Errorf("sessionBusOverride(%q, %s) = %q, want %q", tc.addr, tc.dir, got, tc.want)
		}
	}
}

// TestKeychainStartsNoSessionBus: a program that reaches the keychain
// without having called NoBusAutolaunch, where there is no session bus,
// gets the keychain unavailable, and nothing it started (a dbus-daemon
// autolaunched for it, and the keyring that daemon activates) outlives
// it. Such a process would carry the program's marker in its environment.
// The program is this test binary, run again with keychainChildEnv.
func TestKeychainStartsNoSessionBus(t *testing.T) {
	if os.Getenv(keychainChildEnv) != "" {
		_, err := New().Get("probe")
		if !errors.Is(err, ErrUnavailable) {
			fmt.Printf("Get without a session bus: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if _, err := exec.LookPath("dbus-launch"); err != nil {
		t.Skip("no dbus-launch here: nothing could autolaunch a session bus")
	}
	if _, err := os.Stat(filepath.Join("/run/user", fmt.Sprint(os.Getuid()), "bus")); err == nil {
		t.Skip("this user has a session bus in its runtime folder")
	}
	marker := fmt.Sprintf("CAPABILITIES_KEYCHAIN_PROBE=%d", os.Getpid())
	cmd := exec.Command(os.Args[0], "-test.run=^TestKeychainStartsNoSessionBus$")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, keychainChildEnv+"=1", marker, "HOME="+t.TempDir(), "DISPLAY=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
	if left := proc.WithEnv(marker); len(left) > 0 {
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		t.Errorf("processes left behind by a keychain read: %v", left)
	}
}

const keychainChildEnv = "CAPABILITIES_KEYCHAIN_CHILD"
