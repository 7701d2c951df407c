package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

// tapMemory replaces the world's memory source with the same real server
// behind a tee that appends every message the hub sends it to a file, and
// returns a counter of the lines in that file holding all of parts.
func tapMemory(t *testing.T, w *world) func(parts ...string) int {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh and tee")
	}
	tap := filepath.Join(t.TempDir(), "memory-tap.jsonl")
	cfg, err := config.Load(filepath.Join(w.home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sources["memory"] = &config.Source{Command: "sh", Args: []string{"-c", `tee -a "$TAP" | exec "$MEMORY_SERVER"`},
		Env: map[string]string{"TAP": tap, "MEMORY_SERVER": npmBin(t, "mcp-server-memory"), "MEMORY_FILE_PATH": w.memFile}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	return func(parts ...string) int {
		data, _ := os.ReadFile(tap)
		n := 0
	lines:
		for _, l := range strings.Split(string(data), "\n") {
			for _, p := range parts {
				if !strings.Contains(l, p) {
					continue lines
				}
			}
			n++
		}
		return n
	}
}

// embedded connects a go-sdk client to `capabilities mcp --embedded`.
func (w *world) embedded(version string) *mcp.ClientSession {
	w.t.Helper()
	cmd := exec.Command(w.bin, "mcp", "--embedded")
	cmd.Env = w.env()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-embedded", Version: version}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		w.t.Fatalf("connecting to mcp --embedded: %v\n%s", err, stderr)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// TestEmbeddedBesideTheTrayHubSendsOnce: with the tray hub running, a client
// of `capabilities mcp --embedded` is served by that hub rather than a
// second one, and the same approved run resumed from both clients at once
// sends its non-idempotent call (server-memory's create_entities) once.
func TestEmbeddedBesideTheTrayHubSendsOnce(t *testing.T) {
	w := newWorld(t, 0)
	tapped := tapMemory(t, w)
	w.startHub()
	tray, _ := w.shim("2025-11-25", nil)
	emb := w.embedded("2025-11-25")

	env := envelopeOf(t, call(t, emb, "execute", map[string]any{"code": createAda}))
	if env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("want the call to ask: %+v", env)
	}
	// The tray hub holds the run the embedded client started.
	if out, e, code := w.cli("", "hub", "approve", env.RunID, "--yes"); code != 0 {
		t.Fatalf("approve: %s %s", out, e)
	}
	var wg sync.WaitGroup
	results := make([]hub.Envelope, 2)
	for i, cs := range []*mcp.ClientSession{tray, emb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
			if err != nil {
				t.Errorf("resume: %v", err)
				return
			}
			results[i] = envelopeOf(t, res)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Status != hub.StatusCompleted || string(r.Result) != "1" {
			t.Errorf("resume %d: %+v", i, r)
		}
	}
	if n := tapped(`"method":"tools/call"`, `"name":"create_entities"`); n != 1 {
		t.Errorf("create_entities was sent %d times, want 1", n)
	}
	if n := tapped(`"method":"initialize"`); n != 1 {
		t.Errorf("the memory server was started %d times; want 1 (one hub for the home)", n)
	}
	if n := w.entities(); n != 1 {
		t.Errorf("%d entities in the memory file, want 1", n)
	}
}
