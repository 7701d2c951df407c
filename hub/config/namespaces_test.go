package config

import (
	"slices"
	"testing"
)

// TestSourcesByNamespace: sources are found by the global code names them
// by, disabled ones only by SourceOfNamespace; in code a namespace counts
// as a whole word.
func TestSourcesByNamespace(t *testing.T) {
	cfg, err := Parse("config.json", []byte(`{"sources": {
		"my-files": {"command": "files"},
		"github": {"command": "gh"},
		"old": {"command": "old", "disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.SourceOfNamespace("myFiles"); got != "my-files" {
		t.Errorf("SourceOfNamespace(myFiles) = %q", got)
	}
	if got := cfg.SourceOfNamespace("old"); got != "old" {
		t.Errorf("SourceOfNamespace(old) = %q; a disabled source is still configured", got)
	}
	if got := cfg.SourceOfNamespace("jira"); got != "" {
		t.Errorf("SourceOfNamespace(jira) = %q", got)
	}
	if got := cfg.EnabledSources(""); !slices.Equal(got, []string{"github", "my-files"}) {
		t.Errorf("EnabledSources() = %q", got)
	}
	if got := cfg.EnabledSources("old"); len(got) != 0 {
		t.Errorf("EnabledSources(old) = %q", got)
	}
	if got := cfg.SourcesOfTargets([]string{" myFiles.readFile", "github", "myFiles.ReadFileInput", "old"}); !slices.Equal(got, []string{"my-files", "github"}) {
		t.Errorf("SourcesOfTargets = %q", got)
	}
	code := `const r = await myFiles.readFile({ path: "github.txt" }); const githubby = 1; return old.x();`
	if got := cfg.SourcesInCode(code); !slices.Equal(got, []string{"my-files", "github"}) {
		t.Errorf("SourcesInCode = %q", got)
	}
	if got := cfg.SourcesInCode(`return githubby + myFilesX;`); len(got) != 0 {
		t.Errorf("SourcesInCode of longer words = %q", got)
	}
}
