package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/config"
)

// The person's client files as their clients write them: ~/.claude.json
// holds Claude Code's whole state beside mcpServers, and VS Code's mcp.json
// has comments, trailing commas and "inputs" beside "servers".
const (
	realClaudeJSON = `{
  "numStartups": 42,
  "installMethod": "global",
  "autoUpdates": true,
  "projects": {
    "/home/ada/src/site": {
      "allowedTools": [],
      "history": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "mcpServers": {
    "memory": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-memory"
      ],
      "env": {}
    }
  }
}
`
	realVSCodeJSON = `{
	// Servers for this machine.
	"servers": {
		"memory": {
			"type": "stdio",
			"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-memory"],
		},
	},
	"inputs": [],
}
`
)

// clientTop decodes a client file (comments allowed) into its top-level
// keys.
func clientTop(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	std, err := config.StandardJSON(b)
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return top
}

// serversIn are the names of the servers under key in a client file.
func serversIn(t *testing.T, path, key string) []string {
	t.Helper()
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(clientTop(t, path)[key], &servers); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(servers))
}

// keptOthers fails when a top-level key of the file other than key differs
// from the original's.
func keptOthers(t *testing.T, step, path, orig, key string) {
	t.Helper()
	std, err := config.StandardJSON([]byte(orig))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	json.Unmarshal(std, &want)
	b, _ := json.Marshal(clientTop(t, path))
	var got map[string]any
	json.Unmarshal(b, &got)
	delete(want, key)
	delete(got, key)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s changed other keys of %s (-want +got):\n%s", step, path, diff)
	}
}

func TestRealClientFilesInstallDoctorUninstall(t *testing.T) {
	requireKeychain(t)
	d := newDesk(t)
	homeKeychain(t, d.home)
	claude := filepath.Join(d.userHome, ".claude.json")
	vscode := filepath.Join(d.userConf, "Code", "User", "mcp.json")
	os.MkdirAll(filepath.Dir(vscode), 0o700)
	os.WriteFile(claude, []byte(realClaudeJSON), 0o600)
	os.WriteFile(vscode, []byte(realVSCodeJSON), 0o600)
	os.WriteFile(filepath.Join(d.home, "config.json"), []byte(`{}`), 0o600)

	r := d.run("", false, "doctor", "--no-sources")
	if !strings.Contains(r.stdout, "[warn] clients: no MCP client is connected") {
		t.Errorf("doctor before install:\n%s", r.stdout)
	}

	for _, c := range []struct{ client, path, key, orig string }{
		{"claude-code", claude, "mcpServers", realClaudeJSON},
		{"vscode", vscode, "servers", realVSCodeJSON},
	} {
		if r := d.run("", false, "install", c.client); r.code != 0 || !strings.Contains(r.stdout, "Added capabilities to "+c.client) {
			t.Fatalf("install %s: %+v", c.client, r)
		}
		keptOthers(t, "install", c.path, c.orig, c.key)
		if got := strings.Join(serversIn(t, c.path, c.key), " "); got != "capabilities memory" {
			t.Errorf("%s servers after install: %s", c.client, got)
		}
		if r := d.run("", false, "install", c.client); r.code != 0 || !strings.Contains(r.stdout, "already runs capabilities") {
			t.Errorf("second install %s: %+v", c.client, r)
		}
	}

	r = d.run("", false, "doctor", "--no-sources")
	for _, want := range []string{"[ok  ] client claude-code: connected (" + claude + ")", "[ok  ] client vscode: connected (" + vscode + ")"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor after install lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "capabilities install claude-code") {
		t.Errorf("doctor asks for the install just run:\n%s", r.stdout)
	}

	r = d.run("", false, "uninstall", "--all", "--yes")
	if r.code != 0 {
		t.Fatalf("uninstall --all: %+v", r)
	}
	for _, want := range []string{"Removed capabilities from claude-code", "Removed capabilities from vscode"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("uninstall --all lacks %q:\n%s", want, r.stdout)
		}
	}
	for path, orig := range map[string]string{claude: realClaudeJSON, vscode: realVSCodeJSON} {
		if b, _ := os.ReadFile(path); string(b) != orig {
			t.Errorf("after install and uninstall --all, %s is not the original (-want +got):\n%s", path, cmp.Diff(orig, string(b)))
		}
	}
	r = d.run("", false, "doctor", "--no-sources")
	if strings.Contains(r.stdout, "client claude-code: connected") || strings.Contains(r.stdout, "client vscode: connected") {
		t.Errorf("doctor after uninstall --all:\n%s", r.stdout)
	}
}
