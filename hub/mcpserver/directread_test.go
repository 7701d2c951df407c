package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// bigText is a text of more than 8 KB with characters of one to four
// bytes, so a slice's edges fall inside some of them.
func bigText() string {
	var b strings.Builder
	for i := 0; b.Len() < 9000; i++ {
		b.WriteString("line " + strconv.Itoa(i) + ": é€😀\n")
	}
	return b.String()
}

// TestDirectProfileReadsLargeResults: with an inline limit of 2 KB, a
// direct-mode tool's 9 KB result comes back as its handle and its start;
// hub__read (listed, read-only, its length bounded by the inline limit)
// reads the text of its first content item in slices that join into the
// upstream's text, and a slice of its JSON text. A read of more than the
// limit is refused before anything is read, and so is a handle of a run
// made outside the profile.
func TestDirectProfileReadsLargeResults(t *testing.T) {
	text := bigText()
	up := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "big", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	home := t.TempDir()
	saveConfig(t, home, &config.Config{
		Sources:  map[string]*config.Source{"up": {URL: hubtest.HTTPUpstream(t, up, "", "").URL}},
		Policy:   map[string]config.Mode{},
		Profiles: map[string]*config.Profile{"d": {Sources: []string{"up"}, Mode: config.ProfileDirect}},
	})
	const limit = 2048
	h := openHub(t, home, hub.Options{Limits: sandbox.Limits{InlineResultBytes: limit}})
	ctx := context.Background()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	// A handle of a run outside the profile.
	outside, err := h.Execute(ctx, hub.ExecuteRequest{Code: `return "x".repeat(5000);`})
	if err != nil {
		t.Fatal(err)
	}
	var hr hub.HandleResult
	if err := json.Unmarshal(outside.Result, &hr); err != nil || hr.Handle == "" {
		t.Fatalf("the whole hub's large result: %s", outside.Result)
	}
	s := NewServers(h, Options{Version: "test"})
	t.Cleanup(s.Close)
	bothVersions(t, func(t *testing.T, version string) {
		cs := connectProfile(t, s, "d", "read-client", version, nil)
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var read *mcp.Tool
		for _, tl := range list.Tools {
			if tl.Name == readToolName {
				read = tl
			}
		}
		if read == nil {
			t.Fatalf("no %s among %d tools", readToolName, len(list.Tools))
		}
		schema, _ := json.Marshal(read.InputSchema)
		if a := read.Annotations; a == nil || !a.ReadOnlyHint || !strings.Contains(string(schema), `"maximum":2048`) || !strings.Contains(read.Description, "at most 2048 bytes") {
			t.Errorf("%s: %s %+v %q", readToolName, schema, a, read.Description)
		}

		out, isErr := callText(t, cs, "up__big", nil)
		handle := regexp.MustCompile(`h_[A-Za-z0-9_-]+`).FindString(out)
		if isErr || handle == "" || !strings.Contains(out, readToolName) || !strings.Contains(out, "line 0: é€😀") {
			t.Fatalf("up__big: isError %v\n%s", isErr, out)
		}

		// The text of the first content item, in slices of the limit.
		var got strings.Builder
		for off, n := 0, 0; ; n++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: readToolName, Arguments: map[string]any{"handle": handle, "path": "content.0.text", "offset": off, "length": limit}})
			if err != nil || res.IsError || len(res.Content) != 2 {
				t.Fatalf("read at %d: %v %q", off, err, resultText(res))
			}
			piece := res.Content[0].(*mcp.TextContent).Text
			note := res.Content[1].(*mcp.TextContent).Text
			if len(piece) > limit+3 {
				t.Fatalf("read at %d gave %d bytes", off, len(piece))
			}
			got.WriteString(piece)
			want := "[bytes " + strconv.Itoa(off) + " to " + strconv.Itoa(min(off+limit, len(text))) + " of " + strconv.Itoa(len(text))
			if !strings.HasPrefix(note, want) {
				t.Fatalf("read at %d: note %q, want it to start %q", off, note, want)
			}
			off += limit
			if off >= len(text) {
				break
			}
			if n > len(text)/limit+1 {
				t.Fatal("reads do not end")
			}
		}
		if got.String() != text {
			t.Fatalf("the slices join into %d bytes, not the upstream's %d", got.Len(), len(text))
		}
		// A slice of its JSON text.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: readToolName, Arguments: map[string]any{"handle": handle, "offset": 0, "length": 41}})
		if err != nil || res.IsError || len(res.Content) != 2 || res.Content[0].(*mcp.TextContent).Text != `{"content":[{"type":"text","text":"line 0` {
			t.Errorf("a slice of the JSON text: %v %q", err, resultText(res))
		}

		// Bounds, before anything is read.
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"handle": handle, "length": limit + 1}, "Invalid input: length: 2049 bytes is above the 2048 bytes one read returns"},
			{map[string]any{"handle": handle}, "above the 2048 bytes one read returns; read it in slices"},
			{map[string]any{"handle": handle, "path": "content.0.text"}, "the text is " + strconv.Itoa(len(text)) + " bytes"},
			{map[string]any{"handle": handle, "path": "content.1"}, "Invalid input: path: "},
			{map[string]any{"handle": hr.Handle, "offset": 0, "length": 10}, "Invalid input: handle: no handle"},
			{map[string]any{"handle": "h_nope"}, "Invalid input: handle: no handle"},
		} {
			if out, isErr := callText(t, cs, readToolName, c.args); !isErr || !strings.Contains(out, c.want) {
				t.Errorf("%s %v: isError %v %q; want %q", readToolName, c.args, isErr, out, c.want)
			}
		}
	})
}

