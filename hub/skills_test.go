package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

func TestParseSkillMD(t *testing.T) {
	doc, err := parseSkillMD([]byte("---\nname: a-b\ndescription: Does a thing.\nlicense: MIT\nmetadata:\n  version: \"2\"\n  n: 3\nallowed-tools: [x, y]\nwhen: 2026-01-02\n---\n# Title\nbody\n"))
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
		{"---\nname: a\ndescription: b: c: d\n---\n", "frontmatter"},
	} {
		if _, err := parseSkillMD([]byte(bad.text)); err == nil || !strings.Contains(err.Error(), bad.problem) {
			t.Errorf("%q: %v, want %q", bad.text, err, bad.problem)
		}
	}
}

func TestSkillsConfig(t *testing.T) {
	home, _ := os.UserHomeDir()
	cfg, err := ParseConfig("config.json", []byte(`{"skills": {"paths": ["~/.claude/skills", "/opt/skills/"]}}`))
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
		_, err := ParseConfig("config.json", []byte(bad.text))
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
	sk, _ := h.skills().lookup("skill:pdf-forms")
	writeSkill(t, filepath.Join(h.paths.Home, "skills", "pdf-forms"), "---\nname: pdf-forms\ndescription: Rotate pages.\n---\nNewer body.\n")
	data, fresh, err := h.readSkillFile(sk, "SKILL.md")
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

// serveHubHTTP serves h's MCP server over streamable HTTP, stateless as
// the hub's own endpoint is, and returns its URL.
func serveHubHTTP(t *testing.T, h *Hub) string {
	t.Helper()
	srv := h.NewMCPServer("test")
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// runTSClient runs script (an ES module) with node, with SDK set to the
// TypeScript SDK's dist/esm folder and ZOD to zod's, and decodes what it
// prints into v.
func runTSClient(t *testing.T, script string, env []string, v any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	sdk, err := filepath.Abs("../testdata/npm/node_modules/@modelcontextprotocol/sdk/dist/esm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Skip("the TypeScript SDK is not installed: npm ci --prefix testdata/npm")
	}
	zod, _ := filepath.Abs("../testdata/npm/node_modules/zod/index.js")
	script = strings.NewReplacer("$SDK", sdk, "$ZOD", zod).Replace(script)
	path := filepath.Join(t.TempDir(), "client.mjs")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), svcTestWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, path)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = svcLogWriter{t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("node client printed %q: %v", out, err)
	}
}

