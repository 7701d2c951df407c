package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestDownSourceInOneVoice: a source that fails at start is described in
// the same words by `hub status`, `doctor` and what a client's model is
// told by execute and search, through the shim at both protocol versions.
func TestDownSourceInOneVoice(t *testing.T) {
	w := &world{t: t, bin: binary(t), home: t.TempDir(), userHome: t.TempDir()}
	t.Cleanup(w.stopHub)
	cfg := &config.Config{Sources: map[string]*config.Source{
		"memory": {Command: npmBin(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}},
		"broken": {Command: "node", Args: []string{"-e", `console.error("boom: cannot open the database"); process.exit(3)`}},
	}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	cs, _ := w.shim("2026-07-28", nil)
	var summary string
	testwait.For(t, time.Minute, "hub status to say broken is down", func() bool {
		out, _, code := w.cli("", "hub", "status", "--json")
		var st hub.Status
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			return false
		}
		for _, s := range st.Sources {
			if s.Name == "broken" && s.State == upstream.SourceDown {
				summary = s.Summary
			}
		}
		return summary != ""
	})
	if !strings.Contains(summary, "boom: cannot open the database") {
		t.Fatalf("hub status says broken is %q; want its own last error line", summary)
	}
	out, _, _ := w.cli("", "doctor")
	if !strings.Contains(out, "source broken") || !strings.Contains(out, summary) {
		t.Errorf("doctor does not say %q of broken:\n%s", summary, out)
	}
	second, _ := w.shim("2025-11-25", nil)
	for version, s := range map[string]*mcp.ClientSession{"2026-07-28": cs, "2025-11-25": second} {
		msg := text(call(t, s, "execute", map[string]any{"code": `try { await broken.query({}); return "called"; } catch (e) { return e.message; }`}))
		var env hub.Envelope
		if err := json.Unmarshal([]byte(msg), &env); err != nil || env.Status != hub.StatusCompleted {
			t.Fatalf("%s: %s", version, msg)
		}
		var said string
		json.Unmarshal(env.Result, &said)
		if said != "source broken is "+summary {
			t.Errorf("%s: the model is told %q; hub status says %q", version, said, summary)
		}
		if found := text(call(t, s, "search", map[string]any{"query": "", "namespace": "broken"})); !strings.Contains(found, "broken is down") || !strings.Contains(found, "boom: cannot open the database") {
			t.Errorf("%s: search in broken's namespace:\n%s", version, found)
		}
	}
}
