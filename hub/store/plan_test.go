package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlanRoundTrip: a planned call's row keeps its entry across a reopen,
// lists in the plan's order beside a call's own input, is used once and
// only when decided, and a dropped plan leaves the call's own input.
func TestPlanRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	db := open(t, file, nil)
	ctx := context.Background()
	now := time.Now()
	addRun(t, db, "r_1", "awaiting_approval", now, 10)
	entry := &PlanEntry{Args: json.RawMessage(`{"name":{"$planned":{"call":2,"path":["0","name"]}}}`), Missing: true, Code: "c0de", Journal: 1}
	for _, p := range []*Pending{
		{ID: "p_3", RunID: "r_1", Seq: -3, Kind: "approval", Address: "memory.addObservations", ArgsHash: "h3", Created: now, Expires: now.Add(time.Hour), Plan: entry},
		{ID: "p_2", RunID: "r_1", Seq: -2, Kind: "approval", Address: "memory.createEntities", ArgsHash: "h2", Created: now, Expires: now.Add(time.Hour), Plan: &PlanEntry{Code: "c0de", Journal: 1}},
		{ID: "p_c", RunID: "r_1", Seq: 1, Kind: "connection", Address: "memory.readGraph", ArgsHash: "h1", Created: now, Expires: now.Add(time.Hour)},
	} {
		if err := db.PutPending(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetRunPlan(ctx, "r_1", &RunPlan{Stop: "what follows depends on the result of call 2, line 3", Denied: []PlanDenied{{Seq: 4, Address: "memory.deleteEntities", Preview: "{}", Reason: "policy"}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, file, nil)

	rows, err := db.PendingOf(ctx, "r_1")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range rows {
		order = append(order, p.ID)
	}
	if diff := cmp.Diff([]string{"p_c", "p_2", "p_3"}, order); diff != "" {
		t.Errorf("PendingOf order (-want +got):\n%s", diff)
	}
	if rows[0].Plan != nil || rows[2].Plan == nil {
		t.Fatalf("plans: %+v, %+v", rows[0].Plan, rows[2].Plan)
	}
	if diff := cmp.Diff(entry, rows[2].Plan); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	seqs, err := db.PendingSeqs(ctx, "r_1")
	if err != nil || len(seqs) != 1 || !seqs[1] {
		t.Errorf("PendingSeqs = %v, %v; want only the call's own input", seqs, err)
	}
	rp, err := db.LoadRunPlan(ctx, "r_1")
	if err != nil || rp == nil || rp.Stop == "" || len(rp.Denied) != 1 || rp.Denied[0].Address != "memory.deleteEntities" {
		t.Fatalf("LoadRunPlan = %+v, %v", rp, err)
	}

	if ok, err := db.UsePlanned(ctx, "p_2", 2); ok || err != nil {
		t.Fatalf("UsePlanned of an undecided entry = %v, %v; want false", ok, err)
	}
	if err := db.Decide(ctx, rows[1], "allow", false, "cli", "test", now); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.UsePlanned(ctx, "p_2", 2); !ok || err != nil {
		t.Fatalf("UsePlanned = %v, %v; want true", ok, err)
	}
	if ok, _ := db.UsePlanned(ctx, "p_2", 5); ok {
		t.Fatal("an entry was used twice")
	}
	if ok, _ := db.UsePlanned(ctx, "p_c", 1); ok {
		t.Fatal("a call's own input was used as a planned entry")
	}
	p, err := db.PendingByID(ctx, "p_2")
	if err != nil || p.Plan == nil || p.Plan.Used != 2 {
		t.Fatalf("used entry = %+v, %v", p, err)
	}

	if err := db.DropPlan(ctx, "r_1"); err != nil {
		t.Fatal(err)
	}
	rows, _ = db.PendingOf(ctx, "r_1")
	if len(rows) != 1 || rows[0].ID != "p_c" {
		t.Errorf("after DropPlan: %d rows; want the connection input alone", len(rows))
	}
	if rp, err := db.LoadRunPlan(ctx, "r_1"); rp != nil || err != nil {
		t.Errorf("LoadRunPlan after DropPlan = %+v, %v", rp, err)
	}
	if _, err := db.LoadRunPlan(ctx, "r_none"); err != ErrNoRun {
		t.Errorf("LoadRunPlan of no run = %v, want ErrNoRun", err)
	}
}
