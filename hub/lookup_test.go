package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSearchWithoutAMatchShowsAFewTools: a request that shares no word
// with any tool gets every tool the policy lets through when they fit in
// the limit, so the model can pick by meaning without another round trip;
// past the limit it gets the namespaces and how to list one.
func TestSearchWithoutAMatchShowsAFewTools(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	ctx := context.Background()
	out, err := h.Search(ctx, SearchRequest{Query: "remember a person"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `No tools match "remember a person"; these are all the 2 there are:`) || !strings.Contains(out, "fake.echo(") || !strings.Contains(out, "fake.crash(") {
		t.Errorf("no match among two tools:\n%s", out)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "remember a person", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out != `No tools match "remember a person". Namespaces: fake. Try other words, or list one with namespace and an empty query.` {
		t.Errorf("no match among more tools than the limit:\n%s", out)
	}
	if err := h.SetPolicy(ctx, "fake.crash", config.Deny); err != nil {
		t.Fatal(err)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "remember a person", Namespace: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `No tools match "remember a person"; the only one there is:`) || strings.Contains(out, "fake.crash") {
		t.Errorf("no match with a denied tool:\n%s", out)
	}
}

// TestListingANamespaceSaysWhatTheRestAreAbout: a namespace listed far
// past the limit closes with the words the names left out start with, so
// that the model knows what to search for; a few more are only counted,
// and a search with words does not say it.
func TestListingANamespaceSaysWhatTheRestAreAbout(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "gh", Version: "1"}, nil)
	for _, name := range []string{"list_issues", "get_issue", "create_issue", "update_issue", "list_pulls", "merge_pull", "get_pull",
		"create_pull", "list_repos", "get_repo", "fork_repo", "star_repo", "list_teams"} {
		server.AddTool(&mcp.Tool{Name: name, Description: "Works on GitHub.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	h := hubWith(t, map[string]*config.Source{"gh": {URL: httpUpstream(t, server, "", "").URL}}, nil)
	ctx := context.Background()
	out, err := h.Search(ctx, SearchRequest{Namespace: "gh", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "\n12 more matches. Narrow the query. Their names start with list 4, get 3, create 1, fork 1, merge 1, star 1, update 1.") {
		t.Errorf("a namespace listed far past the limit:\n%s", out)
	}
	out, err = h.Search(ctx, SearchRequest{Namespace: "gh", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "\n10 more matches. Narrow the query.") {
		t.Errorf("a namespace listed a few past the limit:\n%s", out)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "works on github", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "Their names start with") {
		t.Errorf("a search with words:\n%s", out)
	}
}

// TestStatusNamesSkippedSkills: the status says which skill folders the
// hub skips, and why.
func TestStatusNamesSkippedSkills(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	dir := filepath.Join(h.Paths().Home, "skills", "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the folder to be named in the status", func() bool {
		st, err := h.Status(context.Background())
		return err == nil && strings.Contains(st.SkippedSkills[dir], "does not begin with YAML frontmatter")
	})
}

// TestSetSkillFolder: a folder of skills added through the hub is read at
// the next search, and one removed is not; config.json keeps the list.
func TestSetSkillFolder(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "triage"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: triage\ndescription: Label and assign new tickets.\n---\n"
	if err := os.WriteFile(filepath.Join(dir, "triage", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.SetSkillFolder(ctx, "skills", true); err == nil || !strings.Contains(err.Error(), "is relative") {
		t.Errorf("a relative folder: %v", err)
	}
	if err := h.SetSkillFolder(ctx, dir, true); err != nil {
		t.Fatal(err)
	}
	out, err := h.Search(ctx, SearchRequest{Query: "label and assign new tickets"})
	if err != nil || !strings.Contains(out, "skill:triage") {
		t.Fatalf("after adding the folder: %v\n%s", err, out)
	}
	if cfg, err := config.Load(h.paths.Config()); err != nil || len(cfg.Skills.Paths) != 1 || cfg.Skills.Paths[0] != dir {
		t.Errorf("config.json's skills: %v, %v", err, cfg.Skills.Paths)
	}
	if err := h.SetSkillFolder(ctx, dir, false); err != nil {
		t.Fatal(err)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "label and assign new tickets"})
	if err != nil || strings.Contains(out, "skill:triage") {
		t.Errorf("after removing the folder: %v\n%s", err, out)
	}
}

// TestSearchSaysWhichWordsNoToolUses: a search some of whose words no
// tool uses says which, and what the resources of the namespaces it lists
// are called, from the tools the policy lets through only; a search whose
// words the tools use says nothing more.
func TestSearchSaysWhichWordsNoToolUses(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "api.json")
	op := func(id, summary string) string {
		return `{"operationId":"` + id + `","summary":"` + summary + `","responses":{"200":{"description":"ok"}}}`
	}
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{
		"/spacecraft/search":{"post":`+op("searchSpacecraft", "Searching spacecrafts")+`},
		"/spacecraft/{uid}":{"get":`+op("getSpacecraft", "Retrieval of a single spacecraft")+`},
		"/performer/search":{"post":`+op("searchPerformers", "Searching performers")+`},
		"/secretPlans/search":{"post":`+op("searchSecretPlans", "Searching secret plans")+`}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newOpenAPIHub(t, "st", &config.Source{OpenAPI: doc}, map[string]config.Mode{"st.searchSecretPlans": config.Deny}, Options{})
	ctx := context.Background()
	out, err := h.Search(ctx, SearchRequest{Query: "search actors and starfighters"})
	if err != nil {
		t.Fatal(err)
	}
	want := "No tool of st uses the words \"actors\" and \"starfighters\". Its resources, to search by: spacecraft, performer.\n"
	if !strings.Contains(out, "st.searchPerformers(") || !strings.Contains(out, want) || strings.Contains(out, "secretPlans") {
		t.Errorf("a search with words no tool uses:\n%s\nwant it to say:\n%s", out, want)
	}
	out, err = h.Search(ctx, SearchRequest{Query: "search performers"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "No tool of") || strings.Contains(out, "resources") {
		t.Errorf("a search in the tools' words:\n%s", out)
	}

	// An MCP server's tools have no paths: the note says how to list
	// them, unless the answer shows them all.
	mh := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	out, err = mh.Search(ctx, SearchRequest{Query: "echo the pigeons", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "No tool of fake uses the word \"pigeons\". List its 2 tools with namespace \"fake\" and an empty query."; !strings.Contains(out, want) {
		t.Errorf("an MCP server's tools, one shown:\n%s\nwant it to say:\n%s", out, want)
	}
	out, err = mh.Search(ctx, SearchRequest{Query: "echo or crash the pigeons"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "\nNo tool of fake uses the word \"pigeons\".") {
		t.Errorf("an MCP server's tools, all shown:\n%s", out)
	}
}
