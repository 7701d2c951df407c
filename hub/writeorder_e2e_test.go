package hub

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
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
