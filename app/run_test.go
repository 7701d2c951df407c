package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestMakeRunWithoutADisplayRunsHeadless runs what `make run` runs, with no
// display and no D-Bus session: the hub must come up headless (no virtual
// display) and say how to approve from a terminal.
func TestMakeRunWithoutADisplayRunsHeadless(t *testing.T) {
	bin := binary(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte("{}\n"), 0o600)
	cmd := exec.Command(filepath.Join("..", "scripts", "run-hub.sh"), bin)
	cmd.Env = append(os.Environ(), "CAPABILITIES_HOME="+home, "HOME="+t.TempDir(), "DISPLAY=", "WAYLAND_DISPLAY=", "DBUS_SESSION_BUS_ADDRESS=")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		killStrays(home)
	})
	var st hub.Status
	var err error
	if !testwait.Until(60*time.Second, func() bool {
		var c *localapi.Client
		if c, err = localapi.Dial(context.Background(), config.Paths{Home: home}); err != nil {
			return false
		}
		defer c.Close()
		st, err = c.Status(context.Background())
		return err == nil
	}) {
		t.Fatalf("no hub answered within 60s: %v\n%s", err, out)
	}
	if st.PID != cmd.Process.Pid {
		t.Errorf("the hub is pid %d, the script's exec was pid %d (something ran in between)", st.PID, cmd.Process.Pid)
	}
	for _, want := range []string{"running the hub headless", "hub runs --pending, then " + bin + " hub approve RUNID", "No D-Bus session"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "xvfb") {
		t.Errorf("make run mentions a virtual display:\n%s", out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the hub did not end cleanly on SIGTERM: %v\n%s", err, out)
	}
}
