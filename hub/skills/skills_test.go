package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// newTestRegistry starts a registry over a temporary store whose home
// holds the skills of ../testdata/skills, with config as given, and
// returns it with the home.
func newTestRegistry(t *testing.T, cfgJSON string, remote Remote) (*Registry, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "skills"), os.DirFS(filepath.Join("..", "testdata", "skills"))); err != nil {
		t.Fatal(err)
	}
	return newRegistryAt(t, home, hubtest.OpenStore(t), cfgJSON, remote), home
}

// newRegistryAt starts a registry of home over db.
func newRegistryAt(t *testing.T, home string, db *store.DB, cfgJSON string, remote Remote) *Registry {
	t.Helper()
	cfg := &config.Config{}
	if cfgJSON != "" {
		var err error
		if cfg, err = config.Parse("config.json", []byte(cfgJSON)); err != nil {
			t.Fatal(err)
		}
	}
	r := New(Options{Store: db, Remote: remote, Config: func() *config.Config { return cfg }, Home: home})
	t.Cleanup(r.Close)
	return r
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

func TestParseSkillMD(t *testing.T) {
	doc, err := Parse([]byte("---\nname: a-b\ndescription: Does a thing.\nlicense: MIT\nmetadata:\n  version: \"2\"\n  n: 3\nallowed-tools: [x, y]\nwhen: 2026-01-02\n---\n# Title\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"a-b","description":"Does a thing.","license":"MIT","metadata":{"version":"2","n":3},"allowed-tools":["x","y"],"when":"2026-01-02"}`
	if string(doc.Frontmatter) != want || doc.Name != "a-b" || doc.Description != "Does a thing." || doc.Body != "# Title\nbody\n" {
		t.Fatalf("parsed %s, %q, %q, body %q", doc.Frontmatter, doc.Name, doc.Description, doc.Body)
	}
	for _, bad := range []struct{ text, problem string }{
		{"# no frontmatter\n", "does not begin with YAML frontmatter"},
		{"---\nname: a\ndescription: b\n", "no closing"},
		{"---\ndescription: b\n---\n", "name is missing"},
		{"---\nname: a\n---\n", "description is missing"},
		{"---\nname: [a]\ndescription: b\n---\n", "name is missing or not a string"},
		{"---\n- a\n---\n", "must be a mapping"},
		{"---\nname: a\nname: b\ndescription: c\n---\n", "given twice"},
		{"---\nname: a\ndescription: b: c: d\n---\n", `frontmatter: yaml: line 2: mapping values are not allowed in this context (a value with ": " in it goes in quotes: description: "...")`},
	} {
		if _, err := Parse([]byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.problem) {
			t.Errorf("%q: %v, want %q", bad.text, err, bad.problem)
		}
	}
}

func TestUpstreamSkillEntryChecks(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	ok := `[{"uri":"skill://a/b/SKILL.md","digest":"` + d + `","size":3}]`
	for _, c := range []struct {
		uri, fm, res, problem string
	}{
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, ok, ""},
		{"skill://a/b/README.md", `{"name":"b","description":"x"}`, ok, "not the URI of a SKILL.md"},
		{"skill://a/../b/SKILL.md", `{"name":"b","description":"x"}`, ok, "a segment the hub does not address"},
		{"skill://a/b/SKILL.md", `{"name":"c","description":"x"}`, ok, "not the skill path's last segment"},
		{"skill://a/b/SKILL.md", `{"name":"b"}`, ok, "lacks a string name or description"},
		{"skill://a/b/SKILL.md", `[1]`, ok, "frontmatter is not an object"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `"dynamic"`, `"dynamic"`},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `null`, "neither a list of files"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `[]`, "do not list SKILL.md"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `[{"uri":"skill://a/c/x.md","digest":"` + d + `","size":1}]`, "not inside the skill"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `[{"uri":"skill://a/b/SKILL.md","digest":"sha256:AB","size":1}]`, "no valid sha256 digest"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `[{"uri":"skill://a/b/SKILL.md","digest":"` + d + `","size":1},{"uri":"skill://a/b/SKILL.md","digest":"` + d + `","size":1}]`, "listed twice"},
		{"skill://a/b/SKILL.md", `{"name":"b","description":"x"}`, `[{"uri":"skill://a/b/SKILL.md","digest":"` + d + `","size":16777217}]`, "pass 16777216 bytes"},
	} {
		sk, err := upstreamSkill("my-docs", upstream.ListedSkill{URI: c.uri, Frontmatter: json.RawMessage(c.fm), Resources: json.RawMessage(c.res)})
		if c.problem == "" {
			if err != nil || sk.Address != "skill:myDocs.a/b" || sk.Name != "b" || len(sk.Files) != 1 {
				t.Errorf("%s: %v, %+v", c.uri, err, sk)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.problem) {
			t.Errorf("%s %s %s: %v, want %q", c.uri, c.fm, c.res, err, c.problem)
		}
	}
}

// TestSkippedSkillFolders: a folder with a SKILL.md the registry cannot use
// is reported with why, until it is fixed or removed, so a person learns
// why a skill they wrote is missing.
func TestSkippedSkillFolders(t *testing.T) {
	other := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"skills": map[string]any{"paths": []string{other}}})
	r, home := newTestRegistry(t, string(cfg), nil)
	if skipped := r.Skipped(); len(skipped) != 0 {
		t.Fatalf("the test skills skipped: %v", skipped)
	}
	broken := filepath.Join(home, "skills", "broken")
	writeSkill(t, broken, "no frontmatter here\n")
	twice := filepath.Join(other, "git-workflow")
	writeSkill(t, twice, "---\nname: git-workflow\ndescription: The same name again.\n---\n")
	var skipped map[string]string
	testwait.For(t, 0, "the two folders to be skipped", func() bool {
		skipped = r.Skipped()
		return len(skipped) == 2
	})
	if !strings.Contains(skipped[broken], "does not begin with YAML frontmatter") {
		t.Errorf("the broken folder: %q", skipped[broken])
	}
	if !strings.Contains(skipped[twice], `skill "git-workflow" is also in `+filepath.Join(home, "skills", "git-workflow")+", which is used") {
		t.Errorf("the second folder of a name: %q", skipped[twice])
	}
	writeSkill(t, broken, "---\nname: broken\ndescription: Fixed now.\n---\n")
	if err := os.RemoveAll(twice); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "nothing to be skipped once both are fixed", func() bool {
		return len(r.Skipped()) == 0
	})
	if _, ok := r.Current().Lookup("skill:broken"); !ok {
		t.Error("the fixed skill is not served")
	}
}
