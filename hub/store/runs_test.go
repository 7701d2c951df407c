package store

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// addRun stores a run with the given status and update time, and a journal
// entry whose outcome is outcomeBytes long.
func addRun(t *testing.T, db *DB, id, status string, updated time.Time, outcomeBytes int) {
	t.Helper()
	ms := updated.UnixMilli()
	if _, err := db.sql.Exec(`INSERT INTO runs (id, code, seed, clock, status, created, updated) VALUES (?, 'return 1', 1, ?, ?, ?, ?)`, id, ms, status, ms, ms); err != nil {
		t.Fatal(err)
	}
	outcome := `"` + strings.Repeat("x", outcomeBytes) + `"`
	if _, err := db.sql.Exec(`INSERT INTO journal (run_id, seq, address, args_hash, state, outcome, started) VALUES (?, 0, 'memory.readGraph', 'h', 'ok', ?, ?)`, id, outcome, ms); err != nil {
		t.Fatal(err)
	}
}

func addPending(t *testing.T, db *DB, id, runID string, expires time.Time, decision string) {
	t.Helper()
	var dec any
	if decision != "" {
		dec = decision
	}
	if _, err := db.sql.Exec(`INSERT INTO pending (id, run_id, seq, kind, address, args_hash, created, expires, decision) VALUES (?, ?, 0, 'approval', 'memory.createEntities', 'h', 0, ?, ?)`,
		id, runID, expires.UnixMilli(), dec); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, db *DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestClaimPendingHasOneWinner: two processes' stores claim the same
// approved call at once, many times over; exactly one claim wins each time.
func TestClaimPendingHasOneWinner(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	a, b := open(t, file, nil), open(t, file, nil)
	now := time.Now()
	for i := range 50 {
		run, pid := fmt.Sprintf("r_%d", i), fmt.Sprintf("p_%d", i)
		addRun(t, a, run, "awaiting_approval", now, 10)
		addPending(t, a, pid, run, now.Add(time.Hour), "allow")
		start := make(chan struct{})
		var wg sync.WaitGroup
		wins := make([]bool, 4)
		for k := range wins {
			db := a
			if k%2 == 1 {
				db = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := db.ClaimPending(context.Background(), pid, fmt.Sprintf("owner-%d", k), now)
				if err != nil {
					t.Error(err)
				}
				wins[k] = ok
			}()
		}
		close(start)
		wg.Wait()
		n := 0
		for _, w := range wins {
			if w {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("call %s: %d claims won, want exactly 1", pid, n)
		}
	}
	// Undecided and denied calls are never claimed.
	addRun(t, a, "r_open", "awaiting_approval", now, 10)
	addPending(t, a, "p_open", "r_open", now.Add(time.Hour), "")
	addRun(t, a, "r_denied", "awaiting_approval", now, 10)
	addPending(t, a, "p_denied", "r_denied", now.Add(time.Hour), "deny")
	for _, id := range []string{"p_open", "p_denied"} {
		if ok, err := a.ClaimPending(context.Background(), id, "x", now); ok || err != nil {
			t.Errorf("claim of %s = %v, %v; want refused", id, ok, err)
		}
	}
}

func TestClaimRunLease(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	a, b := open(t, file, nil), open(t, file, nil)
	ctx := context.Background()
	now := time.Now()
	addRun(t, a, "r_1", "awaiting_approval", now, 10)
	alive := func(string) bool { return true }
	if ok, _, err := a.ClaimRun(ctx, "r_1", "A", now, now.Add(time.Minute), alive); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	ok, held, err := b.ClaimRun(ctx, "r_1", "B", now, now.Add(time.Minute), alive)
	if ok || err != nil || held.Owner != "A" {
		t.Fatalf("second claim while A holds it: %v %+v %v", ok, held, err)
	}
	// A holder that died is taken over at once.
	if ok, _, _ := b.ClaimRun(ctx, "r_1", "B", now, now.Add(time.Minute), func(o string) bool { return o != "A" }); !ok {
		t.Fatal("the lease of a dead owner was not taken over")
	}
	// A finishes late: its envelope is not stored over B's attempt.
	if ok, err := a.FinishRun(ctx, "r_1", "A", "completed", []byte(`{}`), now); ok || err != nil {
		t.Fatalf("finish by the old owner: %v %v", ok, err)
	}
	if ok, err := b.FinishRun(ctx, "r_1", "B", "completed", []byte(`{}`), now); !ok || err != nil {
		t.Fatalf("finish by the owner: %v %v", ok, err)
	}
	// Released: anyone may claim; an ended lease may be claimed too.
	if ok, _, _ := a.ClaimRun(ctx, "r_1", "A", now, now.Add(time.Second), alive); !ok {
		t.Fatal("claim after release refused")
	}
	if ok, _, _ := b.ClaimRun(ctx, "r_1", "B", now.Add(2*time.Second), now.Add(time.Minute), alive); !ok {
		t.Fatal("claim after the lease ended refused")
	}
	if _, _, err := a.ClaimRun(ctx, "r_none", "A", now, now.Add(time.Second), alive); err == nil {
		t.Fatal("claiming a missing run succeeded")
	}
}

// TestRecentRunsInOneQuery: runs come back whole (code, notices, envelope)
// from one query, the last updated first; Waiting keeps the runs with a
// waiting status and an input nobody decided that has not expired.
func TestRecentRunsInOneQuery(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli())
	for i, r := range []struct {
		id, status string
		env        []byte
	}{
		{"r_done", "completed", []byte(`{"status":"completed"}`)},
		{"r_open", "awaiting_approval", []byte(`{"status":"awaiting_approval"}`)},
		{"r_decided", "awaiting_approval", nil},
		{"r_expired", "awaiting_connection", nil},
		{"r_wait_conn", "awaiting_connection", nil},
	} {
		at := now.Add(time.Duration(i) * time.Second)
		run := &Run{ID: r.id, Code: "return " + r.id, Notices: []string{"n"}, Seed: 7, Clock: at, Status: r.status, Attempts: 1, Envelope: r.env, Created: at, Updated: at}
		if err := db.CreateRun(ctx, run, Lease{}); err != nil {
			t.Fatal(err)
		}
	}
	addPending(t, db, "p_open", "r_open", now.Add(time.Hour), "")
	addPending(t, db, "p_decided", "r_decided", now.Add(time.Hour), "allow")
	addPending(t, db, "p_expired", "r_expired", now.Add(-time.Hour), "")
	addPending(t, db, "p_conn", "r_wait_conn", now.Add(time.Hour), "")
	addPending(t, db, "p_done", "r_done", now.Add(time.Hour), "")

	ids := func(rs []*Run) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, " ")
	}
	all, err := db.RecentRuns(ctx, RunsQuery{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "r_wait_conn r_expired r_decided" {
		t.Errorf("the 3 latest runs = %s", got)
	}
	waiting, err := db.RecentRuns(ctx, RunsQuery{Limit: 10, Waiting: []string{"awaiting_approval", "awaiting_connection"}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(waiting); got != "r_wait_conn r_open" {
		t.Errorf("the runs waiting for a person = %s", got)
	}
	if r := waiting[1]; r.Code != "return r_open" || len(r.Notices) != 1 || r.Seed != 7 || string(r.Envelope) != `{"status":"awaiting_approval"}` || !r.Created.Equal(now.Add(time.Second)) {
		t.Errorf("r_open = %+v", r)
	}
	if waiting[0].Envelope != nil {
		t.Errorf("a run without an envelope came back with %q", waiting[0].Envelope)
	}
	if n, err := db.CountRunsSince(ctx, now.Add(3*time.Second)); err != nil || n != 2 {
		t.Errorf("CountRunsSince = %d, %v; want 2", n, err)
	}
}

func TestStateNonceRedeemsOnce(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	ctx := context.Background()
	now := time.Now()
	addRun(t, db, "r_1", "awaiting_approval", now, 10)
	addPending(t, db, "p_1", "r_1", now.Add(time.Hour), "")
	if ok, _ := db.RedeemStateNonce(ctx, "p_1", "n1"); ok {
		t.Fatal("redeemed a nonce never issued")
	}
	db.SetStateNonce(ctx, "p_1", "n1")
	db.SetStateNonce(ctx, "p_1", "n2") // a newer request voids n1
	if ok, _ := db.RedeemStateNonce(ctx, "p_1", "n1"); ok {
		t.Fatal("redeemed a voided nonce")
	}
	if ok, _ := db.RedeemStateNonce(ctx, "p_1", "n2"); !ok {
		t.Fatal("the current nonce was refused")
	}
	if ok, _ := db.RedeemStateNonce(ctx, "p_1", "n2"); ok {
		t.Fatal("a nonce redeemed twice")
	}
	db.SetStateNonce(ctx, "p_1", "n3") // asked again after a dismissed form
	if ok, _ := db.RedeemStateNonce(ctx, "p_1", "n3"); !ok {
		t.Fatal("the nonce of the second request was refused")
	}
}

// TestPruneDeletesAndShrinks: 50 finished runs of 200 KB each; retention
// with a 1 MB budget deletes the oldest with their journals, keeps pending
// runs until their inputs expire, and the files shrink.
func TestPruneDeletesAndShrinks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	db := open(t, file, nil)
	ctx := context.Background()
	now := time.Now()
	fresh := db.fileBytes()
	for i := range 50 {
		addRun(t, db, fmt.Sprintf("r_%02d", i), "completed", now.Add(time.Duration(i-100)*time.Minute), 200<<10)
	}
	// Waiting for a person, older than all of them: kept while its approval lives.
	addRun(t, db, "r_waiting", "awaiting_approval", now.Add(-48*time.Hour), 200<<10)
	addPending(t, db, "p_waiting", "r_waiting", now.Add(time.Hour), "")
	// Waiting, but its approval expired: finished.
	addRun(t, db, "r_expired", "awaiting_approval", now.Add(-48*time.Hour), 200<<10)
	addPending(t, db, "p_expired", "r_expired", now.Add(-time.Hour), "")
	// An attempt holds it.
	addRun(t, db, "r_leased", "running", now.Add(-48*time.Hour), 200<<10)
	db.ClaimRun(ctx, "r_leased", "A", now, now.Add(time.Minute), nil)

	grown := db.fileBytes()
	if grown-fresh < 50*200<<10 {
		t.Fatalf("the files grew by %d bytes for 50 x 200 KB", grown-fresh)
	}
	p, err := db.Prune(ctx, Retention{MaxBytes: 1 << 20, MaxAge: 30 * 24 * time.Hour, Finished: []string{"completed", "failed", "cancelled"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pruned %+v", p)
	// Kept: the waiting and leased runs (400 KB), then the newest finished
	// runs while the total fits 1 MB: three of them.
	if got := count(t, db, `SELECT COUNT(*) FROM runs`); got != 5 {
		t.Fatalf("%d runs left, want 5", got)
	}
	for _, id := range []string{"r_waiting", "r_leased", "r_49", "r_48", "r_47"} {
		if count(t, db, `SELECT COUNT(*) FROM runs WHERE id = ?`, id) != 1 {
			t.Errorf("run %s was deleted", id)
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM journal`); got != 5 {
		t.Errorf("%d journal entries left, want 5", got)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM pending`); got != 1 {
		t.Errorf("%d pending inputs left, want 1 (the expired one goes with its run)", got)
	}
	if p.Runs != 48 {
		t.Errorf("Pruned.Runs = %d, want 48", p.Runs)
	}
	after := db.fileBytes()
	if after > fresh+(2<<20) || after >= grown/4 {
		t.Errorf("files: %d bytes fresh, %d with the runs, %d after pruning; want them to shrink back", fresh, grown, after)
	}
	if err := db.Check(ctx); err != nil {
		t.Fatal(err)
	}

	// By age: a finished run older than MaxAge goes, whatever the budget.
	addRun(t, db, "r_old", "failed", now.Add(-31*24*time.Hour), 10)
	if _, err := db.Prune(ctx, Retention{MaxAge: 30 * 24 * time.Hour, Finished: []string{"completed", "failed", "cancelled"}}, now); err != nil {
		t.Fatal(err)
	}
	if count(t, db, `SELECT COUNT(*) FROM runs WHERE id = 'r_old'`) != 0 || count(t, db, `SELECT COUNT(*) FROM runs`) != 5 {
		t.Error("retention by age deleted the wrong runs")
	}
}

// TestFileModes: the database, its WAL and shared-memory files are the
// owner's only, also when an older version left them readable.
func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps the home's ACL, not modes")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "capabilities.db")
	db := open(t, file, nil)
	addRun(t, db, "r_1", "completed", time.Now(), 10) // writes the WAL
	for _, p := range Files(file)[:3] {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	db.Close()
	// An existing database left 0644 is fixed on open.
	for _, p := range Files(file)[:3] {
		if _, err := os.Stat(p); err == nil {
			os.Chmod(p, 0o644)
		}
	}
	db = open(t, file, nil)
	addRun(t, db, "r_2", "completed", time.Now(), 10)
	for _, p := range Files(file)[:3] {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("reopened: %s has mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	var av int
	if err := db.sql.QueryRow(`PRAGMA auto_vacuum`).Scan(&av); err != nil || av != 2 {
		t.Errorf("auto_vacuum = %d (%v), want 2 (incremental)", av, err)
	}
}

// TestPruneBoundsTheAuditTrail: retention keeps the newest MaxAudit entries
// of the audit trail, and the last entry that set each config rule however
// old, so PolicyOrigins reads what it read before; 0 keeps them all.
func TestPruneBoundsTheAuditTrail(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	ctx := context.Background()
	now := time.Now()
	add := func(i int, address, decision string) {
		t.Helper()
		if err := db.Audit(ctx, AuditEntry{At: now.Add(time.Duration(i) * time.Second), Channel: "cli", Address: address, Decision: decision}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "mail.send", "policy_ask")   // replaced by the next one
	add(1, "mail.send", "policy_allow") // the rule's origin
	add(2, "gh.*", "policy_deny")
	for i := range 40 {
		add(3+i, fmt.Sprintf("gh.tool%d", i), "allow")
	}
	before, err := db.PolicyOrigins(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := Retention{Finished: []string{"completed"}}
	if p, err := db.Prune(ctx, r, now); err != nil || p.Audit != 0 || count(t, db, `SELECT COUNT(*) FROM audit`) != 43 {
		t.Fatalf("MaxAudit 0: %+v, %v, %d entries left", p, err, count(t, db, `SELECT COUNT(*) FROM audit`))
	}
	r.MaxAudit = 10
	p, err := db.Prune(ctx, r, now)
	if err != nil {
		t.Fatal(err)
	}
	if p.Audit != 31 {
		t.Errorf("Pruned.Audit = %d, want 31 (43 entries, 10 newest and 2 rules' origins kept)", p.Audit)
	}
	hist, err := db.History(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range hist {
		got = append(got, e.Address+" "+e.Decision)
	}
	want := []string{"gh.tool39 allow", "gh.tool38 allow", "gh.tool37 allow", "gh.tool36 allow", "gh.tool35 allow",
		"gh.tool34 allow", "gh.tool33 allow", "gh.tool32 allow", "gh.tool31 allow", "gh.tool30 allow",
		"gh.* policy_deny", "mail.send policy_allow"}
	if !slices.Equal(got, want) {
		t.Errorf("the audit trail kept\n%q\nwant\n%q", got, want)
	}
	after, err := db.PolicyOrigins(ctx)
	if err != nil || !maps.Equal(before, after) {
		t.Errorf("policy origins %v (%v), were %v", after, err, before)
	}
	// Within the bound nothing more goes.
	if p, err := db.Prune(ctx, r, now); err != nil || p.Audit != 0 {
		t.Errorf("a second prune: %+v, %v", p, err)
	}
}
