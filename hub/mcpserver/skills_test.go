package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
)

// serveHubHTTP serves h's MCP server over streamable HTTP, stateless as
// the hub's own endpoint is, and returns its URL.
func serveHubHTTP(t *testing.T, h Hub) string {
	t.Helper()
	srv := New(h, Options{Version: "test"})
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
	sdk, err := filepath.Abs(filepath.Join(hubtest.RepoRoot(t), "testdata/npm/node_modules/@modelcontextprotocol/sdk/dist/esm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Skip("the TypeScript SDK is not installed: npm ci --prefix testdata/npm")
	}
	zod, _ := filepath.Abs(filepath.Join(hubtest.RepoRoot(t), "testdata/npm/node_modules/zod/index.js"))
	script = strings.NewReplacer("$SDK", sdk, "$ZOD", zod).Replace(script)
	path := filepath.Join(t.TempDir(), "client.mjs")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, path)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = testLogWriter{t}
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
	h, _ := newSkillHub(t)
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
	want, err := h.Describe(context.Background(), hub.DescribeRequest{Targets: []string{"skill:git-workflow"}})
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
	h, _ := newSkillHub(t)
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

	if string(got.Capabilities.Extensions[upstream.SkillsExtension]) != "{}" || got.Capabilities.Resources == nil {
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
			data, err := os.ReadFile(filepath.Join(skillsFixture(t), filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			if want := digest(data); r.Digest != want || r.Size != int64(len(data)) || r.ReadDigest != want || r.ReadSize != r.Size {
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
	gotEntry, _ := json.Marshal(upstream.SkillEntry{URI: g.Skill.URI, Frontmatter: g.Skill.Frontmatter, Resources: stripRead(g.Skill.Resources)})
	wantEntry, _ := json.Marshal(upstream.SkillEntry{URI: gw.URI, Frontmatter: gw.Frontmatter, Resources: stripRead(gw.Resources)})
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

func stripRead[R any](rs []R) []upstream.SkillResource {
	b, _ := json.Marshal(rs)
	var out []upstream.SkillResource
	json.Unmarshal(b, &out)
	return out
}

// TestSkillsListPages: skills/list pages by URI, through the go-sdk client.
func TestSkillsListPages(t *testing.T) {
	h, home := newSkillHub(t)
	for i := range 150 {
		name := fmt.Sprintf("s%03d", i)
		writeSkill(t, filepath.Join(home, "skills", name), "---\nname: "+name+"\ndescription: Skill "+name+".\n---\nBody.\n")
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	if err := mcp.AddSendingCustomMethod[*upstream.ListSkillsParams, *upstream.ListSkillsResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := New(h, Options{Version: "test"}).Connect(ctx, st, nil)
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
		res, err := mcp.CallCustomMethod[*upstream.ListSkillsParams, *upstream.ListSkillsResult](ctx, cs, "skills/list", &upstream.ListSkillsParams{Cursor: cursor})
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
	if _, err := mcp.CallCustomMethod[*upstream.ListSkillsParams, *upstream.ListSkillsResult](ctx, cs, "skills/list", &upstream.ListSkillsParams{Cursor: "bogus"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "not one skills/list gave") {
		t.Fatalf("a bad cursor: %v", err)
	}
}

// TestSkillsExtensionCacheable: at 2026-07-28, through the go-sdk client,
// skills/list, skills/get and the files' resources/read carry ttlMs and
// cacheScope, and the results are complete.
func TestSkillsExtensionCacheable(t *testing.T) {
	h, _ := newSkillHub(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	if err := mcp.AddSendingCustomMethod[*upstream.ListSkillsParams, *upstream.ListSkillsResult](c, "skills/list"); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*upstream.GetSkillParams, *upstream.GetSkillResult](c, "skills/get"); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := New(h, Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := mcp.CallCustomMethod[*upstream.ListSkillsParams, *upstream.ListSkillsResult](ctx, cs, "skills/list", &upstream.ListSkillsParams{})
	if err != nil || list.ResultType != "complete" || list.TTLMs != 60000 || list.CacheScope != "private" || len(list.Skills) != 2 {
		t.Fatalf("skills/list: %v, %+v", err, list)
	}
	get, err := mcp.CallCustomMethod[*upstream.GetSkillParams, *upstream.GetSkillResult](ctx, cs, "skills/get", &upstream.GetSkillParams{URI: "skill://pdf-forms/SKILL.md"})
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

// digest is the sha256 digest of data as a skill entry gives it.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// testLogWriter writes a child process's stderr to the test's log.
type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestUpstreamSkillsTypeScriptClient: an upstream's skills reach a
// TypeScript client's search and describe as skill:<source>.<path>.
func TestUpstreamSkillsTypeScriptClient(t *testing.T) {
	home := t.TempDir()
	saveConfig(t, home, &config.Config{Sources: map[string]*config.Source{"docs": {URL: skillsUpstream(t)}}, Policy: map[string]config.Mode{}})
	h := openHub(t, home, hub.Options{})
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	var got struct {
		Search   string `json:"search"`
		Describe string `json:"describe"`
		Code     struct {
			Result string `json:"result"`
		} `json:"code"`
	}
	runTSClient(t, `
import { Client } from "$SDK/client/index.js";
import { StreamableHTTPClientTransport } from "$SDK/client/streamableHttp.js";
const client = new Client({ name: "ts-client", version: "0.0.1" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.HUB_URL)));
const text = (r) => r.content.map((c) => c.text).join("");
const search = text(await client.callTool({ name: "search", arguments: { query: "refund a customer" } }));
const describe = text(await client.callTool({ name: "describe", arguments: { targets: ["skill:docs.acme/billing/refunds"] } }));
const code = (await client.callTool({ name: "execute", arguments: { code: 'return await hub.describe("skill:docs.acme/billing/refunds#examples/email.md");' } })).structuredContent;
console.log(JSON.stringify({ search, describe, code }));
await client.close();
`, []string{"HUB_URL=" + serveHubHTTP(t, h)}, &got)
	if !strings.Contains(got.Search, "  skill:docs.acme/billing/refunds   (from docs)\n") {
		t.Fatalf("search:\n%s", got.Search)
	}
	if !strings.Contains(got.Describe, "From source docs") || !strings.Contains(got.Describe, "Check the order, then refund at most the amount paid.") {
		t.Fatalf("describe:\n%s", got.Describe)
	}
	if !strings.Contains(got.Code.Result, "Dear customer, your refund is on its way.") {
		t.Fatalf("hub.describe in code: %+v", got.Code)
	}
}

// skillsUpstream serves, over HTTP on loopback, a go-sdk server that offers
// the Skills extension with one skill, acme/billing/refunds, and returns
// its URL.
func skillsUpstream(t *testing.T) string {
	files := map[string]string{
		"skill://acme/billing/refunds/SKILL.md":          "---\nname: refunds\ndescription: Process customer refund requests per company policy.\nlicense: Apache-2.0\n---\n# Refunds\n\nCheck the order, then refund at most the amount paid. Use examples/email.md to answer.\n",
		"skill://acme/billing/refunds/examples/email.md": "Dear customer, your refund is on its way.\n",
	}
	entry := upstream.SkillEntry{URI: "skill://acme/billing/refunds/SKILL.md",
		Frontmatter: json.RawMessage(`{"name":"refunds","description":"Process customer refund requests per company policy.","license":"Apache-2.0"}`)}
	for _, uri := range []string{"skill://acme/billing/refunds/SKILL.md", "skill://acme/billing/refunds/examples/email.md"} {
		entry.Resources = append(entry.Resources, upstream.SkillResource{URI: uri, Digest: digest([]byte(files[uri])), Size: int64(len(files[uri]))})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "skills-upstream", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}, Extensions: map[string]any{upstream.SkillsExtension: map[string]any{}}},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "ping", Description: "Answer pong."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	if err := mcp.AddReceivingCustomMethod(srv, "skills/list", func(context.Context, *mcp.ServerSession, *upstream.ListSkillsParams) (*upstream.ListSkillsResult, error) {
		return &upstream.ListSkillsResult{ResultType: "complete", Skills: []upstream.SkillEntry{entry}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skills"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, ok := files[req.Params.URI]
		if !ok {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
	})
	return hubtest.HTTPUpstream(t, srv, "", "").URL
}
