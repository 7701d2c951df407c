package clients

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/keychain"
)

func TestImportFoundMovesServersOutOfTheClients(t *testing.T) {
	hubtest.RequireKeychain(t)
	home, user := t.TempDir(), t.TempDir()
	p := config.Paths{Home: home}
	kc, err := config.HomeKeychain(p, keychain.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kc.DeleteAll() })
	const token = "ghp_PlaintextSecret1234567890abcdefXYZ"
	claude := filepath.Join(user, ".claude.json")
	claudeIn := `{"numStartups": 2, "mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_TOKEN": "` + token + `"}}, "memory": {"command": "npx"}}}`
	os.WriteFile(claude, []byte(claudeIn), 0o600)
	vscode := filepath.Join(user, "Code", "User", "mcp.json")
	os.MkdirAll(filepath.Dir(vscode), 0o700)
	os.WriteFile(vscode, []byte("{\n  // mine\n  \"servers\": {\n    \"github\": {\"type\": \"stdio\", \"command\": \"npx\", \"env\": {\"GITHUB_TOKEN\": \""+token+"\"},},\n  },\n}\n"), 0o600)
	configs := []ClientConfig{
		{Client: "claude-code", Path: claude, Key: "mcpServers"},
		{Client: "cursor", Path: filepath.Join(user, ".cursor", "mcp.json"), Key: "mcpServers"},
		{Client: "vscode", Path: vscode, Key: "servers"},
	}
	found, problems := Discover(configs)
	if len(problems) > 0 || len(found) != 2 || found[0].Name != "github" || len(found[0].In) != 2 || found[0].In[1].Client != "vscode" {
		t.Fatalf("Discover: %+v %v", found, problems)
	}
	offer := NewImportOffer(found, time.Now())
	if err := SaveImportOffer(p, offer); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p.ImportOffer()); strings.Contains(string(b), token) || !strings.Contains(string(b), "env.GITHUB_TOKEN") {
		t.Fatalf("offer file: %s", b)
	}
	entry := func(client string) map[string]any { return ShimEntry(client, "/usr/local/bin/capabilities", "") }
	rep, err := ImportFound(p, kc, found, []ImportChoice{{Name: "github", Move: true}, {Name: "memory"}}, entry, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Imported, ",") != "github,memory" || len(rep.Files) != 2 {
		t.Fatalf("report %+v", rep)
	}
	cfg, err := config.Load(p.Config())
	if err != nil || cfg.Sources["github"] == nil || cfg.Sources["memory"] == nil {
		t.Fatalf("config: %v %+v", err, cfg)
	}
	if got, err := kc.Get(config.SecretKey("github", config.ImportConnection, "GITHUB_TOKEN")); err != nil || got != token {
		t.Fatalf("keychain: %q %v", got, err)
	}
	for _, f := range []string{claude, vscode, p.Config()} {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), token) {
			t.Errorf("the plaintext secret is still in %s:\n%s", f, b)
		}
	}
	b, _ := os.ReadFile(claude)
	if strings.Contains(string(b), `"github"`) || !strings.Contains(string(b), `"memory"`) || !strings.Contains(string(b), `"capabilities"`) || !strings.HasPrefix(string(b), `{"numStartups": 2,`) {
		t.Errorf("claude file after the move:\n%s", b)
	}
	b, _ = os.ReadFile(vscode)
	if strings.Contains(string(b), `"github"`) || !strings.Contains(string(b), "// mine") || !strings.Contains(string(b), `"type": "stdio"`) {
		t.Errorf("vscode file after the move:\n%s", b)
	}
	// The backups keep the original entries, with a note where the secret
	// went in place of the secret, and only the user reads them.
	for _, f := range rep.Files {
		b, _ := os.ReadFile(f.Backup)
		if !strings.Contains(string(b), `"github"`) || !strings.Contains(string(b), `"GITHUB_TOKEN": "[moved to the keychain as source/github/default/GITHUB_TOKEN]"`) {
			t.Errorf("backup %s lacks the original entry or the note:\n%s", f.Backup, b)
		}
		if strings.Contains(string(b), token) || strings.Contains(string(b), token[4:20]) {
			t.Errorf("backup %s holds the secret moved to the keychain:\n%s", f.Backup, b)
		}
		if fi, err := os.Stat(f.Backup); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("backup %s: %v, %v; want 0600", f.Backup, fi.Mode(), err)
		}
	}
	if o, err := LoadImportOffer(p); o != nil || err != nil {
		t.Errorf("the offer is still open: %+v %v", o, err)
	}
	// Again: both exist now, nothing moves.
	rep, err = ImportFound(p, kc, found, []ImportChoice{{Name: "github", Move: true}}, entry, time.Now())
	if err != nil || len(rep.Imported) != 0 || strings.Join(rep.Skipped, ",") != "github" || len(rep.Files) != 0 {
		t.Errorf("second import: %+v %v", rep, err)
	}
}

func TestImportFoundKeepsTheClientWhenTheKeychainFails(t *testing.T) {
	home, user := t.TempDir(), t.TempDir()
	p := config.Paths{Home: home}
	claude := filepath.Join(user, ".claude.json")
	in := `{"mcpServers": {"github": {"command": "npx", "env": {"GITHUB_TOKEN": "ghp_PlaintextSecret1234567890abcdefXYZ"}}}}`
	os.WriteFile(claude, []byte(in), 0o600)
	found, _ := Discover([]ClientConfig{{Client: "claude-code", Path: claude, Key: "mcpServers"}})
	rep, err := ImportFound(p, hubtest.FailingKeychain{}, found, []ImportChoice{{Name: "github", Move: true}},
		func(string) map[string]any { return ShimEntry("claude-code", "/bin/capabilities", "") }, time.Now())
	if err == nil || !strings.Contains(err.Error(), "github: its secrets cannot go to the keychain") || len(rep.Imported) != 0 {
		t.Fatalf("ImportFound with a failing keychain: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(claude); string(b) != in {
		t.Errorf("the client file changed although nothing was imported:\n%s", b)
	}
}

// A broken offer file is a config error that says how to close the offer.
func TestLoadImportOfferRefusesABrokenFile(t *testing.T) {
	p := config.Paths{Home: t.TempDir()}
	os.WriteFile(p.ImportOffer(), []byte("{"), 0o600)
	if _, err := LoadImportOffer(p); err == nil || !errors.As(err, new(*config.Error)) {
		t.Fatalf("a broken offer file: %v", err)
	}
}
