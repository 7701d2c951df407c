package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// cliIn runs the command line in-process with a fixed user home and config
// folder, so client config files land in temp folders.
func cliIn(t *testing.T, home, userHome, userConfig string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv:   func(k string) string { return map[string]string{"CAPABILITIES_HOME": home}[k] },
		Exe:      "/opt/capabilities/bin/capabilities",
		UserHome: userHome, UserConfig: userConfig,
	}
	return result{run(context.Background(), e), out.String(), errb.String()}
}

func TestInstallWritesClientConfigAfterABackup(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	desktop := filepath.Join(userConfig, "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(desktop), 0o700)
	orig := `{"globalShortcut": "Ctrl+Space", "mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`
	os.WriteFile(desktop, []byte(orig), 0o600)

	r := cliIn(t, home, userHome, userConfig, "install", "claude-desktop", "--print")
	if r.code != 0 || !strings.Contains(r.stdout, `"capabilities"`) || !strings.Contains(r.stdout, `"mcp"`) {
		t.Fatalf("--print: %+v", r)
	}
	if b, _ := os.ReadFile(desktop); string(b) != orig {
		t.Fatal("--print changed the file")
	}

	r = cliIn(t, home, userHome, userConfig, "install", "claude-desktop")
	if r.code != 0 || !strings.Contains(r.stdout, "Backup: ") {
		t.Fatalf("install: %+v", r)
	}
	var got struct {
		GlobalShortcut string
		MCPServers     map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(desktop)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	c := got.MCPServers["capabilities"]
	if got.GlobalShortcut != "Ctrl+Space" || got.MCPServers["memory"].Command != "npx" {
		t.Errorf("other keys were lost:\n%s", b)
	}
	if c.Command != "/opt/capabilities/bin/capabilities" || strings.Join(c.Args, " ") != "mcp" || c.Env["CAPABILITIES_HOME"] != home {
		t.Errorf("entry %+v", c)
	}
	backups, _ := filepath.Glob(desktop + ".bak-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != orig {
		t.Error("the backup is not the original file")
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "claude-desktop"); r.code != 0 || !strings.Contains(r.stdout, "already runs capabilities") {
		t.Errorf("second install: %+v", r)
	}
	// VS Code keeps servers under "servers", with a type.
	if r := cliIn(t, home, userHome, userConfig, "install", "vscode"); r.code != 0 {
		t.Fatalf("vscode: %+v", r)
	}
	b, _ = os.ReadFile(filepath.Join(userConfig, "Code", "User", "mcp.json"))
	if !strings.Contains(string(b), `"servers"`) || !strings.Contains(string(b), `"type": "stdio"`) {
		t.Errorf("vscode mcp.json:\n%s", b)
	}
	// A file that is not JSON is left alone.
	cursor := filepath.Join(userHome, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o700)
	os.WriteFile(cursor, []byte("{not json"), 0o600)
	if r := cliIn(t, home, userHome, userConfig, "install", "cursor"); r.code != exitFailure || !strings.Contains(r.stderr, cursor) || !strings.Contains(r.stderr, "left unchanged") {
		t.Errorf("broken cursor config: %+v", r)
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "emacs"); r.code != exitUsage || !strings.Contains(r.stderr, `unknown client "emacs"`) {
		t.Errorf("unknown client: %+v", r)
	}
}

func TestDoctorExplainsProblems(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {"a": {"command": 1}}}`), 0o600)
	r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	if r.code != exitFailure {
		t.Fatalf("doctor with a broken config exited %d:\n%s", r.code, r.stdout)
	}
	for _, want := range []string{"[FAIL] config: ", "sources.a.command: must be a string", "fix: edit ", "[warn] hub: not running", "fix: capabilities install claude-code"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{}`), 0o600)
	r = cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	if strings.Contains(r.stdout, "[FAIL] config") || !strings.Contains(r.stdout, "[ok  ] config") {
		t.Errorf("doctor with a good config:\n%s", r.stdout)
	}
}

