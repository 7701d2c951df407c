//go:build !headless

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/ui"
)

func TestFirstRunWindowImportsAndMoves(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	userHome, userConfig, claude, _ := clientsWithServers(t)
	e, _, _ := firstRunEnv(home, userHome, userConfig, "", false)
	if _, err := firstRun(e, kc); err != nil {
		t.Fatal(err)
	}
	fr := firstRunUI(e, kc)
	if len(fr.Candidates) != 2 || fr.Candidates[0].Name != "github" || strings.Join(fr.Candidates[0].Secrets, ",") != "env.GITHUB_TOKEN" || strings.Join(fr.Candidates[0].Clients, ",") != "claude-code" {
		t.Fatalf("candidates %+v", fr.Candidates)
	}
	line, err := fr.Import(ui.ImportSelection{Names: []string{"github"}, Move: true})
	if err != nil || !strings.Contains(line, "Imported github") || !strings.Contains(line, "Moved out of "+claude) {
		t.Fatalf("Import: %q, %v", line, err)
	}
	if b, _ := os.ReadFile(claude); strings.Contains(string(b), firstRunToken) {
		t.Errorf("the secret is still in the client's file:\n%s", b)
	}
	if o, _ := clients.LoadImportOffer(config.Paths{Home: home}); o != nil {
		t.Error("the offer is still open after the window imported")
	}
	cfg, _ := config.Load(filepath.Join(home, "config.json"))
	if cfg.Sources["github"] == nil || cfg.Sources["memory"] != nil {
		t.Errorf("sources %v", cfg.Sources)
	}
}
