//go:build linux && !headless

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/testwait"
)

var (
	uiBuildOnce sync.Once
	uiBin       string
	uiBuildErr  error
)

// uiBinary builds the binary with the tray app once per test process.
func uiBinary(t *testing.T) string {
	t.Helper()
	uiBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "capabilities-ui-e2e-")
		if err != nil {
			uiBuildErr = err
			return
		}
		keepBuilt(dir)
		uiBin = filepath.Join(dir, "capabilities")
		if out, err := exec.Command("go", "build", "-o", uiBin, ".").CombinedOutput(); err != nil {
			uiBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if uiBuildErr != nil {
		t.Fatal(uiBuildErr)
	}
	return uiBin
}

// TestDesktopHub runs the real binary as a person's desktop runs it (a
// display, a session bus, xfce4-panel's StatusNotifierWatcher): the tray
// icon registers, a call that waits raises the approval dialog, 'hub open'
// and launching the app again open the main window, and 'hub stop' after
// all that ends the hub with status 0.
func TestDesktopHub(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under scripts/with-session.sh")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Skipf("no session bus: %v", err)
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has); err != nil || !has {
		t.Skip("no StatusNotifierWatcher: run under scripts/with-session.sh, which starts xfce4-panel")
	}
	bin := uiBinary(t)
	home, userHome := t.TempDir(), t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{
		"slow": {Command: os.Args[0], Env: map[string]string{upstreamEnv: "1", "UPSTREAM_LOG": filepath.Join(t.TempDir(), "upstream.log"), "SLOW_MS": "0"}},
	}, Policy: map[string]config.Mode{"slow.slowWrite": config.Ask}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CAPABILITIES_HOME="+home, "HOME="+userHome,
		"XDG_CONFIG_HOME="+filepath.Join(userHome, ".config"), "XDG_CACHE_HOME="+filepath.Join(userHome, ".cache"))
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	hubCmd := exec.Command(bin, "hub")
	hubCmd.Env = env
	hubOut := &syncBuffer{}
	hubCmd.Stdout, hubCmd.Stderr = hubOut, hubOut
	hubCmd.WaitDelay = 5 * time.Second // its workers may hold the output open
	if err := hubCmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	reaped := make(chan struct{})
	go func() { err := hubCmd.Wait(); close(reaped); exited <- err }()
	defer func() {
		select {
		case <-reaped:
		default:
			hubCmd.Process.Kill()
			killStrays(home)
			<-reaped
		}
		killStrays(home)
		if t.Failed() {
			t.Logf("hub output:\n%s", hubOut)
		}
	}()
	eventually := func(what string, cond func() bool) {
		t.Helper()
		var exit error
		gone := false
		if !testwait.Until(60*time.Second, func() bool {
			if cond() {
				return true
			}
			select {
			case exit = <-exited:
				gone = true
				return true
			default:
				return false
			}
		}) {
			t.Fatalf("no %s within 60s", what)
		}
		if gone {
			t.Fatalf("the hub exited (%v) while waiting for %s", exit, what)
		}
	}
	var c *localapi.Client
	eventually("hub with its tools", func() bool {
		if c == nil {
			c, _ = localapi.Dial(context.Background(), config.Paths{Home: home})
		}
		if c == nil {
			return false
		}
		st, err := c.Status(context.Background())
		return err == nil && st.Tools > 0
	})
	defer c.Close()

	eventually("tray item registered with the StatusNotifierWatcher", func() bool {
		return registered(t, conn, uint32(hubCmd.Process.Pid))
	})

	var env1 hub.Envelope
	if err := c.Do(context.Background(), "POST", "/v1/execute", map[string]string{"code": `return await slow.slowWrite({ text: "x" })`}, &env1); err != nil {
		t.Fatal(err)
	}
	if env1.Status != hub.StatusAwaitingApproval {
		t.Fatalf("execute: %s", env1.Line())
	}
	eventually("approval dialog on screen", func() bool { return windowViewable(t, "capabilities: approve a tool call") })

	if out, code := run("hub", "open", "--tab", "runs"); code != 0 || !strings.Contains(out, "Opened") {
		t.Fatalf("hub open: %d %s", code, out)
	}
	eventually("main window on screen", func() bool { return windowViewable(t, "capabilities") })
	if out, code := run("hub"); code != 0 || !strings.Contains(out, "opened its window") {
		t.Fatalf("launching the app again: %d %s", code, out)
	}
	if out, code := run("hub", "open", "--tab", "nope"); code == 0 || !strings.Contains(out, "--tab") {
		t.Errorf("hub open --tab nope: %d %s", code, out)
	}

	if out, code := run("hub", "stop"); code != 0 {
		t.Fatalf("hub stop: %d %s", code, out)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the hub ended with %v after hub stop", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the hub did not end within 60s of hub stop")
	}
	if s := hubOut.String(); strings.Contains(s, "panic") || strings.Contains(s, "SIGSEGV") {
		t.Fatalf("the hub crashed on stop:\n%s", s)
	}
	if out, code := run("hub", "open"); code == 0 || !strings.Contains(out, "no hub is running") {
		t.Errorf("hub open without a hub: %d %s", code, out)
	}
}

