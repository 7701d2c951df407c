package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

// desk is a fake user's desktop: home, config folder, and what the CLI
// started in it sees.
type desk struct {
	t                        *testing.T
	home, userHome, userConf string
	exe                      string
}

func newDesk(t *testing.T) *desk {
	d := &desk{t: t, home: t.TempDir(), userHome: t.TempDir()}
	d.userConf = filepath.Join(d.userHome, ".config")
	// The binary being installed: any executable file does for copying.
	d.exe = filepath.Join(t.TempDir(), "clone", "bin", "capabilities")
	os.MkdirAll(filepath.Dir(d.exe), 0o755)
	os.WriteFile(d.exe, []byte("#!/bin/sh\necho capabilities\n"), 0o755)
	return d
}

func (d *desk) run(stdin string, person bool, args ...string) result {
	d.t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"CAPABILITIES_HOME": d.home, "XDG_CONFIG_HOME": d.userConf, "PATH": "/usr/bin"}
	e := &env{
		Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }, Exe: d.exe,
		UserHome: d.userHome, UserConfig: d.userConf, StdinIsTerminal: person, StdoutIsTerminal: person,
	}
	return result{run(context.Background(), e), out.String(), errb.String()}
}

func TestInstallAppPointsClientsAndAutostartAtIt(t *testing.T) {
	d := newDesk(t)
	claude := filepath.Join(d.userHome, ".claude.json")
	os.WriteFile(claude, []byte(`{"mcpServers": {"capabilities": {"command": "`+d.exe+`", "args": ["mcp"]}, "memory": {"command": "npx"}}}`), 0o600)
	if r := d.run("", false, "hub", "autostart", "on"); r.code != 0 {
		t.Fatalf("autostart on: %+v", r)
	}
	r := d.run("", false, "install", "app")
	if r.code != 0 {
		t.Fatalf("install app: %+v", r)
	}
	bin := filepath.Join(d.userHome, ".local", "bin", "capabilities")
	share := filepath.Join(d.userHome, ".local", "share")
	if b, err := os.ReadFile(bin); err != nil || !strings.Contains(string(b), "echo capabilities") {
		t.Fatalf("installed binary: %v", err)
	}
	if fi, _ := os.Stat(bin); fi == nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("installed binary is not executable: %v", fi)
	}
	desktop, _ := os.ReadFile(filepath.Join(share, "applications", "capabilities.desktop"))
	if !strings.Contains(string(desktop), "Exec="+bin+" hub --window\n") {
		t.Errorf("launcher:\n%s", desktop)
	}
	for _, icon := range []string{"icons/hicolor/512x512/apps/sh.capabilities.hub.png", "icons/hicolor/scalable/apps/sh.capabilities.hub.svg"} {
		if fi, err := os.Stat(filepath.Join(share, icon)); err != nil || fi.Size() == 0 {
			t.Errorf("icon %s: %v", icon, err)
		}
	}
	if b, _ := os.ReadFile(claude); !strings.Contains(string(b), `"command": "`+bin+`"`) || strings.Contains(string(b), d.exe) || !strings.Contains(string(b), `"memory"`) {
		t.Errorf("the client entry still runs the clone:\n%s", b)
	}
	auto, _ := os.ReadFile(filepath.Join(d.userConf, "autostart", "capabilities.desktop"))
	if !strings.Contains(string(auto), "Exec="+bin+" hub\n") {
		t.Errorf("autostart still runs the clone, or opens the window at login:\n%s", auto)
	}
	if !strings.Contains(r.stdout, "Add "+filepath.Join(d.userHome, ".local", "bin")+" to your PATH") {
		t.Errorf("no PATH hint:\n%s", r.stdout)
	}
	// New entries run the installed binary too.
	if r := d.run("", false, "install", "cursor"); r.code != 0 {
		t.Fatalf("install cursor: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(d.userHome, ".cursor", "mcp.json")); !strings.Contains(string(b), `"command": "`+bin+`"`) {
		t.Errorf("cursor entry:\n%s", b)
	}
	// Installing again from the installed binary changes nothing.
	d.exe = bin
	if r := d.run("", false, "install", "app"); r.code != 0 || strings.Contains(r.stdout, "Installed "+bin) || !strings.Contains(r.stdout, bin+" is installed") {
		t.Errorf("install app from the installed binary: %+v", r)
	}
}

