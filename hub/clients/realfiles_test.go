package clients

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

// claudeJSON is ~/.claude.json as Claude Code keeps it: its whole state,
// with top-level scalars, arrays and objects beside mcpServers, and
// per-project server lists of its own.
const claudeJSON = `{
  "numStartups": 42,
  "installMethod": "global",
  "autoUpdates": true,
  "tipsHistory": {
    "new-user-warmup": 1
  },
  "projects": {
    "/home/ada/src/site": {
      "allowedTools": [],
      "history": [
        {
          "display": "fix the footer",
          "pastedContents": {}
        }
      ],
      "mcpServers": {},
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "0f3c9b1e",
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

// vscodeJSON is VS Code's mcp.json: JSON with comments and trailing
// commas, its servers under "servers" and an "inputs" array beside them.
const vscodeJSON = `{
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

// topLevel decodes a client file's top level (comments allowed), less key.
func topLevel(t *testing.T, data []byte, key string) map[string]any {
	t.Helper()
	std, err := config.StandardJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(std, &top); err != nil {
		t.Fatal(err)
	}
	delete(top, key)
	return top
}

func TestRealClientFiles(t *testing.T) {
	for _, tc := range []struct {
		client, body, key string
		wantOther         []string
	}{
		{"claude-code", claudeJSON, "mcpServers", []string{"autoUpdates", "installMethod", "numStartups", "projects", "tipsHistory", "userID"}},
		{"vscode", vscodeJSON, "servers", []string{"inputs"}},
	} {
		t.Run(tc.client, func(t *testing.T) {
			cc := ClientConfig{Client: tc.client, Path: filepath.Join(t.TempDir(), "client.json"), Key: tc.key}
			if err := os.WriteFile(cc.Path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			other := topLevel(t, []byte(tc.body), tc.key)
			if got := slices.Sorted(maps.Keys(other)); !slices.Equal(got, tc.wantOther) {
				t.Fatalf("the file's other keys are %v, want %v", got, tc.wantOther)
			}
			if HasEntry(cc) {
				t.Fatal("HasEntry before Install")
			}
			found, problems := Discover([]ClientConfig{cc})
			if len(problems) != 0 || len(found) != 1 || found[0].Name != "memory" {
				t.Fatalf("Discover: %+v, %v", found, problems)
			}

			if res, err := Install(cc, entry, when); err != nil || !res.Changed {
				t.Fatalf("Install: %+v, %v", res, err)
			}
			if !HasEntry(cc) {
				t.Fatalf("HasEntry after Install is false:\n%s", read(t, cc.Path))
			}
			after := []byte(read(t, cc.Path))
			if diff := cmp.Diff(other, topLevel(t, after, tc.key)); diff != "" {
				t.Errorf("Install changed other keys (-before +after):\n%s", diff)
			}
			var top map[string]json.RawMessage
			var servers map[string]any
			std, _ := config.StandardJSON(after)
			if err := json.Unmarshal(std, &top); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(top[tc.key], &servers); err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(servers)); !slices.Equal(got, []string{"capabilities", "memory"}) {
				t.Errorf("servers after Install: %v", got)
			}
			if found, _ := Discover([]ClientConfig{cc}); len(found) != 1 || found[0].Name != "memory" {
				t.Errorf("Discover after Install: %+v (the hub's own entry is not a server to import)", found)
			}

			if res, err := Uninstall(cc, when); err != nil || !res.Changed {
				t.Fatalf("Uninstall: %+v, %v", res, err)
			}
			if HasEntry(cc) {
				t.Error("HasEntry after Uninstall")
			}
			if got := read(t, cc.Path); got != tc.body {
				t.Errorf("after Install and Uninstall the file is not the original (-want +got):\n%s", cmp.Diff(tc.body, got))
			}
		})
	}
}

func TestHasEntry(t *testing.T) {
	for _, tc := range []struct {
		name, key, body string
		want            bool
	}{
		{"scalars beside the servers", "mcpServers", `{"numStartups": 3, "mcpServers": {"capabilities": {"command": "c"}}}`, true},
		{"an array beside the servers", "servers", `{"inputs": [], "servers": {"capabilities": {"command": "c"}}}`, true},
		{"comments and trailing commas", "servers", "{\n// mine\n\"servers\": {\"capabilities\": {\"command\": \"c\",},},\n}", true},
		{"only in a project", "mcpServers", `{"projects": {"/p": {"mcpServers": {"capabilities": {"command": "c"}}}}, "mcpServers": {}}`, false},
		{"another server", "mcpServers", `{"mcpServers": {"memory": {"command": "npx"}}}`, false},
		{"no servers", "mcpServers", `{"numStartups": 3}`, false},
		{"servers not an object", "mcpServers", `{"mcpServers": []}`, false},
		{"not an object", "mcpServers", `[]`, false},
		{"not JSON", "mcpServers", `{not json`, false},
		{"empty", "mcpServers", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := writeClient(t, tc.key, tc.body)
			if tc.body == "" {
				os.WriteFile(cc.Path, nil, 0o600)
			}
			if got := HasEntry(cc); got != tc.want {
				t.Errorf("HasEntry(%s) = %v, want %v", tc.body, got, tc.want)
			}
		})
	}
	if HasEntry(ClientConfig{Path: filepath.Join(t.TempDir(), "none.json"), Key: "mcpServers"}) {
		t.Error("HasEntry of a missing file")
	}
}

