package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/skills"
)

// TestDirectProfileSkills: a direct-mode profile lists each skill in its
// scope as a read-only tool (the person's own as skill__<path>, its
// source's as <namespace>__skill__<path>), and not the skill of a source
// outside it; a call gives what describe gives in code mode, for the skill
// and for one of its files, and a file it does not have is refused.
func TestDirectProfileSkills(t *testing.T) {
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "skills"), os.DirFS(skillsFixture(t))); err != nil {
		t.Fatal(err)
	}
	saveConfig(t, home, &config.Config{
		Sources:  map[string]*config.Source{"docs": {URL: skillsUpstream(t)}, "more": {URL: skillsUpstream(t)}},
		Policy:   map[string]config.Mode{},
		Profiles: map[string]*config.Profile{"d": {Sources: []string{"docs"}, Mode: config.ProfileDirect}},
	})
	h := openHub(t, home, hub.Options{})
	ctx := context.Background()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	// The whole hub has the outside source's skill: the profile leaves it out.
	if out, err := h.Describe(ctx, hub.DescribeRequest{Targets: []string{"skill:more.acme/billing/refunds"}}); err != nil || !strings.Contains(out, "From source more") {
		t.Fatalf("the whole hub's describe of more's skill: %v\n%s", err, out)
	}
	describe := func(target string) string {
		out, err := h.Describe(ctx, hub.DescribeRequest{Targets: []string{target}, Profile: "d"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	s := NewServers(h, Options{Version: "test"})
	t.Cleanup(s.Close)
	bothVersions(t, func(t *testing.T, version string) {
		cs := connectProfile(t, s, "d", "skills-client", version, nil)
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*mcp.Tool{}
		var names []string
		for _, tl := range list.Tools {
			byName[tl.Name] = tl
			names = append(names, tl.Name)
			if !toolNameRE.MatchString(tl.Name) {
				t.Errorf("tool name %q does not fit", tl.Name)
			}
			if strings.HasPrefix(tl.Name, "more") {
				t.Errorf("%s of the source outside the profile is listed", tl.Name)
			}
		}
		want := []string{"docs__ping", "docs__skill__acme__billing__refunds", readToolName, "skill__git-workflow", "skill__pdf-forms"}
		if !slices.Equal(names, want) {
			t.Fatalf("tools %v; want %v", names, want)
		}
		for _, n := range want[1:] {
			if a := byName[n].Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint != nil && *a.DestructiveHint {
				t.Errorf("%s annotations %+v; want read-only", n, a)
			}
		}
		gw := byName["skill__git-workflow"]
		var schema struct {
			Properties struct {
				File struct {
					Enum []string `json:"enum"`
				} `json:"file"`
			} `json:"properties"`
		}
		raw, _ := json.Marshal(gw.InputSchema)
		if err := json.Unmarshal(raw, &schema); err != nil || !slices.Contains(schema.Properties.File.Enum, "references/GUIDE.md") {
			t.Errorf("skill__git-workflow's schema %s; want its files as file's choices", raw)
		}
		if !strings.HasPrefix(gw.Description, "Follow this team's Git conventions") || !strings.Contains(gw.Description, "pass file to read one of them") {
			t.Errorf("skill__git-workflow's description %q", gw.Description)
		}

		// A call gives what describe gives in code mode.
		for _, c := range []struct {
			tool   string
			args   map[string]any
			target string
		}{
			{"skill__git-workflow", map[string]any{}, "skill:git-workflow"},
			{"skill__git-workflow", map[string]any{"file": "references/GUIDE.md"}, "skill:git-workflow#references/GUIDE.md"},
			{"docs__skill__acme__billing__refunds", nil, "skill:docs.acme/billing/refunds"},
			{"docs__skill__acme__billing__refunds", map[string]any{"file": "examples/email.md"}, "skill:docs.acme/billing/refunds#examples/email.md"},
		} {
			out, isErr := callText(t, cs, c.tool, c.args)
			if w := describe(c.target); isErr || out != w {
				t.Errorf("%s %v: isError %v\n%s\nwant describe's\n%s", c.tool, c.args, isErr, out, w)
			}
		}
		// Its files are read through the tool's file argument, the only
		// way a direct-mode client has.
		if out, _ := callText(t, cs, "skill__git-workflow", nil); !strings.Contains(out, " * Files (call this tool with file set to one of them): references/GUIDE.md") || strings.Contains(out, "describe") {
			t.Errorf("skill__git-workflow names another way to its files:\n%s", out)
		}
		if out := describe("skill:docs.acme/billing/refunds#examples/email.md"); !strings.Contains(out, "Dear customer, your refund is on its way.") {
			t.Errorf("describe of the upstream skill's file:\n%s", out)
		}
		// A file the skill does not have is refused, naming those it has.
		if out, isErr := callText(t, cs, "skill__git-workflow", map[string]any{"file": "nope.md"}); !isErr || !strings.HasPrefix(out, "Invalid input: file: ") || !strings.Contains(out, "references/GUIDE.md") {
			t.Errorf("a file the skill does not have: %q", out)
		}
		// A path outside the skill is refused in the words of the tool's
		// own argument, not describe's target syntax.
		if out, isErr := callText(t, cs, "skill__git-workflow", map[string]any{"file": "../secrets.md"}); !isErr || !strings.HasPrefix(out, "Invalid input: file: ") || strings.Contains(out, "#") {
			t.Errorf("a path outside the skill: %q", out)
		}
	})
}

// TestDirectSkillNames: a skill's name is skill__<path> (its source's
// namespace first for an upstream's), each / of the path a __; one that
// a source's tool would share is hashed, as two tools sharing one are.
func TestDirectSkillNames(t *testing.T) {
	tools := []hub.DirectTool{{Tool: &catalog.Tool{Source: "skill", Namespace: "skill", Name: "notes"}}}
	sks := []*skills.Skill{
		{Path: "git-workflow", Address: "skill:git-workflow"},
		{Path: "notes", Address: "skill:notes"},
		{Source: "docs", Namespace: "docs", Path: "acme/billing/refunds", Address: "skill:docs.acme/billing/refunds"},
		{Source: "docs", Namespace: "docs", Path: "a.b", Address: "skill:docs.a.b"},
	}
	names := toolNames(append(toolNamesOf(tools), skillNamesOf(sks)...))
	hashed := regexp.MustCompile(`_[0-9a-f]{8}$`)
	if names[1] != "skill__git-workflow" || names[3] != "docs__skill__acme__billing__refunds" {
		t.Errorf("names %v", names)
	}
	for _, i := range []int{0, 2, 4} {
		if !hashed.MatchString(names[i]) || !toolNameRE.MatchString(names[i]) {
			t.Errorf("name %d = %q; want a hashed name that fits", i, names[i])
		}
	}
	if names[0] == names[2] {
		t.Errorf("the tool skill.notes and the skill notes share %q", names[0])
	}
}
