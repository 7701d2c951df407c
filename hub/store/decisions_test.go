package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Decisions reads the audit trail newest first, as the tray and the CLI
// show it: without the pending input's id or the detail, and at most
// limit rows.
func TestDecisions(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	if got, err := db.Decisions(ctx, 0); err != nil || got != nil {
		t.Fatalf("an empty trail: %+v, %v", got, err)
	}
	at := time.UnixMilli(1_700_000_000_000)
	for i, d := range []string{"allow_once", "deny", "policy_allow"} {
		e := AuditEntry{At: at.Add(time.Duration(i) * time.Second), Channel: "cli", Actor: "ana", PendingID: "p_1", RunID: "run_1", Address: "memory.open", Decision: d, Detail: "memory.open"}
		if err := db.Audit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Decisions(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []DecisionRecord{
		{At: at.Add(2 * time.Second), Channel: "cli", Actor: "ana", RunID: "run_1", Address: "memory.open", Decision: "policy_allow"},
		{At: at.Add(time.Second), Channel: "cli", Actor: "ana", RunID: "run_1", Address: "memory.open", Decision: "deny"},
	}
	if len(got) != len(want) {
		t.Fatalf("Decisions(2) = %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].At.Equal(want[i].At) || got[i].Channel != want[i].Channel || got[i].Actor != want[i].Actor || got[i].RunID != want[i].RunID || got[i].Address != want[i].Address || got[i].Decision != want[i].Decision {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if all, err := db.Decisions(ctx, 0); err != nil || len(all) != 3 {
		t.Fatalf("Decisions(0) = %d rows, %v; want all 3", len(all), err)
	}
}
