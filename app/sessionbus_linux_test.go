package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if !strings.Contains(string(out), "keychain unavailable") {
		t.Errorf("doctor without a session bus:\n%s", out)
	}
	if left := processesWithEnv("CAPABILITIES_HOME=" + home); len(left) > 0 {
		t.Errorf("processes left behind by doctor: %s", strings.Join(left, ", "))
	}
}

// processesWithEnv lists "pid name" of the processes whose environment
// holds kv.
func processesWithEnv(kv string) []string {
	want := []byte(kv + "\x00")
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid := 0
		if _, err := fmt.Sscan(d.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
			out = append(out, d.Name()+" "+strings.TrimSpace(string(comm)))
		}
	}
	return out
}
