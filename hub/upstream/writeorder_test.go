package upstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// TestConcurrentWritesKey: "concurrentWrites" is read, kept on save and
// lets a source's writes go unordered; a value that is not a boolean is an
// error naming the key.
func TestConcurrentWritesKey(t *testing.T) {
	cfg, err := config.Parse("config.json", []byte(`{"sources": {"notes": {"command": "notes-server", "concurrentWrites": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	src := cfg.Sources["notes"]
	var write *mcp.ToolAnnotations // a tool that says nothing of itself
	if !src.ConcurrentWrites || SerialWrites(write, src) {
		t.Errorf("concurrentWrites %v, serial %v; want the source's writes unordered", src.ConcurrentWrites, SerialWrites(write, src))
	}
	if !SerialWrites(write, &config.Source{Command: "notes-server"}) {
		t.Error("a write to a source without concurrentWrites is not ordered")
	}
	if SerialWrites(&mcp.ToolAnnotations{ReadOnlyHint: true}, &config.Source{}) {
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
	memory, files := ConnKey{"memory", ""}, ConnKey{"files", ""}
	w := NewWriteOrder()
	turn := func(seq int, key ConnKey) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.turnLocked(seq, key)
	}
	if turn(3, memory) {
		t.Fatal("call 3 went before calls 1 and 2 were known")
	}
	w.Settle(1) // a read, sent already
	doneFiles, err := w.Begin(context.Background(), 2, files)
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
	w.Settle(3)
	doneFiles()
	if !turn(4, memory) || !turn(4, files) {
		t.Error("call 4 waits though every call before it is done")
	}
}
