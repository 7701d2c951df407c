package hub

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var when = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func writeClient(t *testing.T, key, body string) ClientConfig {
	t.Helper()
	cc := ClientConfig{Client: "vscode", Path: filepath.Join(t.TempDir(), "mcp.json"), Key: key}
	if body != "" {
		if err := os.WriteFile(cc.Path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cc
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var entry = map[string]any{"command": "/usr/local/bin/capabilities", "args": []string{"mcp"}}

func TestInstallKeepsCommentsOrderAndLayout(t *testing.T) {
	in := `{
	// My servers; the work ones need the VPN.
	"servers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}, // trailing comment
		/* the second */ "github": {
			"command": "npx",
		},
	},
	"inputs": [],
}
`
	cc := writeClient(t, "servers", in)
	res, err := Install(cc, entry, when)
	if err != nil || !res.Changed {
		t.Fatalf("Install: %+v, %v", res, err)
	}
	want := `{
	// My servers; the work ones need the VPN.
	"servers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}, // trailing comment
		/* the second */ "github": {
			"command": "npx",
		},
		"capabilities": {
			"args": [
				"mcp"
			],
			"command": "/usr/local/bin/capabilities"
		},
	},
	"inputs": [],
}
`
	if diff := cmp.Diff(want, read(t, cc.Path)); diff != "" {
		t.Errorf("installed file (-want +got):\n%s", diff)
	}
	if read(t, res.Backup) != in {
		t.Error("the backup is not the original file")
	}
	if res, err := Install(cc, entry, when); err != nil || res.Changed {
		t.Errorf("second Install changed the file: %+v, %v", res, err)
	}
	// Uninstall takes out only the entry.
	res, err = Uninstall(cc, when.Add(time.Second))
	if err != nil || !res.Changed {
		t.Fatalf("Uninstall: %+v, %v", res, err)
	}
	got := read(t, cc.Path)
	if got != in {
		t.Errorf("install then uninstall did not give back the file:\n%s", got)
	}
	if strings.Contains(got, "capabilities") || !strings.Contains(got, "// trailing comment") || !strings.Contains(got, `"github"`) || !strings.Contains(got, `"inputs": [],`) {
		t.Errorf("after Uninstall:\n%s", got)
	}
	if res, err := Uninstall(cc, when); err != nil || res.Changed {
		t.Errorf("second Uninstall: %+v, %v", res, err)
	}
}

func TestInstallIntoNewAndPlainFiles(t *testing.T) {
	cc := writeClient(t, "mcpServers", "")
	if _, err := Install(cc, entry, when); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"mcpServers\": {\n    \"capabilities\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/usr/local/bin/capabilities\"\n    }\n  }\n}\n"
	if diff := cmp.Diff(want, read(t, cc.Path)); diff != "" {
		t.Errorf("new file (-want +got):\n%s", diff)
	}
	// A file like ~/.claude.json: every other byte stays where it was.
	in := `{"numStartups": 3, "theme": "dark", "mcpServers": {}, "projects": {"/p": {"allowedTools": []}}}`
	cc = writeClient(t, "mcpServers", in)
	if _, err := Install(cc, entry, when); err != nil {
		t.Fatal(err)
	}
	got := read(t, cc.Path)
	if !strings.HasPrefix(got, `{"numStartups": 3, "theme": "dark", "mcpServers": {`) || !strings.HasSuffix(got, `}, "projects": {"/p": {"allowedTools": []}}}`+"\n") {
		t.Errorf("other keys moved:\n%s", got)
	}
	var parsed struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(got), &parsed); err != nil || parsed.MCPServers["capabilities"].Command != "/usr/local/bin/capabilities" {
		t.Errorf("result %v:\n%s", err, got)
	}
	for _, bad := range []string{"[1]", "{not json", `{"mcpServers": []}`} {
		cc := writeClient(t, "mcpServers", bad)
		if _, err := Install(cc, entry, when); err == nil || !strings.Contains(err.Error(), "left unchanged") {
			t.Errorf("Install into %q: %v", bad, err)
		}
		if read(t, cc.Path) != bad {
			t.Errorf("%q was changed", bad)
		}
	}
}

func TestMoveOutRemovesTheServerAndItsSecret(t *testing.T) {
	in := `{
  "mcpServers": {
    "github": {"command": "npx", "env": {"GITHUB_TOKEN": "ghp_PlaintextSecret123456789012345"}},
    "memory": {"command": "npx"}
  },
  "theme": "dark"
}`
	cc := writeClient(t, "mcpServers", in)
	res, err := MoveOut(cc, []string{"github", "absent"}, entry, when)
	if err != nil || !res.Changed {
		t.Fatalf("MoveOut: %+v, %v", res, err)
	}
	want := `{
  "mcpServers": {
    "memory": {"command": "npx"},
    "capabilities": {
      "args": [
        "mcp"
      ],
      "command": "/usr/local/bin/capabilities"
    }
  },
  "theme": "dark"
}
`
	if diff := cmp.Diff(want, read(t, cc.Path)); diff != "" {
		t.Errorf("after MoveOut (-want +got):\n%s", diff)
	}
	if read(t, res.Backup) != in {
		t.Error("the backup is not the original")
	}
	if res, err := MoveOut(cc, []string{"github"}, entry, when); err != nil || res.Changed {
		t.Errorf("moving again: %+v, %v", res, err)
	}
}

func TestParseImportReadsJSONC(t *testing.T) {
	imp, err := ParseImport("mcp.json", []byte(`{
  // VS Code
  "servers": {
    "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],}, /* done */
  },
}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := imp.Sources["memory"]; s == nil || s.Command != "npx" || len(s.Args) != 2 {
		t.Fatalf("sources %+v", imp.Sources)
	}
	_, err = ParseImport("mcp.json", []byte("{\n  // c\n  \"servers\": {,}\n}"))
	if err == nil || !strings.Contains(err.Error(), "mcp.json: not valid JSON: line 3") {
		t.Fatalf("a broken JSONC file: %v", err)
	}
}