// TestLauncherOpensTheWindow: the desktop launcher's 'hub --window' on a
// new home sets it up and opens the window on the next step: the Clients
// tab to connect a client, or the Sources tab with the import of the
// servers found in the person's clients; launched again, it opens the
// running hub's window.
func TestLauncherOpensTheWindow(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under scripts/with-session.sh")
	}
	bin := uiBinary(t)
	withServers, _, _, _ := clientsWithServers(t)
	for _, tc := range []struct {
		name, userHome, tab string
	}{
		{"nothing found", t.TempDir(), "Clients"},
		{"servers found", withServers, "Sources"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			// No npx: a home with nothing found starts with no source.
			env := append(os.Environ(), "CAPABILITIES_HOME="+home, "HOME="+tc.userHome, "PATH="+t.TempDir(),
				"XDG_CONFIG_HOME="+filepath.Join(tc.userHome, ".config"), "XDG_CACHE_HOME="+filepath.Join(tc.userHome, ".cache"))
			hubCmd := exec.Command(bin, "hub", "--window")
			hubCmd.Env = env
			hubOut := &syncBuffer{}
			hubCmd.Stdout, hubCmd.Stderr = hubOut, hubOut
			hubCmd.WaitDelay = 5 * time.Second
			if err := hubCmd.Start(); err != nil {
				t.Fatal(err)
			}
			reaped := make(chan error, 1)
			go func() { reaped <- hubCmd.Wait() }()
			defer func() {
				hubCmd.Process.Kill()
				<-reaped
				killStrays(home)
				if t.Failed() {
					t.Logf("hub output:\n%s", hubOut)
				}
			}()
			if !testwait.Until(60*time.Second, func() bool { return windowViewable(t, "capabilities") }) {
				t.Fatal("no window within 60s of 'hub --window'")
			}
			if s := hubOut.String(); !strings.Contains(s, `msg="opening the window" tab=`+tc.tab) || !strings.Contains(s, "First run: setting up") {
				t.Errorf("a new home's window does not open on the %s tab:\n%s", tc.tab, s)
			}
			again := exec.Command(bin, "hub", "--window")
			again.Env = env
			if out, err := again.CombinedOutput(); err != nil || !strings.Contains(string(out), "opened its window") {
				t.Errorf("launched again: %v %s", err, out)
			}
		})
	}
}

// registered reports whether the StatusNotifierWatcher lists an item of
// process pid.
func registered(t *testing.T, conn *dbus.Conn, pid uint32) bool {
	t.Helper()
	var items []string
	w := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")
	if err := w.StoreProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems", &items); err != nil {
		t.Fatalf("reading RegisteredStatusNotifierItems: %v", err)
	}
	for _, it := range items {
		name, _, _ := strings.Cut(it, "/")
		var owner uint32
		if conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&owner) == nil && owner == pid {
			return true
		}
	}
	return false
}

var xwinLine = regexp.MustCompile(`^\s*(0x[0-9a-f]+) "([^"]*)"`)

// windowViewable reports whether a top-level X11 window titled title is
// mapped and viewable.
func windowViewable(t *testing.T, title string) bool {
	t.Helper()
	out, err := exec.Command("xwininfo", "-root", "-tree").Output()
	if err != nil {
		t.Skipf("xwininfo: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		m := xwinLine.FindStringSubmatch(line)
		if m == nil || m[2] != title {
			continue
		}
		info, err := exec.Command("xwininfo", "-id", m[1]).Output()
		if err == nil && bytes.Contains(info, []byte("Map State: IsViewable")) {
			return true
		}
	}
	return false
}
