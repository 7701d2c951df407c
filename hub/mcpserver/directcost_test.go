package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/tsgen"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// costFake serves a direct-mode profile "d" of fixed tools.
type costFake struct {
	profileFake
	tools []hub.DirectTool
}

// A costFake that fell short of DirectHub would serve no direct mode.
var _ DirectHub = (*costFake)(nil)

func (f *costFake) DirectTools(string) ([]hub.DirectTool, error) { return f.tools, nil }

func (f *costFake) AwaitSources(context.Context, string) error { return nil }

func (f *costFake) CallTool(context.Context, hub.ToolCall) (*hub.Envelope, error) {
	return nil, fmt.Errorf("costFake: call")
}

func (f *costFake) Subscribe(func(hub.Event)) func() { return func() {} }

func (f *costFake) DirectSkills(string) ([]*skills.Skill, error) { return nil, nil }

func (f *costFake) ReadHandle(context.Context, hub.HandleRead) (*hub.HandleText, error) {
	return nil, fmt.Errorf("costFake: read")
}

func (f *costFake) Limits() sandbox.Limits { return sandbox.DefaultLimits() }

// fixtureTools are the tool definitions the TypeScript generator's tests
// read (hub/tsgen/testdata): captured from the reference servers, and
// modelled on real ones.
func fixtureTools(t *testing.T) []*catalog.Tool {
	t.Helper()
	var out []*catalog.Tool
	for _, dir := range []string{"live", "tools"} {
		files, err := filepath.Glob(filepath.Join(hubtest.RepoRoot(t), "hub", "tsgen", "testdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var tools []struct {
				Name        string               `json:"name"`
				Title       string               `json:"title"`
				Description string               `json:"description"`
				InputSchema json.RawMessage      `json:"inputSchema"`
				Annotations *mcp.ToolAnnotations `json:"annotations"`
			}
			if err := json.Unmarshal(data, &tools); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			ns := strings.TrimSuffix(filepath.Base(f), ".json")
			for _, mt := range tools {
				out = append(out, &catalog.Tool{Source: ns, Namespace: ns, Name: mt.Name, Title: mt.Title, Description: mt.Description, InputSchema: mt.InputSchema, Annotations: mt.Annotations})
			}
		}
	}
	return out
}

// surfaceCost is what a client of srv reads before its first call: the
// server's instructions and the whole tools/list, as compact JSON.
func surfaceCost(t *testing.T, srv *mcp.Server) (text string, tools int) {
	t.Helper()
	ctx := context.Background()
	cs := connectServer(t, srv, "cost", "", nil)
	var all []*mcp.Tool
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, tl)
	}
	list, _ := json.Marshal(all)
	return cs.InitializeResult().Instructions + "\n" + string(list), len(all)
}

// TestDirectSurfaceCost measures the fixed cost of a session (the
// instructions and tools/list) of a direct-mode profile of 20, 100 and 500
// tools (and hub__read) next to code mode's three, in o200k_base tokens and, where
// @anthropic-ai/tokenizer is installed, Claude's. The tools are the
// fixtures' real definitions (49), repeated under further namespaces past
// them. Code mode costs less than the smallest of them, and each larger
// profile more than the one before.
func TestDirectSurfaceCost(t *testing.T) {
	base := fixtureTools(t)
	rows := []struct {
		name string
		text string
	}{}
	codeText, n := surfaceCost(t, New(fakeHub{}, Options{Version: "test"}))
	if n != 3 {
		t.Fatalf("code mode lists %d tools", n)
	}
	rows = append(rows, struct{ name, text string }{"code mode (3 tools)", codeText})
	for _, size := range []int{20, 100, 500} {
		var tools []hub.DirectTool
		for i := range size {
			tl := *base[i%len(base)]
			if round := i / len(base); round > 0 {
				tl.Source = fmt.Sprintf("%s%d", tl.Source, round+1)
				tl.Namespace = tl.Source
			}
			tools = append(tools, hub.DirectTool{Tool: &tl})
		}
		f := &costFake{tools: tools}
		f.profiles = map[string]*hub.ProfileInfo{"d": {Name: "d", Mode: config.ProfileDirect, Sources: []string{"fixtures"}}}
		s := NewServers(f, Options{Version: "test"})
		srv, err := s.Server("d")
		if err != nil {
			t.Fatal(err)
		}
		text, n := surfaceCost(t, srv)
		s.Close()
		if n != size+1 {
			t.Fatalf("direct mode of %d tools lists %d; want them and hub__read", size, n)
		}
		rows = append(rows, struct{ name, text string }{fmt.Sprintf("direct mode, %d tools", size), text})
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.text
	}
	claude := claudeCounts(t, texts)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-24s %10s %12s %14s\n", "surface", "bytes", "o200k_base", "Claude")
	prev := 0
	for i, r := range rows {
		o := tsgen.Tokens(r.text)
		c := "n/a"
		if claude != nil {
			c = fmt.Sprint(claude[i])
		}
		fmt.Fprintf(&b, "%-24s %10d %12d %14s\n", r.name, len(r.text), o, c)
		if o <= prev {
			t.Errorf("%s costs %d tokens, not more than the row before (%d)", r.name, o, prev)
		}
		prev = o
	}
	t.Log(b.String())
}

// claudeCounts counts texts with Claude's tokenizer, the npm
// @anthropic-ai/tokenizer run by node; nil when either is not installed.
func claudeCounts(t *testing.T, texts []string) []int {
	t.Helper()
	root := hubtest.RepoRoot(t)
	modules := filepath.Join(root, "testdata", "npm", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@anthropic-ai", "tokenizer")); err != nil {
		t.Logf("@anthropic-ai/tokenizer not installed (%v): no Claude counts", err)
		return nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Log("node not installed: no Claude counts")
		return nil
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", filepath.Join(root, "hub", "tsgen", "testdata", "claude_tokens.cjs"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counting with Claude's tokenizer: %v", err)
	}
	var counts []int
	if err := json.Unmarshal(out, &counts); err != nil || len(counts) != len(texts) {
		t.Fatalf("Claude's tokenizer answered %q", out)
	}
	return counts
}