func TestDoctorFailsOnAConfigTypo(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	cfgPath := filepath.Join(home, "config.json")
	os.WriteFile(cfgPath, []byte(`{"sources": {"a": {"command": "x", "argz": ["y"], "autoApprove": []}}, "polcy": {}}`), 0o600)
	r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	if r.code != exitFailure {
		t.Fatalf("doctor with a typo in config.json exited %d:\n%s", r.code, r.stdout)
	}
	for _, want := range []string{
		"[FAIL] config: " + cfgPath + `: sources.a.argz: unknown key; did you mean "args"?`,
		cfgPath + `: polcy: unknown key; did you mean "policy"?`,
		cfgPath + `: sources.a.argz: unknown key; did you mean "args"?`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "autoApprove") {
		t.Errorf("a key clients write was reported:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "fix: edit "+cfgPath+" at the key named") {
		t.Errorf("the fix does not point at the key:\n%s", r.stdout)
	}
	// A file that is not JSON has a line and column, not a key.
	os.WriteFile(cfgPath, []byte(`{"sources": {"a": {"command": "x",}}}`), 0o600)
	r = cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	if r.code != exitFailure || !strings.Contains(r.stdout, "not valid JSON: line 1, column 36") || !strings.Contains(r.stdout, "fix: edit "+cfgPath+" at the place named") {
		t.Errorf("doctor with a trailing comma in config.json:\n%s", r.stdout)
	}
}

func TestTwoHomesKeepTheirOwnSecrets(t *testing.T) {
	requireKeychain(t)
	one, two := t.TempDir(), t.TempDir()
	for i, home := range []string{one, two} {
		if r := cli(t, home, "", "source", "add", "github", "--", "npx", "-y", "server-github"); r.code != 0 {
			t.Fatalf("%+v", r)
		}
		if r := cli(t, home, fmt.Sprintf("ghp_SecretOfHome%d", i+1), "connection", "add", "github", "work", "--env", "GITHUB_TOKEN"); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	for i, home := range []string{one, two} {
		got, err := homeKeychain(t, home).Get(config.SecretKey("github", "work", "GITHUB_TOKEN"))
		if want := fmt.Sprintf("ghp_SecretOfHome%d", i+1); err != nil || got != want {
			t.Errorf("home %d holds %q, %v; want %q", i+1, got, err, want)
		}
	}
	if id1, _ := os.ReadFile(filepath.Join(one, "home-id")); len(id1) == 0 {
		t.Error("no home-id file in the home")
	}
}

func TestHubTokenAndInstallOverHTTP(t *testing.T) {
	requireKeychain(t)
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	homeKeychain(t, home)
	r := cliIn(t, home, userHome, userConfig, "hub", "token")
	tok := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(tok) < 40 || strings.ContainsAny(tok, " \n") {
		t.Fatalf("hub token: %+v", r)
	}
	if again := cliIn(t, home, userHome, userConfig, "hub", "token"); strings.TrimSpace(again.stdout) != tok {
		t.Fatalf("the token changed between two reads: %q then %q", tok, again.stdout)
	}
	otherHome := t.TempDir()
	homeKeychain(t, otherHome)
	if other := cli(t, otherHome, "", "hub", "token"); strings.TrimSpace(other.stdout) == tok || other.code != 0 {
		t.Fatalf("another home has the same token or none: %+v", other)
	}
	// The client's file is readable by everyone before; with the token in
	// it, only by the user, and its other keys stay.
	cursor := filepath.Join(userHome, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cursor), 0o755)
	os.WriteFile(cursor, []byte(`{"mcpServers": {"memory": {"command": "npx"}}, "theme": "dark"}`), 0o644)
	os.Chmod(cursor, 0o644)
	if r := cliIn(t, home, userHome, userConfig, "install", "cursor", "--http", ":8765"); r.code != 0 {
		t.Fatalf("install --http: %+v", r)
	}
	if fi, err := os.Stat(cursor); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cursor's file after install --http: %v, %v; want 0600", fi.Mode(), err)
	}
	b, _ := os.ReadFile(cursor)
	var got struct {
		Theme      string `json:"theme"`
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Command string            `json:"command"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	c := got.MCPServers["capabilities"]
	if c.URL != "http://127.0.0.1:8765/mcp" || c.Headers["Authorization"] != "Bearer "+tok || c.Command != "" {
		t.Fatalf("cursor entry over HTTP: %s", b)
	}
	if got.Theme != "dark" || got.MCPServers["memory"].Command != "npx" {
		t.Fatalf("cursor's other keys: %s", b)
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "vscode", "--http", "127.0.0.1:8765"); r.code != 0 {
		t.Fatalf("vscode --http: %+v", r)
	}
	vscode := filepath.Join(userConfig, "Code", "User", "mcp.json")
	if b, _ := os.ReadFile(vscode); !strings.Contains(string(b), `"type": "http"`) {
		t.Errorf("vscode entry over HTTP: %s", b)
	}
	if fi, err := os.Stat(vscode); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("vscode's new file after install --http: %v, %v; want 0600", fi.Mode(), err)
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "claude-desktop", "--http", ":8765"); r.code != exitFailure || !strings.Contains(r.stderr, "connectors") {
		t.Errorf("claude-desktop --http: %+v", r)
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "cursor", "--http", "0.0.0.0:8765"); r.code != exitUsage || !strings.Contains(r.stderr, "binds 127.0.0.1 only") {
		t.Errorf("non-loopback --http: %+v", r)
	}
}

// TestDoctorNamesASkippedSkill: a skill folder the hub cannot use is a
// warning with why, in doctor and in hub status's JSON alike.
func TestDoctorNamesASkippedSkill(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	dir := filepath.Join(home, "skills", "release-notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("# Release notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cliIn(t, home, userHome, userConfig, "doctor")
	for _, want := range []string{
		"[warn] skill release-notes: skipped: " + dir + ": SKILL.md: does not begin with YAML frontmatter",
		"fix: fix its SKILL.md (YAML frontmatter with name and description between \"---\" lines)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
}
