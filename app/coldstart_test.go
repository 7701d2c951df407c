package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/testwait"
)

// coldAnswers is what a client gets for its first requests.
type coldAnswers struct {
	search, searchBroken, describe, execute string
}

const coldCode = `const out = {
	graph: (await memory.readGraph({})).entities.length,
	echo: await everything.echo({ message: "hi" }),
	dirs: await files.listAllowedDirectories({}),
};
try { await broken.query({}); out.broken = "called"; } catch (e) { out.broken = [e.code, e.retryable, e.message]; }
return out;`

// coldRound sends search, describe and execute at once, as a client that
// calls right after connecting does, and returns the answers with what
// differs between runs (run ids, call times) taken out.
func coldRound(t *testing.T, cs *mcp.ClientSession) coldAnswers {
	t.Helper()
	var a coldAnswers
	var wg sync.WaitGroup
	do := func(dst *string, name string, args map[string]any) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			*dst = text(call(t, cs, name, args))
		}()
	}
	do(&a.search, "search", map[string]any{"query": "create entities in a knowledge graph"})
	do(&a.searchBroken, "search", map[string]any{"query": "", "namespace": "broken"})
	do(&a.describe, "describe", map[string]any{"targets": []string{"memory.createEntities", "everything.echo", "files.readTextFile"}})
	do(&a.execute, "execute", map[string]any{"code": coldCode})
	wg.Wait()
	var env hub.Envelope
	if err := json.Unmarshal([]byte(a.execute), &env); err != nil {
		t.Fatalf("execute did not answer an envelope: %s", a.execute)
	}
	env.RunID = "r"
	for i := range env.Calls {
		env.Calls[i].Ms = 0
	}
	a.execute = env.Line()
	return a
}

// TestColdStartThroughTheShim: a fresh home with four npm-started sources
// (memory, filesystem, everything, and one that fails at start) and a
// client that calls the moment it connects through `capabilities mcp`,
// which starts the hub: its first search, describe and execute give the
// answers they give once the catalog has settled.
func TestColdStartThroughTheShim(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) { testColdStartThroughTheShim(t, version) })
	}
}

func testColdStartThroughTheShim(t *testing.T, version string) {
	w := &world{t: t, bin: binary(t), home: t.TempDir(), userHome: t.TempDir()}
	t.Cleanup(w.stopHub)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Sources: map[string]*config.Source{
		"everything": {Command: npmBin(t, "mcp-server-everything"), Args: []string{"stdio"}},
		"memory":     {Command: npmBin(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}},
		"files":      {Command: npmBin(t, "mcp-server-filesystem"), Args: []string{dir}},
		"broken":     {Command: "node", Args: []string{"-e", `console.error("boom: cannot open the database"); process.exit(3)`}},
	}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}

	cs, _ := w.shim(version, nil)
	connected := time.Now()
	first := coldRound(t, cs)
	t.Logf("the first round answered %v after connecting", time.Since(connected).Round(time.Millisecond))
	// The second round once the catalog has settled: every source listed
	// or down, as `hub status` says.
	testwait.For(t, time.Minute, "the catalog to settle", func() bool {
		out, _, code := w.cli("", "hub", "status", "--json")
		var st hub.Status
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			return false
		}
		settled := 0
		for _, s := range st.Sources {
			if (s.Name == "broken" && s.State == upstream.SourceDown) || (s.Name != "broken" && s.Tools > 0) {
				settled++
			}
		}
		return settled == 4
	})
	second := coldRound(t, cs)
	if first != second {
		t.Errorf("the first answers differ from the settled ones:\nfirst:  %+v\nsecond: %+v", first, second)
	}

	for _, want := range []string{"memory.createEntities(", "broken is down, so its tools are not listed", "boom: cannot open the database"} {
		if !strings.Contains(first.search, want) {
			t.Errorf("the first search lacks %q:\n%s", want, first.search)
		}
	}
	if !strings.Contains(first.searchBroken, "broken is down") || !strings.Contains(first.searchBroken, "boom: cannot open the database") {
		t.Errorf("search in the down namespace:\n%s", first.searchBroken)
	}
	for _, want := range []string{"declare const memory", "createEntities(input:", "declare const everything", "echo(input:", "declare const files", "readTextFile(input:"} {
		if !strings.Contains(first.describe, want) {
			t.Errorf("the first describe lacks %q:\n%s", want, first.describe)
		}
	}
	var env hub.Envelope
	json.Unmarshal([]byte(first.execute), &env)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(env.Result, &out); env.Status != hub.StatusCompleted || err != nil {
		t.Fatalf("the first execute: %s", first.execute)
	}
	if string(out["graph"]) != "0" || !strings.Contains(string(out["echo"]), "hi") || !strings.Contains(string(out["dirs"]), filepath.Base(dir)) {
		t.Errorf("the first execute's calls: %s", env.Result)
	}
	if re := regexp.MustCompile(`^\["source_unavailable",true,"source broken is down: .*boom: cannot open the database.*"\]$`); !re.Match(out["broken"]) {
		t.Errorf("the call to the down source: %s", out["broken"])
	}
}
