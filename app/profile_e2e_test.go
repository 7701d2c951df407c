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
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/internal/testwait"
)

// profileWorld is a world whose config has the profile "mem": the memory
// source only, read-only.
func profileWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, 0)
	if out, errOut, code := w.cli("", "profile", "add", "mem", "--source", "memory", "--read-only"); code != 0 {
		t.Fatalf("profile add: %d %s %s", code, out, errOut)
	}
	return w
}

const (
	profileSearch = "echo a message"
	profileCode   = `const r = []; r.push(typeof everything, typeof slow, typeof memory);
try { await memory.createEntities({ entities: [{ name: "Eve", entityType: "person", observations: [] }] }); r.push("created") } catch (e) { r.push(e.code) }
r.push((await memory.readGraph({})).entities.length); return r;`
	profileResult       = `["undefined","undefined","object","denied",0]`
	profileInstructions = "Profile mem: only its sources exist here: memory. It is read-only"
)

// checkProfileSearch fails when search in profile mem shows anything of
// the sources outside it.
func checkProfileSearch(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "everything.") || strings.Contains(out, "slow.") || strings.Contains(out, "hidden") {
		t.Errorf("search in profile mem shows or counts other sources:\n%s", out)
	}
}

func TestProfileOverStdio(t *testing.T) {
	w := profileWorld(t)
	w.startHub()
	if all, _, _ := w.cli("", "search", profileSearch); !strings.Contains(all, "everything.echo") {
		t.Fatalf("the whole hub's search lacks everything.echo:\n%s", all)
	}

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+version, func(t *testing.T) {
			cs, _ := w.shimArgs(version, nil, "mcp", "--profile", "mem")
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 3 {
				t.Fatalf("tools/list: %v %v", err, tools)
			}
			if got := cs.InitializeResult().Instructions; !strings.Contains(got, profileInstructions) {
				t.Errorf("instructions do not name the profile:\n%s", got)
			}
			checkProfileSearch(t, text(call(t, cs, "search", map[string]any{"query": profileSearch})))
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "describe", Arguments: map[string]any{"targets": []string{"everything.echo"}}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "unknown target") {
				t.Errorf("describe of another source: %v %s", err, text(res))
			}
			env := envelopeOf(t, call(t, cs, "execute", map[string]any{"code": profileCode}))
			if env.Status != hub.StatusCompleted || string(env.Result) != profileResult {
				t.Errorf("execute in mem: %+v", env)
			}
		})
	}
	if n := w.entities(); n != 0 {
		t.Errorf("the memory server holds %d entities; the read-only profile let a write through", n)
	}

	t.Run("TypeScript SDK", func(t *testing.T) {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("no node")
		}
		sdk, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk"))
		if _, err := os.Stat(sdk); err != nil {
			t.Fatalf("TypeScript SDK not installed: %v", err)
		}
		cmd := exec.Command("node", "testdata/tsprofile.mjs", sdk, w.bin, "mem", profileSearch, profileCode)
		cmd.Env = w.env()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("TypeScript client: %v\n%s", err, stderr.String())
		}
		var got struct {
			Tools        []string
			Instructions string
			Search       string
			Execute      hub.Envelope
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		sort.Strings(got.Tools)
		if strings.Join(got.Tools, ",") != "describe,execute,search" {
			t.Errorf("tools %v", got.Tools)
		}
		if !strings.Contains(got.Instructions, profileInstructions) {
			t.Errorf("instructions: %s", got.Instructions)
		}
		checkProfileSearch(t, got.Search)
		if got.Execute.Status != hub.StatusCompleted || string(got.Execute.Result) != profileResult {
			t.Errorf("execute: %+v", got.Execute)
		}
	})

	t.Run("unknown profile", func(t *testing.T) {
		out, errOut, code := w.cli("", "mcp", "--profile", "nope")
		if code == 0 || out != "" || !strings.Contains(errOut, `no profile named "nope"; profiles: mem`) {
			t.Errorf("mcp --profile nope: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("embedded, unknown profile", func(t *testing.T) {
		w.stopHub()
		out, errOut, code := w.cli("", "mcp", "--embedded", "--profile", "nope")
		if code == 0 || out != "" || !strings.Contains(errOut, `no profile named "nope"; profiles: mem`) {
			t.Errorf("mcp --embedded --profile nope: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

// bearerTransport adds the endpoint's bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestProfileOverHTTP(t *testing.T) {
	requireKeychain(t)
	w := profileWorld(t)
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

	if got := mcpStatus(t, base+"/p/nope", token); got != http.StatusNotFound {
		t.Errorf("an unknown profile over HTTP: status %d, want 404", got)
	}
	if got := mcpStatus(t, base+"/p/mem", token); got != http.StatusOK {
		t.Errorf("profile mem over HTTP: status %d, want 200", got)
	}

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http", Version: version}, nil)
			tr := &mcp.StreamableClientTransport{Endpoint: base + "/p/mem", HTTPClient: &http.Client{Transport: bearerTransport{token}}}
			cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 3 {
				t.Fatalf("tools/list: %v %v", err, tools)
			}
			if ir := cs.InitializeResult(); ir != nil && !strings.Contains(ir.Instructions, profileInstructions) {
				t.Errorf("instructions do not name the profile:\n%s", ir.Instructions)
			}
			checkProfileSearch(t, text(call(t, cs, "search", map[string]any{"query": profileSearch})))
			env := envelopeOf(t, call(t, cs, "execute", map[string]any{"code": profileCode}))
			if env.Status != hub.StatusCompleted || string(env.Result) != profileResult {
				t.Errorf("execute in mem over HTTP: %+v", env)
			}
		})
	}
	if n := w.entities(); n != 0 {
		t.Errorf("the memory server holds %d entities; the read-only profile let a write through", n)
	}
}
