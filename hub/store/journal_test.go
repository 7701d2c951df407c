package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// journalState reads a journal entry through its own handle on the
// database, as another process (or the hub after a kill -9) would: it sees
// committed transactions only.
func journalState(t *testing.T, db *DB, runID string, seq int) string {
	t.Helper()
	var state string
	err := db.sql.QueryRow(`SELECT state FROM journal WHERE run_id = ? AND seq = ?`, runID, seq).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Error(err)
	}
	return state
}

func TestJournalWriterCommitsBeforePutReturns(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "capabilities.db")
	db, err := Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	now := time.Now()
	if err := db.CreateRun(ctx, &Run{ID: "r_1", Code: "x", Status: "running", Created: now, Updated: now}, Lease{}); err != nil {
		t.Fatal(err)
	}
	w, err := db.NewJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Concurrent calls, as a run's calls in flight: each entry is visible
	// to another connection as soon as its put returns.
	var wg sync.WaitGroup
	for seq := 1; seq <= 64; seq++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, state := range []string{"issued", "ok"} {
				if err := w.Put("r_1", &JournalEntry{Seq: seq, Address: "up.sleep", ArgsHash: "h", State: state}, now); err != nil {
					t.Errorf("put %d %s: %v", seq, state, err)
					return
				}
				if got := journalState(t, other, "r_1", seq); got != state {
					t.Errorf("call %d after put(%s): the committed state is %q", seq, state, got)
				}
			}
		}()
	}
	wg.Wait()

	// A group with an entry that cannot be written (its run does not
	// exist) fails that entry alone.
	group := []*journalWrite{
		{runID: "r_1", entry: &JournalEntry{Seq: 100, Address: "up.sleep", ArgsHash: "h", State: "issued"}, at: now, err: make(chan error, 1)},
		{runID: "r_gone", entry: &JournalEntry{Seq: 1, Address: "up.sleep", ArgsHash: "h", State: "issued"}, at: now, err: make(chan error, 1)},
		{runID: "r_1", entry: &JournalEntry{Seq: 101, Address: "up.sleep", ArgsHash: "h", State: "issued"}, at: now, err: make(chan error, 1)},
	}
	w.commit(group)
	for i, want := range []bool{true, false, true} {
		if err := <-group[i].err; (err == nil) != want {
			t.Errorf("entry %d of the group: err = %v", i, err)
		}
	}
	for _, seq := range []int{100, 101} {
		if got := journalState(t, other, "r_1", seq); got != "issued" {
			t.Errorf("call %d: state %q after its group had a bad entry", seq, got)
		}
	}

	w.Close()
	w.Close()
	if err := w.Put("r_1", &JournalEntry{Seq: 200, Address: "up.sleep", ArgsHash: "h", State: "issued"}, now); !errors.Is(err, ErrJournalClosed) {
		t.Errorf("put after close: %v", err)
	}
}
