package hub

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// TestParallelWritesToOneUpstreamAllStored: four writes sent at once with
// Promise.all to the real memory server, which reads its file, changes it
// and writes it back on every call, are all stored: the hub sends them one
// at a time. Read back through the server, the graph holds all four.
func TestParallelWritesToOneUpstreamAllStored(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	if _, err := h.ApplyPolicy(context.Background(), PolicyChange{Target: "memory", Mode: "allow"}); err != nil {
		t.Fatal(err)
	}
	env := h.exec(t, `
		const names = ["Ada", "Grace", "Edsger", "Barbara"];
		const made = await Promise.all(names.map((name) =>
			memory.createEntities({ entities: [{ name, entityType: "person", observations: ["wrote code"] }] })));
		const graph = await memory.readGraph({});
		return { made: made.length, stored: graph.entities.map((e) => e.name) };`)
	if env.Status != StatusCompleted {
		t.Fatalf("envelope %s", env.Line())
	}
	var got struct {
		Made   int      `json:"made"`
		Stored []string `json:"stored"`
	}
	if err := json.Unmarshal(env.Result, &got); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Stored)
	if want := []string{"Ada", "Barbara", "Edsger", "Grace"}; got.Made != 4 || !slices.Equal(got.Stored, want) {
		t.Errorf("made %d, stored %v; want 4 made and %v stored", got.Made, got.Stored, want)
	}
	if n := h.entities(t); n != 4 {
		t.Errorf("the memory file holds %d entities, want 4", n)
	}
}

// TestConcurrentWritesKey: "concurrentWrites" is read, kept on save and
// lets a source's writes go unordered; a value that is not a boolean is an
// error naming the key.
func TestConcurrentWritesKey(t *testing.T) {
	cfg, err := config.Parse("config.json", []byte(`{"sources": {"notes": {"command": "notes-server", "concurrentWrites": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	src := cfg.Sources["notes"]
	write := &catalog.Tool{Source: "notes", Name: "add"}
	if !src.ConcurrentWrites || serialWrites(write, src) {
		t.Errorf("concurrentWrites %v, serial %v; want the source's writes unordered", src.ConcurrentWrites, serialWrites(write, src))
	}
	if !serialWrites(write, &config.Source{Command: "notes-server"}) {
		t.Error("a write to a source without concurrentWrites is not ordered")
	}
	if serialWrites(&catalog.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, &config.Source{}) {
		t.Error("a read-only tool is ordered")
	}
	out, err := json.Marshal(src)
	if err != nil || !strings.Contains(string(out), `"concurrentWrites":true`) {
		t.Errorf("saved as %s (%v)", out, err)
	}
	_, err = config.Parse("config.json", []byte(`{"sources": {"notes": {"command": "notes-server", "concurrentWrites": "yes"}}}`))
	if err == nil || !strings.Contains(err.Error(), "sources.notes.concurrentWrites") || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("a string value: %v; want an error naming sources.notes.concurrentWrites", err)
	}
}

// TestWriteOrderAdmitsInSeqOrder: a write goes once every call before it
// is known and no earlier write to the same upstream is under way; writes
// to another upstream and settled calls do not hold it.
func TestWriteOrderAdmitsInSeqOrder(t *testing.T) {
	memory, files := connKey{"memory", ""}, connKey{"files", ""}
	w := newWriteOrder()
	turn := func(seq int, key connKey) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.turnLocked(seq, key)
	}
	if turn(3, memory) {
		t.Fatal("call 3 went before calls 1 and 2 were known")
	}
	w.settle(1) // a read, sent already
	doneFiles, err := w.begin(context.Background(), 2, files)
	if err != nil {
		t.Fatal(err)
	}
	if !turn(3, memory) {
		t.Fatal("call 3 to memory waits for a write to another upstream or a read")
	}
	w.mu.Lock()
	w.known[3], w.writing[3] = true, memory
	w.mu.Unlock()
	if turn(4, memory) {
		t.Error("call 4 to memory went while call 3 to memory is under way")
	}
	if turn(4, files) {
		t.Error("call 4 to files went while call 2 to files is under way")
	}
	w.settle(3)
	doneFiles()
	if !turn(4, memory) || !turn(4, files) {
		t.Error("call 4 waits though every call before it is done")
	}
}
