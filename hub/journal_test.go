package hub

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// journalState reads a journal entry through its own handle on the
// database, as another process (or the hub after a kill -9) would: it sees
// committed transactions only.
func journalState(t *testing.T, db *store.DB, runID string, seq int) string {
	t.Helper()
	var state string
	err := db.QueryRow(`SELECT state FROM journal WHERE run_id = ? AND seq = ?`, runID, seq).Scan(&state)
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
	db, err := store.Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := store.Open(ctx, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	rs := runStore{db: db}
	now := time.Now()
	if err := rs.createRun(ctx, &runRow{ID: "r_1", Code: "x", Status: StatusRunning, Created: now, Updated: now}); err != nil {
		t.Fatal(err)
	}
	w, err := newJournalWriter(ctx, db)
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
			for _, state := range []string{journalIssued, journalOK} {
				if err := w.put("r_1", &journalEntry{Seq: seq, Address: "up.sleep", ArgsHash: "h", State: state}, now); err != nil {
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
		{runID: "r_1", entry: &journalEntry{Seq: 100, Address: "up.sleep", ArgsHash: "h", State: journalIssued}, at: now, err: make(chan error, 1)},
		{runID: "r_gone", entry: &journalEntry{Seq: 1, Address: "up.sleep", ArgsHash: "h", State: journalIssued}, at: now, err: make(chan error, 1)},
		{runID: "r_1", entry: &journalEntry{Seq: 101, Address: "up.sleep", ArgsHash: "h", State: journalIssued}, at: now, err: make(chan error, 1)},
	}
	w.commit(group)
	for i, want := range []bool{true, false, true} {
		if err := <-group[i].err; (err == nil) != want {
			t.Errorf("entry %d of the group: err = %v", i, err)
		}
	}
	for _, seq := range []int{100, 101} {
		if got := journalState(t, other, "r_1", seq); got != journalIssued {
			t.Errorf("call %d: state %q after its group had a bad entry", seq, got)
		}
	}

	w.close()
	w.close()
	if err := w.put("r_1", &journalEntry{Seq: 200, Address: "up.sleep", ArgsHash: "h", State: journalIssued}, now); !errors.Is(err, errJournalClosed) {
		t.Errorf("put after close: %v", err)
	}
}

// TestConcurrentCallsJournaledAroundUpstream runs calls in parallel (up to
// MaxConcurrent in flight, so their journal entries share groups) to an
// upstream that reads the journal through its own handle on the database.
// A call that must not be repeated (mark, allowed by policy) must find
// itself committed as issued when it arrives; a read-only one (check) is
// journaled only with its outcome, so it finds no entry of its own. A call
// the guest makes after another returned must find that one's outcome
// committed.
func TestConcurrentCallsJournaledAroundUpstream(t *testing.T) {
	ctx := context.Background()
	var (
		db    *store.DB // opened once the hub created it
		runID string
		runMu sync.Mutex
	)
	// The run's id is not known to the upstream: the entry is found by its
	// address and arguments.
	state := func(address string, i int) string {
		var st, id string
		err := db.QueryRow(`SELECT state, run_id FROM journal WHERE address = ? AND args_hash = ?`, address, argsHash([]byte(fmt.Sprintf(`{"i":%d}`, i)))).Scan(&st, &id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Error(err)
		}
		if id != "" {
			runMu.Lock()
			runID = id
			runMu.Unlock()
		}
		return st
	}

	up := mcp.NewServer(&mcp.Implementation{Name: "journal-upstream", Version: "1"}, nil)
	type in struct {
		I int `json:"i"`
	}
	mcp.AddTool(up, &mcp.Tool{Name: "mark"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if st := state("up.mark", a.I); st != journalIssued {
			t.Errorf("mark %d reached the upstream with its journal entry %q, want issued", a.I, st)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "marked"}}}, nil, nil
	})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(up, &mcp.Tool{Name: "check", Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		if st := state("up.mark", a.I); st != journalOK {
			t.Errorf("the guest had the result of mark %d while its journal entry was %q, want ok", a.I, st)
		}
		if st := state("up.check", a.I); st != "" {
			t.Errorf("read-only check %d reached the upstream with a journal entry %q, want none", a.I, st)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "checked"}}}, nil, nil
	})
	h := hubOver(t, "up", up)
	if err := h.SetPolicy(ctx, "up.mark", Allow); err != nil {
		t.Fatal(err)
	}
	var err error
	if db, err = store.Open(ctx, h.Paths().DB(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	const n = 40
	env, err := h.Execute(ctx, ExecuteRequest{Code: fmt.Sprintf(`
		await Promise.all(Array.from({ length: %d }, async (_, i) => { await up.mark({ i }); await up.check({ i }); }));
		return "done";`, n)})
	if err != nil || env.Status != StatusCompleted {
		t.Fatalf("%v %s", err, env.Line())
	}
	if len(env.Calls) != 2*n {
		t.Fatalf("%d calls, want %d", len(env.Calls), 2*n)
	}
	// Every call has its outcome journaled once the run is over.
	for i := range n {
		for _, address := range []string{"up.mark", "up.check"} {
			if st := state(address, i); st != journalOK {
				t.Errorf("%s %d ended with its journal entry %q, want ok", address, i, st)
			}
		}
	}
	runMu.Lock()
	defer runMu.Unlock()
	if runID != env.RunID {
		t.Fatalf("the journal holds the calls under run %q, want %q", runID, env.RunID)
	}
}

// TestUnjournaledOutcomeIsWithheld: when a call's outcome cannot be
// committed, the guest does not get it (a resume could not give it back),
// but a host error that says why.
func TestUnjournaledOutcomeIsWithheld(t *testing.T) {
	var h *Hub
	up := mcp.NewServer(&mcp.Implementation{Name: "journal-upstream", Version: "1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(up, &mcp.Tool{Name: "read", Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		h.runs.journalW.close() // the store fails while the call is upstream
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the secret of the universe"}}}, nil, nil
	})
	h = hubOver(t, "up", up)
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: `try { return await up.read(); } catch (e) { return [e.code, e.message]; }`})
	if err != nil || env.Status != StatusCompleted {
		t.Fatalf("%v %s", err, env.Line())
	}
	var got []string
	if err := json.Unmarshal(env.Result, &got); err != nil || len(got) != 2 {
		t.Fatalf("the guest got %s, want a caught error", env.Result)
	}
	if got[0] != sandbox.CodeHostError || !strings.Contains(got[1], "could not be journaled") || strings.Contains(got[1], "universe") {
		t.Fatalf("the guest got %q, want a host error saying the outcome was not journaled", got)
	}
	if len(env.Calls) != 1 || env.Calls[0].OK {
		t.Fatalf("calls %+v, want one failed call", env.Calls)
	}
}
