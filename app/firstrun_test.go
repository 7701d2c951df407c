package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

const firstRunToken = "ghp_FirstRunSecret1234567890abcdefXYZ"

// clientsWithServers writes a Claude Code config with two servers, one with
// a plaintext token, into a fresh user home.
func clientsWithServers(t *testing.T) (userHome, userConfig, claude, orig string) {
	t.Helper()
	userHome, userConfig = t.TempDir(), t.TempDir()
	claude = filepath.Join(userHome, ".claude.json")
	orig = `{"mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_TOKEN": "` + firstRunToken + `"}}, "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`
	if err := os.WriteFile(claude, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	return userHome, userConfig, claude, orig
}

func firstRunEnv(home, userHome, userConfig, stdin string, person bool) (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv:   func(k string) string { return map[string]string{"CAPABILITIES_HOME": home}[k] },
		Exe:      "/usr/local/bin/capabilities",
		UserHome: userHome, UserConfig: userConfig,
		StdinIsTerminal: person, StdoutIsTerminal: person,
	}, &out, &errb
}

func TestFirstRunWithoutAPersonImportsNothingAndLeavesTheOffer(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	userHome, userConfig, claude, orig := clientsWithServers(t)
	e, _, errb := firstRunEnv(home, userHome, userConfig, "", false)
	if _, err := firstRun(e, kc); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || len(cfg.Sources) != 0 {
		t.Fatalf("a first run without a person imported %+v (%v)", cfg, err)
	}
	if b, _ := os.ReadFile(claude); string(b) != orig {
		t.Fatalf("the client file changed:\n%s", b)
	}
	if !strings.Contains(errb.String(), "nothing imported without you") {
		t.Errorf("stderr: %s", errb)
	}
	// doctor shows the offer, setup without a terminal refuses, --only takes it.
	r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	if !strings.Contains(r.stdout, "[warn] import offer: 2 MCP servers found in your clients, not imported yet: github, memory") || !strings.Contains(r.stdout, "fix: capabilities setup") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	if r := cliIn(t, home, userHome, userConfig, "setup"); r.code != exitFailure || !strings.Contains(r.stderr, "no terminal to ask on") {
		t.Errorf("setup without a terminal: %+v", r)
	}
	r = cliIn(t, home, userHome, userConfig, "setup", "--only", "github", "--move")
	if r.code != 0 || !strings.Contains(r.stdout, "Imported github") || !strings.Contains(r.stdout, "Moved github.env.GITHUB_TOKEN into the keychain") || !strings.Contains(r.stdout, "Moved out of "+claude) {
		t.Fatalf("setup --only github --move: %+v", r)
	}
	b, _ := os.ReadFile(claude)
	if strings.Contains(string(b), firstRunToken) || strings.Contains(string(b), `"github"`) || !strings.Contains(string(b), `"memory"`) || !strings.Contains(string(b), `"command": "/opt/capabilities/bin/capabilities"`) {
		t.Errorf("claude file after the move:\n%s", b)
	}
	if got, _ := kc.Get(config.SecretKey("github", "default", "GITHUB_TOKEN")); got != firstRunToken {
		t.Errorf("keychain holds %q", got)
	}
	if r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources"); strings.Contains(r.stdout, "import offer") {
		t.Errorf("the offer is still shown after setup:\n%s", r.stdout)
	}
	assertNoSecretUnder(t, home, firstRunToken)
}

func TestFirstRunInATerminalAsks(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	userHome, userConfig, claude, orig := clientsWithServers(t)
	// Pick the second (memory), keep it in the client too.
	e, out, _ := firstRunEnv(home, userHome, userConfig, "7\n2\nn\n", true)
	if _, err := firstRun(e, kc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1. github", "from claude-code", "secret env.GITHUB_TOKEN moves to the keychain", "2. memory", `"7": answer a, n, or numbers from 1 to 2`, "Imported memory"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	cfg, _ := config.Load(filepath.Join(home, "config.json"))
	if len(cfg.Sources) != 1 || cfg.Sources["memory"] == nil {
		t.Fatalf("sources %+v", cfg.Sources)
	}
	if b, _ := os.ReadFile(claude); string(b) != orig {
		t.Errorf("answered no to moving, but the client file changed:\n%s", b)
	}
	if o, _ := clients.LoadImportOffer(config.Paths{Home: home}); o != nil {
		t.Error("an offer was left open after the person chose")
	}
}

func TestParseSelection(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{"", []int{0, 1, 2}, false}, {"a\n", []int{0, 1, 2}, false}, {"ALL", []int{0, 1, 2}, false},
		{"n", []int{}, false}, {"none", []int{}, false},
		{"3 1", []int{0, 2}, false}, {"2,2, 3", []int{1, 2}, false},
		{"0", nil, true}, {"4", nil, true}, {"x", nil, true}, {"1 -2", nil, true},
	} {
		got, err := parseSelection(tc.in, 3)
		if (err != nil) != tc.bad || (!tc.bad && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseSelection(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestFirstRunInATerminalWithoutAnAnswerLeavesTheOffer(t *testing.T) {
	home := t.TempDir()
	userHome, userConfig, claude, orig := clientsWithServers(t)
	e, out, _ := firstRunEnv(home, userHome, userConfig, "", true) // stdin ends at once
	if created, err := firstRun(e, failingKeychain{}); err != nil || !created {
		t.Fatalf("firstRun without an answer: created %v, %v", created, err)
	}
	// It runs once: the home has its config.json now.
	if created, err := firstRun(e, failingKeychain{}); err != nil || created {
		t.Fatalf("firstRun on a home set up: created %v, %v", created, err)
	}
	if !strings.Contains(out.String(), "No answer; nothing imported") {
		t.Errorf("terminal:\n%s", out)
	}
	if o, _ := clients.LoadImportOffer(config.Paths{Home: home}); o == nil || len(o.Servers) != 2 {
		t.Errorf("offer %+v", o)
	}
	if b, _ := os.ReadFile(claude); string(b) != orig {
		t.Error("the client file changed")
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); err != nil {
		t.Errorf("no config.json: %v", err)
	}
	// A keychain that refuses: the import fails for github, the hub still starts.
	home2 := t.TempDir()
	e, out, errb := firstRunEnv(home2, userHome, userConfig, "a\ny\n", true)
	if _, err := firstRun(e, failingKeychain{}); err != nil {
		t.Fatalf("firstRun with a failing keychain: %v", err)
	}
	if !strings.Contains(errb.String(), "github: its secrets cannot go to the keychain") || !strings.Contains(out.String(), "Imported memory") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errb)
	}
	if b, _ := os.ReadFile(claude); !strings.Contains(string(b), `"github"`) || strings.Contains(string(b), `"memory"`) {
		t.Errorf("github must stay in the client (not imported), memory moved out:\n%s", b)
	}
}

// failingKeychain refuses every write, as a locked keychain does.
type failingKeychain struct{}

func (failingKeychain) Get(key string) (string, error) {
	return "", &keychain.UnavailableError{Op: "reading", Key: key, Cause: "locked"}
}
func (failingKeychain) Set(key, secret string) error {
	return &keychain.UnavailableError{Op: "writing", Key: key, Cause: "locked"}
}
func (failingKeychain) Delete(key string) error {
	return &keychain.UnavailableError{Op: "deleting", Key: key, Cause: "locked"}
}
