package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/internal/testwait"
)

// directWorld is a world with the profile "dm": the memory source in
// direct mode, with memory.delete_entities denied by the person's policy.
func directWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, 0)
	if out, errOut, code := w.cli("", "profile", "add", "dm", "--source", "memory", "--mode", "direct"); code != 0 {
		t.Fatalf("profile add: %d %s %s", code, out, errOut)
	}
	if out, errOut, code := w.cli("", "policy", "set", "memory.delete_entities", "deny"); code != 0 {
		t.Fatalf("policy set: %d %s %s", code, out, errOut)
	}
	return w
}

const (
	directRead   = "memory__read_graph"
	directCreate = "memory__create_entities"
)

// directCreateArgs create one entity, named name: a name no other call
// of the test creates, as the memory server creates a name once.
func directCreateArgs(name string) map[string]any {
	return map[string]any{"entities": []any{map[string]any{"name": name, "entityType": "person", "observations": []any{}}}}
}

var (
	runIDRE       = regexp.MustCompile(`r_[A-Za-z0-9_-]+`)
	mcpToolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

// checkDirectTools fails unless tools are the memory server's (and
// hub__read), each its own tool with a name that fits, read_graph
// read-only, create_entities (which asks) destructive and not read-only,
// and delete_entities (denied) absent.
func checkDirectTools(t *testing.T, names []string, ann map[string]*mcp.ToolAnnotations) {
	t.Helper()
	if len(names) < 5 {
		t.Fatalf("tools %v; want each of the memory server's", names)
	}
	for _, n := range names {
		if !mcpToolNameRE.MatchString(n) || !strings.HasPrefix(n, "memory__") && n != "hub__read" {
			t.Errorf("tool name %q", n)
		}
		if n == "memory__delete_entities" {
			t.Error("the denied tool is listed")
		}
	}
	if a := ann[directRead]; a == nil || !a.ReadOnlyHint {
		t.Errorf("%s annotations %+v", directRead, a)
	}
	if a := ann[directCreate]; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("%s annotations %+v", directCreate, a)
	}
}

// checkDirectRead fails unless the read's text is the memory server's
// graph.
func checkDirectRead(t *testing.T, isErr bool, out string) {
	t.Helper()
	var graph struct {
		Entities []any `json:"entities"`
	}
	if isErr || json.Unmarshal([]byte(out), &graph) != nil || graph.Entities == nil {
		t.Errorf("%s: isError %v, %q", directRead, isErr, out)
	}
}

// approveAndRepeat checks a create that waits, approves its run from the
// terminal, makes the same call again with do and checks it ran once.
func approveAndRepeat(t *testing.T, w *world, waiting string, do func() (bool, string)) {
	t.Helper()
	before := w.entities()
	runID := runIDRE.FindString(waiting)
	if runID == "" || !strings.Contains(waiting, "capabilities hub approve "+runID) {
		t.Fatalf("%s before approval: %q", directCreate, waiting)
	}
	if out, errOut, code := w.cli("", "hub", "approve", runID, "--yes"); code != 0 {
		t.Fatalf("hub approve: %d %s %s", code, out, errOut)
	}
	isErr, out := do()
	if isErr || w.entities() != before+1 {
		t.Fatalf("%s after approval: isError %v, %q, %d entities (was %d)", directCreate, isErr, out, w.entities(), before)
	}
	// The same call once more is a new call: it waits anew.
	isErr, again := do()
	if isErr || strings.Contains(again, runID) || !strings.Contains(again, "hub approve") || w.entities() != before+1 {
		t.Fatalf("%s once more: %q, %d entities", directCreate, again, w.entities())
	}
	// Denied, it runs never.
	if out, errOut, code := w.cli("", "hub", "approve", runIDRE.FindString(again), "--deny"); code != 0 {
		t.Fatalf("hub approve --deny: %d %s %s", code, out, errOut)
	}
	if isErr, out := do(); !isErr || !strings.Contains(out, "denied") || w.entities() != before+1 {
		t.Fatalf("%s after a deny: isError %v, %q, %d entities", directCreate, isErr, out, w.entities())
	}
}

