package clients

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
	moved := map[string]string{"source/github/import/GITHUB_TOKEN": "ghp_PlaintextSecret123456789012345"}
	res, err := MoveOut(cc, []string{"github", "absent"}, moved, entry, when)
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
	if got, want := read(t, res.Backup), strings.Replace(in, "ghp_PlaintextSecret123456789012345", "[moved to the keychain as source/github/import/GITHUB_TOKEN]", 1); got != want {
		t.Errorf("the backup is not the original with the moved secret noted:\n%s", got)
	}
	if res, err := MoveOut(cc, []string{"github"}, moved, entry, when); err != nil || res.Changed {
		t.Errorf("moving again: %+v, %v", res, err)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestInstallOverHTTPKeepsTheTokenToTheUser: a client file that gets the
// HTTP entry, with its bearer token, is 0600 afterwards although it was
// 0644, keeps every other key, and a later backup of it holds a note in
// place of the token.
func TestInstallOverHTTPKeepsTheTokenToTheUser(t *testing.T) {
	const token = "Zk3r9Qm1Vx7bT2nL5wY8cD4hJ6pR0sUaEoIgKfMzNqX"
	in := `{
  "theme": "dark",
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
  },
  "projects": {"/src/app": {"allowedTools": ["Bash"]}}
}
`
	cc := ClientConfig{Client: "cursor", Path: filepath.Join(t.TempDir(), "mcp.json"), Key: "mcpServers"}
	if err := os.WriteFile(cc.Path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cc.Path, 0o644) // whatever the umask
	http, err := HTTPEntry("cursor", "http://127.0.0.1:8765/mcp", token)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Install(cc, http, when)
	if err != nil || !res.Changed {
		t.Fatalf("Install: %+v, %v", res, err)
	}
	if m := mode(t, cc.Path); m != 0o600 {
		t.Errorf("the file with the token is %v, want 0600", m)
	}
	if m := mode(t, res.Backup); m != 0o600 {
		t.Errorf("the backup is %v, want 0600", m)
	}
	if read(t, res.Backup) != in {
		t.Error("the backup of a file without a token is not the original")
	}
	var got, orig map[string]any
	json.Unmarshal([]byte(read(t, cc.Path)), &got)
	json.Unmarshal([]byte(in), &orig)
	servers := got["mcpServers"].(map[string]any)
	if servers["capabilities"].(map[string]any)["headers"].(map[string]any)["Authorization"] != "Bearer "+token {
		t.Fatalf("the entry lacks the token:\n%s", read(t, cc.Path))
	}
	delete(servers, "capabilities")
	if diff := cmp.Diff(orig, got); diff != "" {
		t.Errorf("other keys changed (-before +after):\n%s", diff)
	}

	// Back to stdio: the backup of the file with the token holds a note in
	// its place, and the file stays 0600.
	res, err = Install(cc, entry, when.Add(time.Second))
	if err != nil || !res.Changed {
		t.Fatalf("Install stdio: %+v, %v", res, err)
	}
	if b := read(t, res.Backup); strings.Contains(b, token) || !strings.Contains(b, `"Bearer [the hub's HTTP token: capabilities hub token]"`) {
		t.Errorf("the backup holds the token or no note:\n%s", b)
	}
	if m := mode(t, cc.Path); m != 0o600 {
		t.Errorf("the file is %v after going back to stdio, want it left 0600", m)
	}
}

// TestReplaceHTTPToken: the entries that carry the old token get the new
// one; an entry with another home's token, a stdio entry and a missing file
// are left alone; no backup holds either token.
func TestReplaceHTTPToken(t *testing.T) {
	const old, token, other = "OldTokenOldTokenOldToken0123456789abcdefgh", "NewTokenNewTokenNewToken0123456789abcdefgh", "OtherHomeOtherHomeOtherHome0123456789abcde"
	dir := t.TempDir()
	write := func(name string, e map[string]any) ClientConfig {
		cc := ClientConfig{Client: "vscode", Path: filepath.Join(dir, name), Key: "servers"}
		b, _ := json.MarshalIndent(map[string]any{"inputs": []any{}, "servers": map[string]any{"capabilities": e, "memory": map[string]any{"command": "npx"}}}, "", "\t")
		if err := os.WriteFile(cc.Path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return cc
	}
	httpEntry := func(tok string) map[string]any {
		e, _ := HTTPEntry("vscode", "http://127.0.0.1:8765/mcp", tok)
		return e
	}
	ours := write("ours.json", httpEntry(old))
	theirs := write("theirs.json", httpEntry(other))
	stdio := write("stdio.json", entry)
	before := map[string]string{theirs.Path: read(t, theirs.Path), stdio.Path: read(t, stdio.Path)}

	res, err := ReplaceHTTPToken(ours, old, token, when)
	if err != nil || !res.Changed {
		t.Fatalf("ReplaceHTTPToken: %+v, %v", res, err)
	}
	b := read(t, ours.Path)
	if strings.Contains(b, old) || !strings.Contains(b, `"Authorization": "Bearer `+token+`"`) || !strings.Contains(b, `"memory"`) || !strings.Contains(b, `"inputs"`) {
		t.Errorf("after the replacement:\n%s", b)
	}
	if m := mode(t, ours.Path); m != 0o600 {
		t.Errorf("the file is %v, want 0600", m)
	}
	if bk := read(t, res.Backup); strings.Contains(bk, old) || strings.Contains(bk, token) || !strings.Contains(bk, hubTokenNote) {
		t.Errorf("the backup holds a token or no note:\n%s", bk)
	}
	for _, cc := range []ClientConfig{theirs, stdio} {
		if res, err := ReplaceHTTPToken(cc, old, token, when); err != nil || res.Changed || res.Backup != "" {
			t.Errorf("%s: %+v, %v; want it left alone", cc.Path, res, err)
		}
		if read(t, cc.Path) != before[cc.Path] {
			t.Errorf("%s changed", cc.Path)
		}
	}
	missing := ClientConfig{Client: "cursor", Path: filepath.Join(dir, "none", "mcp.json"), Key: "mcpServers"}
	if res, err := ReplaceHTTPToken(missing, old, token, when); err != nil || res.Changed {
		t.Errorf("a missing file: %+v, %v", res, err)
	}
	if _, err := os.Stat(missing.Path); !os.IsNotExist(err) {
		t.Error("a missing file was created")
	}
}

func TestScrubBackup(t *testing.T) {
	const sec = "s3cr3t-Value-0123456789"
	scrub := map[string]string{sec: "[moved to the keychain as source/a/import/KEY]", "pw": "[moved to the keychain as source/b/import/PASSWORD]"}
	tests := []struct{ name, in, want string }{
		{"a value", `{"env": {"KEY": "s3cr3t-Value-0123456789"}}`, `{"env": {"KEY": "[moved to the keychain as source/a/import/KEY]"}}`},
		{"inside text", `{"args": ["--token=s3cr3t-Value-0123456789"]}`, `{"args": ["--token=[moved to the keychain as source/a/import/KEY]"]}`},
		{"escaped", `{"KEY": "s3cr3t\u002dValue\u002d0123456789"}`, `{"KEY": "[moved to the keychain as source/a/import/KEY]"}`},
		{"in comments", "{\n  // old: s3cr3t-Value-0123456789\n  \"a\": 1 /* s3cr3t-Value-0123456789 */\n}", "{\n  // old: [moved to the keychain as source/a/import/KEY]\n  \"a\": 1 /* [moved to the keychain as source/a/import/KEY] */\n}"},
		{"a short secret as a whole value", `{"PASSWORD": "pw", "note": "pwd and pw"}`, `{"PASSWORD": "[moved to the keychain as source/b/import/PASSWORD]", "note": "pwd and pw"}`},
		{"not JSON", `{"KEY": "s3cr3t-Value-0123456789"`, `{"KEY": "[moved to the keychain as source/a/import/KEY]"`},
		{"nothing to scrub", `{"a": "b"}`, `{"a": "b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(scrubBackup([]byte(tt.in), scrub)); got != tt.want {
				t.Errorf("scrubBackup(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
	if got := string(scrubBackup([]byte("// abcd */ efgh\n{}"), map[string]string{"abcd */ efgh": "x */ y\nz"})); got != "// x * / y z\n{}" {
		t.Errorf("a note that would end its comment: %q", got)
	}
}
