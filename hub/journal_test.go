package hub

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/sandbox"
)

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
		db    *sql.DB // its own handle, opened once the hub created the file
		runID string
		runMu sync.Mutex
	)
	// The run's id is not known to the upstream: the entry is found by its
	// address and arguments.
	state := func(address string, i int) string {
		var st, id string
		err := db.QueryRow(`SELECT state, run_id FROM journal WHERE address = ? AND args_hash = ?`, address, exactjson.Hash([]byte(fmt.Sprintf(`{"i":%d}`, i)))).Scan(&st, &id)
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
	if err := h.SetPolicy(ctx, "up.mark", config.Allow); err != nil {
		t.Fatal(err)
	}
	db = rawSQL(t, h.db)

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
		h.journal.Close() // the store fails while the call is upstream
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

// TestRunStoredWhileItsFirstCallIsUpstream: a fresh run's row goes into
// the store while its first call, a read-only one that nothing journals
// before it is sent, is upstream, not once the call's outcome is
// journaled: the run is listed as running while the call waits, and its
// call's entry follows the row.
func TestRunStoredWhileItsFirstCallIsUpstream(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	up := mcp.NewServer(&mcp.Implementation{Name: "journal-upstream", Version: "1"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(up, &mcp.Tool{Name: "hold", Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	h := hubOver(t, "up", up)
	done := make(chan *Envelope, 1)
	go func() {
		env, err := h.Execute(context.Background(), ExecuteRequest{Code: `return await up.hold();`})
		if err != nil {
			t.Error(err)
		}
		done <- env
	}()
	<-entered
	var running RunSummary
	testwait.For(t, 0, "the run to be listed while its call is upstream", func() bool {
		runs, err := h.Runs(context.Background(), 10, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 {
			running = runs[0]
		}
		return len(runs) == 1
	})
	if running.Status != StatusRunning {
		t.Errorf("while its call is upstream the run is %q, want %q", running.Status, StatusRunning)
	}
	close(release)
	env := <-done
	if env == nil || env.Status != StatusCompleted || env.RunID != running.ID {
		t.Fatalf("the run ended %v, want run %s completed", env, running.ID)
	}
	journal, err := h.db.ReadJournal(context.Background(), env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if e := journal[1]; e == nil || e.State != journalOK || string(e.Outcome) != `"held"` {
		t.Fatalf("the call's journal entry is %+v, want ok with its outcome", e)
	}
}
