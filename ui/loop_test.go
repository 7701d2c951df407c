//go:build !headless

package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestWholeLoopWithTheRealHub drives the loop a person sees: a run asks,
// the dialog appears, a tap on Allow once lets the run resume to
// completion; a tap on Deny makes the call fail with a ToolError "denied".
// The hub is real, over the real memory server from npm.
func TestWholeLoopWithTheRealHub(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "mcp-server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("memory server not installed (make test runs npm ci): %v", err)
		}
		t.Skip("memory server not installed")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	home := t.TempDir()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := &config.Config{Sources: map[string]*config.Source{
		"memory": {Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": memFile}},
	}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}

	a := test.NewTempApp(t)
	c := newController(a, FromHub(ctx, h), Options{Logf: t.Logf}, false)
	cancel := FromHub(ctx, h).Subscribe(c.post)
	defer cancel()
	c.step()

	code := `try {
		await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		return (await memory.readGraph({})).entities.length;
	} catch (e) { return e.name + ": " + e.code; }`

	for _, tc := range []struct {
		name string
		tap  func(d *approvalDialog)
		want string
	}{
		{"allow once", func(d *approvalDialog) { test.Tap(d.allowOnce) }, "1"},
		{"deny", func(d *approvalDialog) { test.Tap(d.deny) }, `"ToolError: denied"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, err := h.Execute(ctx, hub.ExecuteRequest{Code: code, Client: "ui-test"})
			if err != nil || env.Status != hub.StatusAwaitingApproval {
				t.Fatalf("%v %s", err, env.Line())
			}
			// The hub's event reaches the controller; its step shows the dialog.
			waitFor(t, func() bool { c.step(); return c.dialog.shown })
			d := c.dialog
			if d.address.Text != "memory.createEntities" || !strings.Contains(d.argsText(), `"Ada"`) {
				t.Fatalf("dialog shows %q / %q", d.address.Text, d.argsText())
			}
			// The run's code, with the waiting call marked.
			if !strings.Contains(d.codeText(), "▶   2  \t\tawait memory.createEntities(") && !strings.Contains(d.codeText(), "▶   2          await memory.createEntities(") {
				t.Errorf("code view:\n%s", d.codeText())
			}
			tc.tap(d)
			waitFor(t, func() bool { c.step(); return !d.shown })
			done, err := h.Execute(ctx, hub.ExecuteRequest{Resume: env.RunID})
			if err != nil || done.Status != hub.StatusCompleted || string(done.Result) != tc.want {
				t.Fatalf("after %s: %v %s", tc.name, err, done.Line())
			}
		})
	}
}

// waitFor polls cond (which steps the controller) until it holds, within a
// bound; hub events arrive on hub goroutines.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testwait.For(t, 10*time.Second, "the controller to reach the state the test wants", cond)
}