func TestUninstallClientKeepsTheRestOfItsFile(t *testing.T) {
	d := newDesk(t)
	vscode := filepath.Join(d.userConf, "Code", "User", "mcp.json")
	os.MkdirAll(filepath.Dir(vscode), 0o700)
	in := "{\n  // mine\n  \"servers\": {\n    \"memory\": {\"command\": \"npx\"},\n  },\n  \"inputs\": []\n}\n"
	os.WriteFile(vscode, []byte(in), 0o600)
	if r := d.run("", false, "install", "vscode"); r.code != 0 {
		t.Fatalf("install vscode: %+v", r)
	}
	r := d.run("", false, "uninstall", "vscode")
	if r.code != 0 || !strings.Contains(r.stdout, "Removed capabilities from vscode") {
		t.Fatalf("uninstall vscode: %+v", r)
	}
	if b, _ := os.ReadFile(vscode); string(b) != in {
		t.Errorf("after install and uninstall the file is not the original:\n%s\nwant:\n%s", b, in)
	}
	if r := d.run("", false, "uninstall", "vscode"); r.code != 0 || !strings.Contains(r.stdout, "has no capabilities entry") {
		t.Errorf("second uninstall: %+v", r)
	}
	if r := d.run("", false, "uninstall", "emacs"); r.code != exitUsage {
		t.Errorf("unknown client: %+v", r)
	}
	if r := d.run("", false, "uninstall"); r.code != exitUsage {
		t.Errorf("no client: %+v", r)
	}
}

func TestUninstallAllAsksAndRemovesThisHomesSecrets(t *testing.T) {
	requireKeychain(t)
	d := newDesk(t)
	kc := homeKeychain(t, d.home)
	other := homeKeychain(t, t.TempDir())
	key := config.SecretKey("github", "work", "GITHUB_TOKEN")
	if err := kc.Set(key, "secret-of-this-home"); err != nil {
		t.Fatal(err)
	}
	if err := other.Set(key, "secret-of-another-home"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"install", "app"}, {"install", "claude-code"}, {"hub", "autostart", "on"}} {
		if r := d.run("", false, args...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	claude := filepath.Join(d.userHome, ".claude.json")
	autostart := filepath.Join(d.userConf, "autostart", "capabilities.desktop")
	launcher := filepath.Join(d.userHome, ".local", "share", "applications", "capabilities.desktop")

	if r := d.run("", false, "uninstall", "--all"); r.code != exitFailure || !strings.Contains(r.stderr, "no terminal to ask on") || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("--all without a terminal: %+v", r)
	}
	r := d.run("n\n", true, "uninstall", "--all")
	if r.code != 0 || !strings.Contains(r.stdout, "Remove all of this? [y/N]") || !strings.Contains(r.stdout, "Nothing removed.") {
		t.Fatalf("--all answered no: %+v", r)
	}
	for _, want := range []string{"the capabilities entry of claude-code", "starting the hub at login", launcher, "every secret of " + d.home} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the list lacks %q:\n%s", want, r.stdout)
		}
	}
	if !fileExists(autostart) || !fileExists(launcher) || !clients.HasEntry(clients.ClientConfig{Path: claude, Key: "mcpServers"}) {
		t.Fatal("answering no removed something")
	}
	if got, _ := kc.Get(key); got != "secret-of-this-home" {
		t.Fatal("answering no removed a secret")
	}

	r = d.run("", false, "uninstall", "--all", "--yes")
	if r.code != 0 {
		t.Fatalf("--all --yes: %+v", r)
	}
	if fileExists(autostart) || fileExists(launcher) || clients.HasEntry(clients.ClientConfig{Path: claude, Key: "mcpServers"}) {
		t.Errorf("left behind: autostart %v, launcher %v, client entry\n%s", fileExists(autostart), fileExists(launcher), r.stdout)
	}
	if _, err := kc.Get(key); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("this home's secret is still there: %v", err)
	}
	if got, _ := other.Get(key); got != "secret-of-another-home" {
		t.Errorf("another home's secret was removed: %q", got)
	}
	if !fileExists(filepath.Join(d.userHome, ".local", "bin", "capabilities")) {
		t.Error("the binary was removed")
	}
}