func goSDKDirect(t *testing.T, w *world, cs *mcp.ClientSession, entity string) {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ann := map[string]*mcp.ToolAnnotations{}
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		ann[tl.Name] = tl.Annotations
	}
	checkDirectTools(t, names, ann)
	res := call(t, cs, directRead, map[string]any{})
	checkDirectRead(t, res.IsError, text(res))
	do := func() (bool, string) {
		res := call(t, cs, directCreate, directCreateArgs(entity))
		return res.IsError, text(res)
	}
	_, waiting := do()
	approveAndRepeat(t, w, waiting, do)
}

// TestDirectProfileOverStdio: go-sdk clients at both versions and the
// TypeScript SDK client see the memory server's tools as their own, read
// the upstream's result, and a create waits for the person and then runs
// exactly once.
func TestDirectProfileOverStdio(t *testing.T) {
	w := directWorld(t)
	w.startHub()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+version, func(t *testing.T) {
			cs, _ := w.shimArgs(version, nil, "mcp", "--profile", "dm")
			goSDKDirect(t, w, cs, "stdio "+version)
		})
	}
	t.Run("TypeScript SDK", func(t *testing.T) {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("no node")
		}
		sdk, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk"))
		if _, err := os.Stat(sdk); err != nil {
			t.Fatalf("TypeScript SDK not installed: %v", err)
		}
		type result struct {
			IsError bool
			Text    string
		}
		type got struct {
			Tools []struct {
				Name        string
				Annotations *mcp.ToolAnnotations
			}
			Results []result
		}
		ts := func(calls ...map[string]any) got {
			t.Helper()
			b, _ := json.Marshal(calls)
			cmd := exec.Command("node", "testdata/tsdirect.mjs", sdk, w.bin, "dm", string(b))
			cmd.Env = w.env()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("TypeScript client: %v\n%s", err, stderr.String())
			}
			var g got
			if err := json.Unmarshal(out, &g); err != nil || len(g.Results) != len(calls) {
				t.Fatalf("%v: %s", err, out)
			}
			return g
		}
		create := map[string]any{"name": directCreate, "arguments": directCreateArgs("TypeScript")}
		g := ts(map[string]any{"name": directRead, "arguments": map[string]any{}}, create)
		var names []string
		ann := map[string]*mcp.ToolAnnotations{}
		for _, tl := range g.Tools {
			names = append(names, tl.Name)
			ann[tl.Name] = tl.Annotations
		}
		checkDirectTools(t, names, ann)
		checkDirectRead(t, g.Results[0].IsError, g.Results[0].Text)
		approveAndRepeat(t, w, g.Results[1].Text, func() (bool, string) {
			r := ts(create).Results[0]
			return r.IsError, r.Text
		})
	})
}

// TestDirectProfileOverHTTP: the same through /mcp/p/dm, with go-sdk
// clients at both versions.
func TestDirectProfileOverHTTP(t *testing.T) {
	requireKeychain(t)
	w := directWorld(t)
	homeKeychain(t, w.home)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	token, errOut, code := w.cli("", "hub", "token")
	if token = strings.TrimSpace(token); code != 0 || token == "" {
		t.Fatalf("hub token: %d %s", code, errOut)
	}
	cmd := exec.Command(w.bin, "hub", "--headless", "--http", ":"+port)
	cmd.Env = w.env()
	w.hubOut = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w.hubOut, w.hubOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.hubCmd = cmd
	base := "http://127.0.0.1:" + port + "/mcp"
	testwait.For(t, 60*time.Second, "the hub's HTTP endpoint", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http", Version: version}, nil)
			tr := &mcp.StreamableClientTransport{Endpoint: base + "/p/dm", HTTPClient: &http.Client{Transport: bearerTransport{token}}}
			cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			testwait.For(t, 60*time.Second, "the memory server's tools", func() bool {
				tools, err := cs.ListTools(context.Background(), nil)
				return err == nil && len(tools.Tools) >= 5
			})
			goSDKDirect(t, w, cs, "http "+version)
		})
	}
}
