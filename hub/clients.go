package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ClientConfig is where an MCP client keeps its server list.
type ClientConfig struct {
	Client string // claude-desktop | claude-code | cursor | vscode
	Path   string
	Key    string // the object holding servers: "mcpServers" or "servers"
}

// Clients are the MCP clients `capabilities install` knows.
var Clients = []string{"claude-code", "claude-desktop", "cursor", "vscode"}

// ClientConfigs returns the config files of the known clients for a user
// with home folder home, OS config folder configDir (os.UserConfigDir) on
// goos.
func ClientConfigs(home, configDir, goos string) []ClientConfig {
	claudeDesktop := filepath.Join(configDir, "Claude", "claude_desktop_config.json")
	vscode := filepath.Join(configDir, "Code", "User", "mcp.json")
	return []ClientConfig{
		{Client: "claude-code", Path: filepath.Join(home, ".claude.json"), Key: "mcpServers"},
		{Client: "claude-desktop", Path: claudeDesktop, Key: "mcpServers"},
		{Client: "cursor", Path: filepath.Join(home, ".cursor", "mcp.json"), Key: "mcpServers"},
		{Client: "vscode", Path: vscode, Key: "servers"},
	}
}

// ClientConfigFor returns the config file of one client.
func ClientConfigFor(client, home, configDir, goos string) (ClientConfig, error) {
	for _, c := range ClientConfigs(home, configDir, goos) {
		if c.Client == client {
			return c, nil
		}
	}
	return ClientConfig{}, fmt.Errorf("unknown client %q; known: claude-code, claude-desktop, cursor, vscode", client)
}

// ShimEntry is the server entry a client needs to reach the hub: the shim
// command, with CAPABILITIES_HOME when it is not the default.
func ShimEntry(client, exe, home string) map[string]any {
	e := map[string]any{"command": exe, "args": []string{"mcp"}}
	if client == "vscode" {
		e["type"] = "stdio"
	}
	if home != "" {
		e["env"] = map[string]string{"CAPABILITIES_HOME": home}
	}
	return e
}

// HTTPEntry is the server entry for a client that reaches the hub's
// streamable HTTP endpoint (`capabilities hub --http`) at url, carrying
// the endpoint's bearer token. Claude Desktop takes remote servers only as
// connectors, not in its config file.
func HTTPEntry(client, url, token string) (map[string]any, error) {
	if client == "claude-desktop" {
		return nil, errors.New("Claude Desktop adds remote servers as connectors in its settings, not in its config file; connect it over stdio (install claude-desktop without --http)")
	}
	e := map[string]any{"url": url, "headers": map[string]string{"Authorization": "Bearer " + token}}
	if client != "cursor" {
		e["type"] = "http"
	}
	return e, nil
}

// InstallResult says what Install did.
type InstallResult struct {
	Path    string
	Backup  string // "" when the file did not exist
	Changed bool
}

// Install adds (or updates) the "capabilities" server entry in a client's
// config file, keeping every other key. An existing file is copied to a
// timestamped backup first; a file that is not a JSON object is left alone
// with an error.
func Install(cc ClientConfig, entry map[string]any, now time.Time) (InstallResult, error) {
	res := InstallResult{Path: cc.Path}
	top := map[string]json.RawMessage{}
	data, err := os.ReadFile(cc.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return res, fmt.Errorf("reading %s: %w", cc.Path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &top); err != nil {
			return res, &ConfigError{File: cc.Path, Problem: "not a JSON object (" + jsonProblem(data, err) + "); left unchanged"}
		}
	}
	servers := map[string]json.RawMessage{}
	if raw, ok := top[cc.Key]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return res, &ConfigError{File: cc.Path, Key: cc.Key, Problem: "not an object; left unchanged"}
		}
	}
	want, _ := json.Marshal(entry)
	if old, ok := servers["capabilities"]; ok && jsonEqual(old, want) {
		return res, nil
	}
	servers["capabilities"] = want
	top[cc.Key], _ = json.Marshal(servers)
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return res, err
	}
	if data != nil {
		res.Backup = cc.Path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(res.Backup, data, 0o600); err != nil {
			return res, fmt.Errorf("backing up %s: %w", cc.Path, err)
		}
	}
	perm := os.FileMode(0o600)
	if fi, err := os.Stat(cc.Path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := writeFileAtomic(cc.Path, append(out, '\n'), perm); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}
