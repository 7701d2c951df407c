package hub

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/tsgen"
	"capabilities.sh/capabilities/internal/testwait"
)

// newSkillHub starts a hub without sources whose home holds the skills of
// testdata/skills, with config written as given.
func newSkillHub(t *testing.T, config string) *Hub {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "skills"), os.DirFS(filepath.Join("testdata", "skills"))); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestSkillsConfig(t *testing.T) {
	home, _ := os.UserHomeDir()
	cfg, err := config.Parse("config.json", []byte(`{"skills": {"paths": ["~/.claude/skills", "/opt/skills/"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Skills.Paths, ","); got != filepath.Join(home, ".claude/skills")+",/opt/skills" {
		t.Fatalf("paths %q", got)
	}
	out, _ := json.Marshal(cfg)
	if !strings.Contains(string(out), `"skills":{"paths":["~/.claude/skills","/opt/skills/"]}`) {
		t.Fatalf("saved as %s; want the paths as written", out)
	}
	for _, bad := range []struct{ text, problem string }{
		{`{"skills": ["~/x"]}`, `config.json: skills: must be an object`},
		{`{"skills": {"paths": "~/x"}}`, `config.json: skills.paths: must be a list of folders`},
		{`{"skills": {"paths": ["skills"]}}`, `config.json: skills.paths[0]: "skills" is relative`},
		{`{"skills": {"paths": ["/a", " "]}}`, `config.json: skills.paths[1]: empty`},
		{`{"skills": {"path": ["/a"]}}`, `config.json: skills.path: unknown key`},
		{`{"skils": {"paths": ["/a"]}}`, `skils`},
	} {
		_, err := config.Parse("config.json", []byte(bad.text))
		if err == nil || !strings.Contains(err.Error(), bad.problem) {
			t.Errorf("%s: %v, want %q", bad.text, err, bad.problem)
		}
	}
}

func TestSkillsSearchAndDescribe(t *testing.T) {
	extra := t.TempDir()
	writeSkill(t, filepath.Join(extra, "release-notes"), "---\nname: release-notes\ndescription: Draft release notes from merged pull requests.\n---\n## Grouping changes\nBy area.\n")
	// Not skills: a name that is not the folder's, and no description.
	writeSkill(t, filepath.Join(extra, "wrong"), "---\nname: other\ndescription: x\n---\n")
	writeSkill(t, filepath.Join(extra, "nodesc"), "---\nname: nodesc\n---\n")
	// The home's git-workflow wins over this one.
	writeSkill(t, filepath.Join(extra, "git-workflow"), "---\nname: git-workflow\ndescription: Another one.\n---\n")
	cfg, _ := json.Marshal(map[string]any{"skills": map[string]any{"paths": []string{extra}}})
	h := newSkillHub(t, string(cfg))
	ctx := context.Background()

	out, err := h.Search(ctx, SearchRequest{Query: "commit message conventions for pull requests"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "skills  (read one with describe: its instructions and files)\n  skill:git-workflow\n    Follow this team's Git conventions") {
		t.Fatalf("search:\n%s", out)
	}
	// By a heading alone.
	out, _ = h.Search(ctx, SearchRequest{Query: "grouping changes"})
	if !strings.Contains(out, "skill:release-notes") {
		t.Fatalf("search by heading:\n%s", out)
	}
	out, _ = h.Search(ctx, SearchRequest{Query: "fill pdf form fields"})
	if !strings.Contains(out, "  skill:pdf-forms\n") || strings.Contains(out, "git-workflow") {
		t.Fatalf("search for pdf forms:\n%s", out)
	}
	for _, absent := range []string{"skill:other", "skill:wrong", "skill:nodesc"} {
		if out, _ := h.Search(ctx, SearchRequest{Query: "x nodesc other wrong", Limit: 25}); strings.Contains(out, absent) {
			t.Fatalf("%s is served:\n%s", absent, out)
		}
	}

	desc, err := h.Describe(ctx, DescribeRequest{Targets: []string{"skill:git-workflow"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"/**\n * skill:git-workflow: Follow this team's Git conventions",
		" * Files (describe skill:git-workflow#<file>, or hub.describe in code): references/GUIDE.md (141 B), scripts/branch.sh (139 B)\n",
		"/* SKILL.md\n# Git workflow\n",
		"cannot end early *\\/ here.",
		"run scripts/branch.sh to check the branch name.\n*/",
	} {
		if !strings.Contains(desc, want) {
			t.Fatalf("describe lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "Another one") || strings.Contains(desc, "license") {
		t.Fatalf("describe:\n%s", desc)
	}
	file, err := h.Describe(ctx, DescribeRequest{Targets: []string{"skill:git-workflow#references/GUIDE.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if file != "/* skill:git-workflow#references/GUIDE.md (141 B)\n# Pull request checklist\n\n- The title follows the commit message rules.\n- Tests cover the change.\n- The description says why, not only what.\n*/" {
		t.Fatalf("file:\n%s", file)
	}
	// A skill beside a tool target: the tool part answers as ever.
	if _, err := h.Describe(ctx, DescribeRequest{Targets: []string{"skill:pdf-forms", "nosuch.tool"}}); err == nil || !strings.Contains(err.Error(), `unknown target "nosuch.tool"`) {
		t.Fatalf("a tool target beside a skill: %v", err)
	}
	both, err := h.Describe(ctx, DescribeRequest{Targets: []string{"hub", "skill:pdf-forms"}})
	if err != nil || !strings.HasPrefix(both, "declare const hub: {") || !strings.Contains(both, "/**\n * skill:pdf-forms: Fill in PDF forms") {
		t.Fatalf("hub and a skill: %v\n%s", err, both)
	}
	for _, bad := range []struct{ target, problem string }{
		{"skill:git-workflw", `unknown skill "skill:git-workflw"; closest: skill:git-workflow`},
		{"skill:git-workflow#nope.md", `skill:git-workflow has no file "nope.md"; its files: SKILL.md, references/GUIDE.md, scripts/branch.sh`},
		{"skill:git-workflow#../pdf-forms/SKILL.md", `must be a path inside the skill`},
		{"skill:git-workflow#/etc/passwd", `must be a path inside the skill`},
		{"skill:other", `unknown skill "skill:other"`},
	} {
		_, err := h.Describe(ctx, DescribeRequest{Targets: []string{bad.target}})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), bad.problem) {
			t.Errorf("%s: %v, want %q", bad.target, err, bad.problem)
		}
	}

	// Within the budget: cut at a line, saying how much is shown.
	small, err := h.Describe(ctx, DescribeRequest{Targets: []string{"skill:git-workflow"}, Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	if n := tsgen.BudgetTokens(small); n > 200 || !strings.Contains(small, "lines shown; the rest did not fit describe's budget: describe skill:git-workflow#SKILL.md alone for more]\n*/") {
		t.Fatalf("%d tokens:\n%s", n, small)
	}

	// An edit is seen once the hub's watch of the folders tells it; a file
	// changed after listing is read anew.
	writeSkill(t, filepath.Join(h.paths.Home, "skills", "pdf-forms"), "---\nname: pdf-forms\ndescription: Merge and split PDF documents.\n---\nNew body.\n")
	testwait.For(t, 0, "the edited skill to be described", func() bool {
		desc, err = h.Describe(ctx, DescribeRequest{Targets: []string{"skill:pdf-forms"}})
		return err == nil && strings.Contains(desc, "Merge and split PDF documents.") && strings.Contains(desc, "New body.")
	})
	sk, _ := h.skills.Current().Lookup("skill:pdf-forms")
	writeSkill(t, filepath.Join(h.paths.Home, "skills", "pdf-forms"), "---\nname: pdf-forms\ndescription: Rotate pages.\n---\nNewer body.\n")
	data, fresh, err := h.skills.ReadFile(ctx, sk, "SKILL.md")
	if err != nil || !strings.Contains(string(data), "Newer body.") || fresh.Description != "Rotate pages." {
		t.Fatalf("reading a changed file: %v, %q", err, data)
	}
	os.RemoveAll(filepath.Join(h.paths.Home, "skills", "pdf-forms"))
	testwait.For(t, 0, "a removed skill to leave search", func() bool {
		out, _ := h.Search(ctx, SearchRequest{Query: "rotate pages"})
		return !strings.Contains(out, "pdf-forms")
	})
}

func writeSkill(t *testing.T, dir, skillMD string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSkillDescribeCompiles checks that describe's answer for skills, with
// a tool beside them, is still valid TypeScript.
func TestSkillDescribeCompiles(t *testing.T) {
	tsc, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("tsc not installed (%v)", err)
	}
	h := newSkillHub(t, "")
	ctx := context.Background()
	var parts []string
	for _, target := range []string{"skill:git-workflow", "skill:git-workflow#references/GUIDE.md", "skill:git-workflow#scripts/branch.sh", "skill:pdf-forms"} {
		for _, budget := range []int{0, 120} {
			out, err := h.Describe(ctx, DescribeRequest{Targets: []string{target}, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, out)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "skills.d.ts")
	if err := os.WriteFile(path, []byte(strings.Join(parts, "\n")+"\nexport {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tsc, "--strict", "--noEmit", path).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc: %v\n%s\n%s", err, out, strings.Join(parts, "\n"))
	}
}
