package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/proc"
)

// TestNoSessionBusLeftBehind runs doctor, which reads the keychain, where
// there is no session bus: it says the keychain is unavailable, and no
// process it started (a dbus-daemon and gnome-keyring-daemon autolaunched
// for it) outlives it. Such a process would carry the command's
// CAPABILITIES_HOME in its environment.
func TestNoSessionBusLeftBehind(t *testing.T) {
	if _, err := exec.LookPath("dbus-launch"); err != nil {
		t.Skip("no dbus-launch here: nothing could autolaunch a session bus")
	}
	if _, err := os.Stat(filepath.Join("/run/user", fmt.Sprint(os.Getuid()), "bus")); err == nil {
		t.Skip("this user has a session bus in its runtime folder")
	}
	bin := binary(t)
	home := t.TempDir()
	t.Cleanup(func() { killStrays(home) })
	cmd := exec.Command(bin, "doctor")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "CAPABILITIES_HOME="+home, "HOME="+t.TempDir(), "DISPLAY=")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "[FAIL] keychain: unreachable") {
		t.Errorf("doctor without a session bus:\n%s", out)
	}
	if left := proc.WithEnv("CAPABILITIES_HOME=" + home); len(left) > 0 {
		t.Errorf("processes left behind by doctor: %v", left)
	}
}