// TestDirectProfileTypeScriptClient: the TypeScript SDK's client, over
// streamable HTTP, lists a direct-mode profile's skill and hub__read
// beside its tool, reads the skill as describe gives it, and reads a
// result over the inline limit back whole through hub__read by the handle
// the result names.
func TestDirectProfileTypeScriptClient(t *testing.T) {
	text := bigText()
	up := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	mcp.AddTool(up, &mcp.Tool{Name: "big", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "skills"), os.DirFS(skillsFixture(t))); err != nil {
		t.Fatal(err)
	}
	saveConfig(t, home, &config.Config{
		Sources:  map[string]*config.Source{"up": {URL: hubtest.HTTPUpstream(t, up, "", "").URL}},
		Policy:   map[string]config.Mode{},
		Profiles: map[string]*config.Profile{"d": {Sources: []string{"up"}, Mode: config.ProfileDirect}},
	})
	h := openHub(t, home, hub.Options{Limits: sandbox.Limits{InlineResultBytes: 2048}})
	ctx := context.Background()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	s := NewServers(h, Options{Version: "test"})
	t.Cleanup(s.Close)
	srv, err := s.Server("d")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	var got struct {
		Names  []string `json:"names"`
		Skill  string   `json:"skill"`
		Big    string   `json:"big"`
		Joined string   `json:"joined"`
	}
	runTSClient(t, `
import { Client } from "$SDK/client/index.js";
import { StreamableHTTPClientTransport } from "$SDK/client/streamableHttp.js";
const client = new Client({ name: "ts-direct", version: "0.0.1" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.HUB_URL)));
const names = (await client.listTools()).tools.map((t) => t.name);
const first = (r) => r.content[0].text;
const skill = first(await client.callTool({ name: "skill__git-workflow", arguments: {} }));
const big = first(await client.callTool({ name: "up__big", arguments: {} }));
const handle = big.match(/h_[A-Za-z0-9_-]+/)[0];
let joined = "";
for (let offset = 0, n = 0; n < 20; n++, offset += 2048) {
	const r = await client.callTool({ name: "hub__read", arguments: { handle, path: "content.0.text", offset, length: 2048 } });
	if (r.isError) throw new Error(first(r));
	joined += first(r);
	if (!r.content[1].text.includes("next slice")) break;
}
console.log(JSON.stringify({ names, skill, big, joined }));
await client.close();
`, []string{"HUB_URL=" + ts.URL}, &got)
	want := []string{"hub__read", "skill__git-workflow", "skill__pdf-forms", "up__big"}
	if !slices.Equal(got.Names, want) {
		t.Errorf("tools %v; want %v", got.Names, want)
	}
	if w, err := h.Describe(ctx, hub.DescribeRequest{Targets: []string{"skill:git-workflow"}, Profile: "d"}); err != nil || got.Skill != w {
		t.Errorf("skill__git-workflow gave\n%s\nwant describe's (%v)\n%s", got.Skill, err, w)
	}
	if !strings.Contains(got.Big, readToolName) || got.Joined != text {
		t.Errorf("up__big said %q; the reads joined into %d bytes, want the upstream's %d", got.Big, len(got.Joined), len(text))
	}
}