// profilesJSON is a client file after `install claude-code` and two
// `install claude-code --profile`: the plain entry, a profile's over stdio
// and one's over HTTP with the endpoint's token, beside a server of the
// person's own whose name only shares the prefix.
const profilesJSON = `{
  "numStartups": 7,
  "mcpServers": {
    "capabilities": {"command": "/old/capabilities", "args": ["mcp"]},
    "capabilities-work": {"command": "/old/capabilities", "args": ["mcp", "--profile", "work"]},
    "capabilities-web": {"type": "http", "url": "http://127.0.0.1:8765/mcp/p/web", "headers": {"Authorization": "Bearer old-token-0123456789"}},
    "capabilities-notes": {"command": "node", "args": ["notes.js"]}
  }
}
`

// TestProfileEntries: every command that edits the hub's entry in a
// client's file edits each profile's too, and leaves alone a server of the
// person's own named like one.
func TestProfileEntries(t *testing.T) {
	cc := ClientConfig{Client: "claude-code", Path: filepath.Join(t.TempDir(), "client.json"), Key: "mcpServers"}
	if err := os.WriteFile(cc.Path, []byte(profilesJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := func() map[string]map[string]any {
		t.Helper()
		std, err := config.StandardJSON([]byte(read(t, cc.Path)))
		if err != nil {
			t.Fatal(err)
		}
		var top struct {
			NumStartups int                       `json:"numStartups"`
			Servers     map[string]map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(std, &top); err != nil {
			t.Fatal(err)
		}
		if top.NumStartups != 7 {
			t.Errorf("numStartups is %d, want 7 kept", top.NumStartups)
		}
		return top.Servers
	}
	if !HasEntry(cc) {
		t.Fatal("HasEntry is false for a file with the hub's entries")
	}
	if found, _ := Discover([]ClientConfig{cc}); len(found) != 1 || found[0].Name != "capabilities-notes" {
		t.Errorf("Discover: %+v; want only the person's own capabilities-notes (a profile's entry is the hub itself)", found)
	}

	if res, err := Repoint(cc, "/new/capabilities", when); err != nil || !res.Changed {
		t.Fatalf("Repoint: %+v, %v", res, err)
	}
	s := servers()
	for name, want := range map[string]string{"capabilities": "/new/capabilities", "capabilities-work": "/new/capabilities", "capabilities-notes": "node"} {
		if got := s[name]["command"]; got != want {
			t.Errorf("after Repoint %s runs %v, want %s", name, got, want)
		}
	}

	res, err := ReplaceHTTPToken(cc, "old-token-0123456789", "new-token-9876543210", when)
	if err != nil || !res.Changed {
		t.Fatalf("ReplaceHTTPToken: %+v, %v", res, err)
	}
	if got := servers()["capabilities-web"]["headers"].(map[string]any)["Authorization"]; got != "Bearer new-token-9876543210" {
		t.Errorf("capabilities-web carries %v after the rotation", got)
	}
	if b := read(t, res.Backup); strings.Contains(b, "old-token-0123456789") || strings.Contains(b, "new-token-9876543210") {
		t.Errorf("the backup holds a token:\n%s", b)
	}
	for _, p := range []string{cc.Path, res.Backup} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; a file with the hub's token is 0600", p, fi.Mode(), err)
		}
	}

	if res, err := Uninstall(cc, when); err != nil || !res.Changed {
		t.Fatalf("Uninstall: %+v, %v", res, err)
	}
	if got := slices.Sorted(maps.Keys(servers())); !slices.Equal(got, []string{"capabilities-notes"}) {
		t.Errorf("servers after Uninstall: %v, want the person's own only", got)
	}
	if HasEntry(cc) {
		t.Error("HasEntry after Uninstall")
	}
}