// TestSkillsTypeScriptClient: through the TypeScript SDK's client, a skill
// is found by search, described, and read from code with hub.describe.
func TestSkillsTypeScriptClient(t *testing.T) {
	h := newSkillHub(t, "")
	url := serveHubHTTP(t, h)
	var got struct {
		Search   string `json:"search"`
		Describe string `json:"describe"`
		File     string `json:"file"`
		Execute  struct {
			Status string `json:"status"`
			Result struct {
				Skill string `json:"skill"`
				Guide string `json:"guide"`
			} `json:"result"`
		} `json:"execute"`
	}
	runTSClient(t, `
import { Client } from "$SDK/client/index.js";
import { StreamableHTTPClientTransport } from "$SDK/client/streamableHttp.js";
const client = new Client({ name: "ts-client", version: "0.0.1" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.HUB_URL)));
const text = (r) => r.content.map((c) => c.text).join("");
const search = text(await client.callTool({ name: "search", arguments: { query: "git commit conventions" } }));
const describe = text(await client.callTool({ name: "describe", arguments: { targets: ["skill:git-workflow"] } }));
const file = text(await client.callTool({ name: "describe", arguments: { targets: ["skill:git-workflow#scripts/branch.sh"] } }));
const exec = await client.callTool({ name: "execute", arguments: { code:
	'const skill = await hub.describe("skill:git-workflow"); const guide = await hub.describe("skill:git-workflow#references/GUIDE.md"); return { skill, guide };' } });
console.log(JSON.stringify({ search, describe, file, execute: exec.structuredContent }));
await client.close();
`, []string{"HUB_URL=" + url}, &got)
	if !strings.Contains(got.Search, "  skill:git-workflow\n    Follow this team's Git conventions") {
		t.Fatalf("search:\n%s", got.Search)
	}
	want, err := h.Describe(context.Background(), DescribeRequest{Targets: []string{"skill:git-workflow"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Describe != want || !strings.Contains(want, "Work on a branch named `<area>/<short-topic>`, never on main.") {
		t.Fatalf("describe:\n%s\nwant:\n%s", got.Describe, want)
	}
	if !strings.Contains(got.File, "git rev-parse --abbrev-ref HEAD") {
		t.Fatalf("file:\n%s", got.File)
	}
	if got.Execute.Status != "completed" || got.Execute.Result.Skill != want || !strings.Contains(got.Execute.Result.Guide, "# Pull request checklist") {
		t.Fatalf("execute: %+v", got.Execute)
	}
}

// TestSkillsExtensionTypeScriptClient: a TypeScript client that declares
// the Skills extension sees it declared by the hub, lists the skills, gets
// one, reads every file by its skill:// URI and finds each digest and size
// right.
func TestSkillsExtensionTypeScriptClient(t *testing.T) {
	h := newSkillHub(t, "")
	url := serveHubHTTP(t, h)
	type resource struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
		// What the client computed over what resources/read gave.
		ReadDigest string `json:"readDigest"`
		ReadSize   int64  `json:"readSize"`
		MIMEType   string `json:"mimeType"`
	}
	type entry struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   []resource      `json:"resources"`
	}
	var got struct {
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
			Resources  json.RawMessage            `json:"resources"`
		} `json:"capabilities"`
		List struct {
			ResultType string  `json:"resultType"`
			Skills     []entry `json:"skills"`
			NextCursor *string `json:"nextCursor"`
			TTLMs      int     `json:"ttlMs"`
			CacheScope string  `json:"cacheScope"`
		} `json:"list"`
		Get struct {
			ResultType string `json:"resultType"`
			Skill      entry  `json:"skill"`
			TTLMs      int    `json:"ttlMs"`
			CacheScope string `json:"cacheScope"`
		} `json:"get"`
		GetUnknown  string `json:"getUnknown"`
		GetFile     string `json:"getFile"`
		ReadUnknown string `json:"readUnknown"`
	}
	runTSClient(t, `
import { createHash } from "node:crypto";
import { Client } from "$SDK/client/index.js";
import { StreamableHTTPClientTransport } from "$SDK/client/streamableHttp.js";
import * as z from "$ZOD";
const any = z.object({}).passthrough();
const client = new Client({ name: "ts-client", version: "0.0.1" },
	{ capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } } });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.HUB_URL)));
const capabilities = client.getServerCapabilities();
const list = await client.request({ method: "skills/list", params: {} }, any);
for (const skill of list.skills) {
	for (const r of skill.resources) {
		const read = await client.readResource({ uri: r.uri });
		const c = read.contents[0];
		const bytes = c.text !== undefined ? Buffer.from(c.text, "utf8") : Buffer.from(c.blob, "base64");
		r.readDigest = "sha256:" + createHash("sha256").update(bytes).digest("hex");
		r.readSize = bytes.length;
		r.mimeType = c.mimeType;
	}
}
const get = await client.request({ method: "skills/get", params: { uri: "skill://git-workflow/SKILL.md" } }, any);
const fail = async (f) => { try { await f(); return "no error"; } catch (e) { return e.code + " " + e.message; } };
const getUnknown = await fail(() => client.request({ method: "skills/get", params: { uri: "skill://nosuch/SKILL.md" } }, any));
const getFile = await fail(() => client.request({ method: "skills/get", params: { uri: "skill://git-workflow/references/GUIDE.md" } }, any));
const readUnknown = await fail(() => client.readResource({ uri: "skill://git-workflow/nope.md" }));
console.log(JSON.stringify({ capabilities, list, get, getUnknown, getFile, readUnknown }));
await client.close();
`, []string{"HUB_URL=" + url}, &got)

	if string(got.Capabilities.Extensions[skillsExtension]) != "{}" || got.Capabilities.Resources == nil {
		t.Fatalf("capabilities: %+v", got.Capabilities)
	}
	l := got.List
	if l.ResultType != "complete" || l.TTLMs != 60000 || l.CacheScope != "private" || l.NextCursor != nil || len(l.Skills) != 2 {
		t.Fatalf("skills/list: %+v", l)
	}
	gw := l.Skills[0]
	if gw.URI != "skill://git-workflow/SKILL.md" || l.Skills[1].URI != "skill://pdf-forms/SKILL.md" {
		t.Fatalf("skills/list URIs: %s, %s", gw.URI, l.Skills[1].URI)
	}
	if string(gw.Frontmatter) != `{"name":"git-workflow","description":"Follow this team's Git conventions for branch names, commit messages and pull requests. Use when committing or opening a pull request.","license":"Apache-2.0","metadata":{"version":"1.2","owner":"platform"}}` {
		t.Fatalf("frontmatter %s", gw.Frontmatter)
	}
	var uris []string
	for _, sk := range l.Skills {
		for _, r := range sk.Resources {
			uris = append(uris, r.URI)
			// The digest and size of the fixture's file on disk, and of
			// what the client read.
			rel := strings.TrimPrefix(r.URI, "skill://")
			data, err := os.ReadFile(filepath.Join("testdata", "skills", filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			if want := digestOf(data); r.Digest != want || r.Size != int64(len(data)) || r.ReadDigest != want || r.ReadSize != r.Size {
				t.Errorf("%s: listed %s %d, read %s %d, want %s %d", r.URI, r.Digest, r.Size, r.ReadDigest, r.ReadSize, want, len(data))
			}
		}
	}
	if strings.Join(uris, " ") != "skill://git-workflow/SKILL.md skill://git-workflow/references/GUIDE.md skill://git-workflow/scripts/branch.sh skill://pdf-forms/SKILL.md" {
		t.Fatalf("resources %v", uris)
	}
	if mt := gw.Resources[0].MIMEType; mt != "text/markdown" {
		t.Fatalf("SKILL.md read as %q", mt)
	}
	g := got.Get
	gotEntry, _ := json.Marshal(SkillEntry{URI: g.Skill.URI, Frontmatter: g.Skill.Frontmatter, Resources: stripRead(g.Skill.Resources)})
	wantEntry, _ := json.Marshal(SkillEntry{URI: gw.URI, Frontmatter: gw.Frontmatter, Resources: stripRead(gw.Resources)})
	if g.ResultType != "complete" || g.TTLMs != 60000 || g.CacheScope != "private" || string(gotEntry) != string(wantEntry) {
		t.Fatalf("skills/get: %+v\n%s\nwant %s", g, gotEntry, wantEntry)
	}
	if got.GetUnknown != "-32602 MCP error -32602: No skill is served at skill://nosuch/SKILL.md" || !strings.HasPrefix(got.GetFile, "-32602 ") {
		t.Fatalf("skills/get of no skill: %q; of a file that is not SKILL.md: %q", got.GetUnknown, got.GetFile)
	}
	if !strings.Contains(got.ReadUnknown, "Resource not found") {
		t.Fatalf("resources/read of no file: %q", got.ReadUnknown)
	}
}

func stripRead[R any](rs []R) []SkillResource {
	b, _ := json.Marshal(rs)
	var out []SkillResource
	json.Unmarshal(b, &out)
	return out
}

// TestSkillsListPages: skills/list pages by URI, through the go-sdk client.
func TestSkillsListPages(t *testing.T) {
	h := newSkillHub(t, "")
	for i := range 150 {
		name := fmt.Sprintf("s%03d", i)
		writeSkill(t, filepath.Join(h.paths.Home, "skills", name), "---\nname: "+name+"\ndescription: Skill "+name+".\n---\nBody.\n")
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	if err := mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := h.NewMCPServer("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var all []string
	cursor := ""
	pages := 0
	for {
		res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx, cs, "skills/list", &ListSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, e := range res.Skills {
			all = append(all, e.URI)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if pages != 2 || len(all) != 152 || all[0] != "skill://git-workflow/SKILL.md" || all[151] != "skill://s149/SKILL.md" {
		t.Fatalf("%d pages, %d entries: %v", pages, len(all), all)
	}
	if _, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx, cs, "skills/list", &ListSkillsParams{Cursor: "bogus"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "not one skills/list gave") {
		t.Fatalf("a bad cursor: %v", err)
	}
}

// TestSkillsExtensionCacheable: at 2026-07-28, through the go-sdk client,
// skills/list, skills/get and the files' resources/read carry ttlMs and
// cacheScope, and the results are complete.
func TestSkillsExtensionCacheable(t *testing.T) {
	h := newSkillHub(t, "")
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	if err := mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*GetSkillParams, *GetSkillResult](c, "skills/get"); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := h.NewMCPServer("test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx, cs, "skills/list", &ListSkillsParams{})
	if err != nil || list.ResultType != "complete" || list.TTLMs != 60000 || list.CacheScope != "private" || len(list.Skills) != 2 {
		t.Fatalf("skills/list: %v, %+v", err, list)
	}
	get, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](ctx, cs, "skills/get", &GetSkillParams{URI: "skill://pdf-forms/SKILL.md"})
	if err != nil || get.ResultType != "complete" || get.TTLMs != 60000 || get.CacheScope != "private" || get.Skill.URI != "skill://pdf-forms/SKILL.md" {
		t.Fatalf("skills/get: %v, %+v", err, get)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf-forms/SKILL.md"})
	if err != nil || read.TTLMs != 60000 || read.CacheScope != "private" || len(read.Contents) != 1 || !strings.HasPrefix(read.Contents[0].Text, "---\nname: pdf-forms\n") {
		t.Fatalf("resources/read: %v, %+v", err, read)
	}
	// The tools list keeps its hour.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || tools.TTLMs != int(listTTL/time.Millisecond) {
		t.Fatalf("tools/list: %v, ttl %d", err, tools.TTLMs)
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
		sk, err := upstreamSkill("my-docs", ListedSkill{URI: c.uri, Frontmatter: json.RawMessage(c.fm), Resources: json.RawMessage(c.res)})
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
