package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/config"
)

func TestProfileLifecycle(t *testing.T) {
	home := t.TempDir()
	if r := cli(t, home, "", "profile", "list"); r.code != exitOK || !strings.Contains(r.stdout, "No profiles") {
		t.Fatalf("empty list: %+v", r)
	}
	cfgText := `{"sources": {
  "gh": {"url": "http://127.0.0.1:9/mcp", "connections": {"personal": {"default": true}, "work": {}}},
  "mail": {"command": "mail-mcp"}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"profile", "add"}, exitUsage, "needs exactly one profile NAME"},
		{[]string{"profile", "add", "w"}, exitUsage, "needs at least one --source"},
		{[]string{"profile", "add", "w", "--source", "gh", "--connection", "gh"}, exitUsage, `--connection "gh": write KEY=VALUE`},
		{[]string{"profile", "add", "w", "--source", "gh", "--policy", "gh.x=often"}, exitUsage, `mode "often"`},
		{[]string{"profile", "add", "w", "--source", "jira"}, exitFailure, `profiles.w.sources[0]: no source named "jira"; sources: gh, mail`},
		{[]string{"profile", "add", "w", "--source", "gh", "--connection", "gh=team"}, exitFailure, `profiles.w.connections.gh: source gh has no connection "team"`},
		{[]string{"profile", "add", "w", "--source", "gh", "--mode", "fast"}, exitFailure, `profiles.w.mode: unknown mode "fast"`},
		{[]string{"profile", "add", "w", "--source", "gh", "--policy", "mail.send=deny"}, exitFailure, "profiles.w.policy.mail.send: names mail, which is not one of the profile's sources"},
		{[]string{"profile", "remove", "w"}, exitFailure, `no profile named "w"` + "\nhint: there are no profiles"},
	} {
		r := cli(t, home, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: code %d stderr %q, want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
	}
	r := cli(t, home, "", "profile", "add", "work", "--source", "gh", "--connection", "gh=work", "--read-only", "--policy", "gh.*=ask")
	if r.code != exitOK || !strings.Contains(r.stdout, "Added profile work (code mode, sources gh)") || !strings.Contains(r.stdout, "/mcp/p/work") {
		t.Fatalf("add: %+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Profile("work")
	if p == nil || !cmp.Equal(p.Sources, []string{"gh"}) || p.Connections["gh"] != "work" || !p.ReadOnly || p.Policy["gh.*"] != config.Ask || p.ModeOrDefault() != config.ProfileCode {
		t.Fatalf("profile in config.json = %+v", p)
	}
	if r := cli(t, home, "", "profile", "add", "work", "--source", "mail"); r.code != exitFailure || !strings.Contains(r.stderr, "a profile with this name exists") {
		t.Errorf("add twice: %+v", r)
	}
	// What a profile holds cannot be removed from under it.
	if r := cli(t, home, "", "source", "remove", "gh"); r.code != exitFailure || !strings.Contains(r.stderr, "source gh is used by profile work") {
		t.Errorf("source remove under a profile: %+v", r)
	}
	if r := cli(t, home, "", "connection", "remove", "gh", "work"); r.code != exitFailure || !strings.Contains(r.stderr, "connection work of gh is used by profile work") {
		t.Errorf("connection remove under a profile: %+v", r)
	}
	if cfg, err := config.Load(filepath.Join(home, "config.json")); err != nil || cfg.Sources["gh"] == nil || cfg.Sources["gh"].Connections["work"] == nil {
		t.Fatalf("a refused remove changed config.json: %v %+v", err, cfg)
	}
	r = cli(t, home, "", "profile", "list")
	for _, want := range []string{"NAME", "work", "code", "gh:work", "yes", "gh.*=ask"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := cli(t, home, "", "profile", "remove", "work"); r.code != exitOK || r.stdout != "Removed profile work.\n" {
		t.Fatalf("remove: %+v", r)
	}
	if cfg, err := config.Load(filepath.Join(home, "config.json")); err != nil || cfg.Profile("work") != nil {
		t.Fatalf("after remove: %v %+v", err, cfg)
	}
}

func TestInstallWithAProfile(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {"gh": {"url": "http://127.0.0.1:9/mcp"}}, "profiles": {"work": {"sources": ["gh"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cursor := filepath.Join(userHome, ".cursor", "mcp.json")
	if r := cliIn(t, home, userHome, userConfig, "install", "cursor", "--profile", "nope"); r.code != exitFailure || !strings.Contains(r.stderr, `no profile named "nope"`) || !strings.Contains(r.stderr, "profiles: work") {
		t.Errorf("install --profile nope: %+v", r)
	}
	if _, err := os.Stat(cursor); err == nil {
		t.Error("a refused install wrote the client's file")
	}
	if r := cliIn(t, home, userHome, userConfig, "install", "cursor"); r.code != exitOK {
		t.Fatalf("install: %+v", r)
	}
	r := cliIn(t, home, userHome, userConfig, "install", "cursor", "--profile", "work")
	if r.code != exitOK || !strings.Contains(r.stdout, "Added capabilities-work to cursor") {
		t.Fatalf("install --profile work: %+v", r)
	}
	t.Run("http", func(t *testing.T) {
		requireKeychain(t)
		homeKeychain(t, home)
		if r := cliIn(t, home, userHome, userConfig, "install", "cursor", "--profile", "work", "--http", ":8765", "--print"); r.code != exitOK || !strings.Contains(r.stdout, `"capabilities-work": {`) || !strings.Contains(r.stdout, `"url": "http://127.0.0.1:8765/mcp/p/work"`) {
			t.Errorf("install --profile work --http --print: %+v", r)
		}
	})
	b, _ := os.ReadFile(cursor)
	var got struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if e := got.MCPServers["capabilities-work"]; e.Command != "/opt/capabilities/bin/capabilities" || !cmp.Equal(e.Args, []string{"mcp", "--profile", "work"}) {
		t.Errorf("the profile's entry = %+v\n%s", e, b)
	}
	if e := got.MCPServers["capabilities"]; !cmp.Equal(e.Args, []string{"mcp"}) {
		t.Errorf("the plain entry changed: %+v", e)
	}
}
