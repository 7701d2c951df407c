package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/testwait"
)

func TestShouldReplace(t *testing.T) {
	for _, tc := range []struct {
		running, runningExe, mine, myExe string
		want                             bool
	}{
		{"af29201", "/home/p/.local/bin/capabilities", "b7de41d", "/home/p/.local/bin/capabilities", true}, // make install over it
		{"af29201", "/home/p/.local/bin/capabilities", "af29201", "/home/p/.local/bin/capabilities", false},
		{"af29201", "/home/p/clone/bin/capabilities", "b7de41d", "/home/p/.local/bin/capabilities", false}, // two binaries: no ping-pong
		{"0.1.0", "/a", "0.2.0", "/b", true},
		{"v0.2.0", "/a", "0.1.9", "/b", false},
		{"0.2.0", "/a", "0.2.0-dev", "/b", false},
		{"1.2.3", "/a", "v1.10.0", "/b", true},
		{"", "/a", "0.2.0", "/a", false}, // a hub that does not say
		{"0.1.0", "", "0.1.1-rc1", "", true},
	} {
		if got := shouldReplace(tc.running, tc.runningExe, tc.mine, tc.myExe); got != tc.want {
			t.Errorf("shouldReplace(%q, %q, %q, %q) = %v, want %v", tc.running, tc.runningExe, tc.mine, tc.myExe, got, tc.want)
		}
	}
}

// buildVersion builds the headless binary with version v and puts it at
// path by a rename, as an install does (a running hub keeps its file).
func buildVersion(t *testing.T, path, v string) {
	t.Helper()
	tmp := path + ".new"
	cmd := exec.Command("go", "build", "-tags", "headless", "-ldflags", "-X main.version="+v, "-o", tmp, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func hubStatus(t *testing.T, home string) (hub.Status, bool) {
	c, err := localapi.Dial(context.Background(), config.Paths{Home: home})
	if err != nil {
		return hub.Status{}, false
	}
	defer c.Close()
	st, err := c.Status(context.Background())
	return st, err == nil
}

func TestNewerBinaryReplacesTheRunningHub(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "capabilities")
	buildVersion(t, bin, "1.0.0")
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte("{}\n"), 0o600)
	t.Cleanup(func() { killStrays(home) })
	environ := append(os.Environ(), "CAPABILITIES_HOME="+home, "HOME="+t.TempDir(), "DISPLAY=", "WAYLAND_DISPLAY=")
	old := exec.Command(bin, "hub", "--headless")
	old.Env = environ
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- old.Wait() }()
	testwait.For(t, 60*time.Second, "the 1.0.0 hub to come up", func() bool {
		st, ok := hubStatus(t, home)
		return ok && st.Version == "1.0.0" && st.Exe == bin
	})
	buildVersion(t, bin, "1.1.0")

	shim := exec.Command(bin, "mcp")
	shim.Env = environ
	client := mcp.NewClient(&mcp.Implementation{Name: "upgrade-test", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: shim}, nil)
	if err != nil {
		t.Fatalf("connecting through the new shim: %v", err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools/list through the new hub: %v %v", tools, err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the old hub did not stop cleanly: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the old hub still runs")
	}
	st, ok := hubStatus(t, home)
	if !ok || st.Version != "1.1.0" || st.PID == old.Process.Pid {
		t.Fatalf("the hub now: %+v (ok %v), old pid %d", st, ok, old.Process.Pid)
	}
}
