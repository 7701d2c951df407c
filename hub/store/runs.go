package store

// Runs: the lease of a run's attempt, the claim of an approved call, the
// input-request nonces, and retention.
//
// Several processes may open one home's database (the tray hub, an
// embedded hub, the CLI). Each write below is one statement whose WHERE
// clause carries the condition, so SQLite's single writer decides between
// them: of two processes that race for the same run or the same approved
// call, exactly one wins.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// ErrNoRun reports a run the store does not hold.
var ErrNoRun = errors.New("no such run")

// Run is one execute and its resumes, as stored. The store keeps the
// envelope as the JSON it is given and does not read it.
type Run struct {
	ID       string
	Code     string // after the forgiving rewrites
	Notices  []string
	Seed     uint64
	Clock    time.Time // the logical clock's start
	Status   string
	Attempts int
	Client   string
	// Engine and Prelude are the sandbox's hashes at the last attempt.
	Engine  string
	Prelude string
	// Envelope is the last envelope returned, as JSON; nil when none was.
	Envelope []byte
	Created  time.Time
	Updated  time.Time
}

// CreateRun stores a new run. A run stored while its first attempt runs
// is leased to the attempt's owner (lease); the zero Lease stores it
// without one.
func (db *DB) CreateRun(ctx context.Context, r *Run, lease Lease) error {
	notices, _ := json.Marshal(r.Notices)
	owner, until := "", int64(0)
	if lease.Owner != "" {
		owner, until = lease.Owner, lease.Until.UnixMilli()
	}
	_, err := db.exec(ctx, `INSERT INTO runs (id, code, notices, seed, clock, status, attempts, client, engine, prelude, envelope, created, updated, owner, lease)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Code, string(notices), int64(r.Seed), r.Clock.UnixMilli(), r.Status, r.Attempts, r.Client, r.Engine, r.Prelude, nullable(r.Envelope), r.Created.UnixMilli(), r.Updated.UnixMilli(), owner, until)
	if err != nil {
		return fmt.Errorf("storing run %s: %w", r.ID, err)
	}
	return nil
}

const runCols = `id, code, notices, seed, clock, status, attempts, client, engine, prelude, envelope, created, updated`

func scanRun(sc interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var notices string
	var seed, clock, created, updated int64
	var env sql.NullString
	if err := sc.Scan(&r.ID, &r.Code, &notices, &seed, &clock, &r.Status, &r.Attempts, &r.Client, &r.Engine, &r.Prelude, &env, &created, &updated); err != nil {
		return nil, err
	}
	json.Unmarshal([]byte(notices), &r.Notices)
	r.Seed, r.Clock = uint64(seed), time.UnixMilli(clock)
	r.Created, r.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	if env.Valid {
		r.Envelope = []byte(env.String)
	}
	return &r, nil
}

// LoadRun returns run id, or ErrNoRun.
func (db *DB) LoadRun(ctx context.Context, id string) (*Run, error) {
	r, err := scanRun(db.sql.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoRun
	}
	if err != nil {
		return nil, fmt.Errorf("loading run %s: %w", id, err)
	}
	return r, nil
}

// RunsQuery selects the runs RecentRuns lists.
type RunsQuery struct {
	Limit int
	// Waiting, when set, keeps the runs whose status is one of Waiting and
	// that wait for an input nobody decided and that has not expired at
	// Now.
	Waiting []string
	Now     time.Time
}

// ShownCodeChars is as much of a run's code as a list of runs or of
// approvals holds: all of a model's code (64 KB at most), the start of a
// direct-mode call's, whose arguments the person reads apart.
const ShownCodeChars = 64 << 10

// shownRunCols are runCols with the code cut to ShownCodeChars.
var shownRunCols = strings.Replace(runCols, "code", fmt.Sprintf("substr(code, 1, %d)", ShownCodeChars), 1)

// ShownCode is run id's code cut to ShownCodeChars, or ErrNoRun.
func (db *DB) ShownCode(ctx context.Context, id string) (string, error) {
	var code string
	err := db.sql.QueryRowContext(ctx, `SELECT substr(code, 1, ?) FROM runs WHERE id = ?`, ShownCodeChars, id).Scan(&code)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoRun
	}
	return code, err
}

// RecentRuns lists the runs q selects, the last updated first, each with
// its code cut to ShownCodeChars.
func (db *DB) RecentRuns(ctx context.Context, q RunsQuery) ([]*Run, error) {
	query := `SELECT ` + shownRunCols + ` FROM runs ORDER BY updated DESC, id LIMIT ?`
	args := []any{q.Limit}
	if len(q.Waiting) > 0 {
		marks := make([]string, len(q.Waiting))
		args = args[:0]
		for i, s := range q.Waiting {
			marks[i] = "?"
			args = append(args, s)
		}
		query = `SELECT ` + shownRunCols + ` FROM runs WHERE status IN (` + strings.Join(marks, ", ") + `)
			AND id IN (SELECT run_id FROM pending WHERE decision IS NULL AND expires > ?)
			ORDER BY updated DESC, id LIMIT ?`
		args = append(args, q.Now.UnixMilli(), q.Limit)
	}
	return db.queryRuns(ctx, query, args...)
}

// RunsWithCode lists the runs whose code is code and whose status is one
// of statuses, the last updated first: where a repeated call of a tool
// finds the run it waits in.
func (db *DB) RunsWithCode(ctx context.Context, code string, statuses ...string) ([]*Run, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	args := []any{code}
	for _, s := range statuses {
		args = append(args, s)
	}
	return db.queryRuns(ctx, `SELECT `+runCols+` FROM runs WHERE code = ? AND status IN (?`+strings.Repeat(", ?", len(statuses)-1)+`) ORDER BY updated DESC, id`, args...)
}

// queryRuns runs a query of runCols and scans its rows.
func (db *DB) queryRuns(ctx context.Context, query string, args ...any) ([]*Run, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CountRunsSince counts the runs created at t or later.
func (db *DB) CountRunsSince(ctx context.Context, t time.Time) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE created >= ?`, t.UnixMilli()).Scan(&n)
	return n, err
}

// StartAttempt records that an attempt of run id starts now with status,
// on the sandbox engine and prelude given by their hashes.
func (db *DB) StartAttempt(ctx context.Context, id, status, engine, prelude string, now time.Time) error {
	_, err := db.exec(ctx, `UPDATE runs SET status = ?, attempts = attempts + 1, engine = ?, prelude = ?, updated = ? WHERE id = ?`,
		status, engine, prelude, now.UnixMilli(), id)
	return err
}

// Lease is who attempts a run, until when.
type Lease struct {
	Owner string
	Until time.Time
}

// ClaimRun leases run id to owner until until, for one attempt. It fails
// (false, and the current lease) while another owner holds a lease that has
// not ended, unless alive says that owner is gone (a process that died
// without releasing it). Release is FinishRun's.
func (db *DB) ClaimRun(ctx context.Context, id, owner string, now, until time.Time, alive func(owner string) bool) (bool, Lease, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE runs SET owner = ?, lease = ? WHERE id = ? AND (owner = '' OR owner = ? OR lease <= ?)`,
		owner, until.UnixMilli(), id, owner, now.UnixMilli())
	if err != nil {
		return false, Lease{}, fmt.Errorf("claiming run %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, Lease{Owner: owner, Until: until}, nil
	}
	var held string
	var lease int64
	err = db.sql.QueryRowContext(ctx, `SELECT owner, lease FROM runs WHERE id = ?`, id).Scan(&held, &lease)
	if errors.Is(err, sql.ErrNoRows) {
		return false, Lease{}, fmt.Errorf("claiming run %s: %w", id, ErrNoRun)
	}
	if err != nil {
		return false, Lease{}, fmt.Errorf("claiming run %s: %w", id, err)
	}
	cur := Lease{Owner: held, Until: time.UnixMilli(lease)}
	if held == "" || alive == nil || alive(held) {
		return false, cur, nil
	}
	// The holder is gone: take its lease over, unless someone else just did.
	res, err = db.sql.ExecContext(ctx, `UPDATE runs SET owner = ?, lease = ? WHERE id = ? AND owner = ?`, owner, until.UnixMilli(), id, held)
	if err != nil {
		return false, cur, fmt.Errorf("claiming run %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, Lease{Owner: owner, Until: until}, nil
	}
	return false, cur, nil
}

// FinishRun stores a run's status and envelope and ends owner's lease. It
// reports false, and stores nothing, when another owner holds the lease
// now (it took over after owner's lease ended).
func (db *DB) FinishRun(ctx context.Context, id, owner, status string, envelope []byte, now time.Time) (bool, error) {
	st, err := db.prepared(ctx, `UPDATE runs SET status = ?, envelope = ?, updated = ?, owner = '', lease = 0 WHERE id = ? AND owner IN ('', ?)`)
	if err != nil {
		return false, err
	}
	res, err := st.ExecContext(ctx, status, string(envelope), now.UnixMilli(), id, owner)
	if err != nil {
		return false, fmt.Errorf("storing the envelope of run %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseRun ends owner's lease on run id, which it claimed and did not
// attempt (FinishRun ends it otherwise). It is a no-op when the lease is
// gone.
func (db *DB) ReleaseRun(ctx context.Context, id, owner string) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE runs SET owner = '', lease = 0 WHERE id = ? AND owner = ?`, id, owner)
	return err
}

// ClaimPending claims an approved call for the attempt that sends it. It
// succeeds once per call: a second attempt (in this process or another)
// finds it claimed and must not send the call again.
func (db *DB) ClaimPending(ctx context.Context, pendingID, owner string, now time.Time) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE pending SET claimed = ?, claimed_by = ? WHERE id = ? AND decision = 'allow' AND claimed IS NULL`,
		now.UnixMilli(), owner, pendingID)
	if err != nil {
		return false, fmt.Errorf("claiming approved call %s: %w", pendingID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetStateNonce records nonce as the one input-request state the client
// may answer for an undecided call; a state signed before it is void.
func (db *DB) SetStateNonce(ctx context.Context, pendingID, nonce string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE pending SET state_nonce = ? WHERE id = ? AND decision IS NULL`, nonce, pendingID); err != nil {
		return fmt.Errorf("recording the input request of %s: %w", pendingID, err)
	}
	return nil
}

// RedeemStateNonce uses up the input-request state nonce of a call: true
// once, for the last nonce SetStateNonce recorded, while the call is
// undecided.
func (db *DB) RedeemStateNonce(ctx context.Context, pendingID, nonce string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE pending SET state_nonce = NULL, state_used = 1 WHERE id = ? AND state_nonce = ? AND decision IS NULL`, pendingID, nonce)
	if err != nil {
		return false, fmt.Errorf("redeeming the input request of %s: %w", pendingID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Retention bounds the finished runs the store keeps. A run is finished
// when its status is one of Finished, or when every input it waits for has
// expired, and no attempt holds its lease. Runs that wait for a person are
// kept until their inputs expire, whatever the budget.
type Retention struct {
	// MaxAge deletes finished runs last updated longer ago; 0 keeps them
	// whatever their age.
	MaxAge time.Duration
	// MaxBytes keeps the newest finished runs whose stored bytes (code,
	// envelope, journal with its calls' arguments, and pending inputs),
	// with those of the runs that are kept anyway, fit; older ones are
	// deleted. 0: no budget.
	MaxBytes int64
	// Finished are the statuses of runs that ended.
	Finished []string
	// MaxAudit keeps the newest entries of the audit trail, and the last
	// entry that set each target's config rule (PolicyOrigins reads it),
	// however old; older entries are deleted. 0 keeps them all.
	MaxAudit int
}

// Pruned is what Prune did.
type Pruned struct {
	Runs       int   // runs deleted, with their journals and pending inputs
	Bytes      int64 // their stored bytes
	Kept       int64 // stored bytes of the runs kept
	Audit      int   // audit entries deleted
	FileBefore int64 // bytes of the database, WAL and shared-memory files
	FileAfter  int64
}

// pruneBatch bounds one delete transaction, so retention never holds the
// write lock long while runs journal their calls.
const pruneBatch = 200

// Prune deletes the runs r says to, with their journal entries, pending
// inputs and handles, and the audit entries past r.MaxAudit, then vacuums:
// the free pages go back to the file system and the WAL is truncated.
func (db *DB) Prune(ctx context.Context, r Retention, now time.Time) (Pruned, error) {
	out := Pruned{FileBefore: db.fileBytes()}
	finished := make([]string, 0, len(r.Finished))
	args := []any{now.UnixMilli()}
	for _, s := range r.Finished {
		finished = append(finished, "?")
		args = append(args, s)
	}
	if len(finished) == 0 {
		finished = append(finished, "''")
	}
	args = append(args, now.UnixMilli())
	rows, err := db.sql.QueryContext(ctx, `SELECT r.id, r.updated,
			octet_length(r.code) + octet_length(r.notices) + COALESCE(octet_length(r.envelope), 0)
			+ COALESCE((SELECT SUM(COALESCE(octet_length(j.outcome), 0) + COALESCE(octet_length(j.args), 0) + octet_length(j.address) + octet_length(j.args_hash)) FROM journal j WHERE j.run_id = r.id), 0)
			+ COALESCE((SELECT SUM(octet_length(p.preview) + octet_length(p.reason)) FROM pending p WHERE p.run_id = r.id), 0)
			+ COALESCE((SELECT SUM(h.bytes) FROM handles h WHERE h.run_id = r.id), 0),
			r.lease > ? OR (r.status NOT IN (`+strings.Join(finished, ", ")+`)
				AND EXISTS (SELECT 1 FROM pending p WHERE p.run_id = r.id AND p.expires > ?))
		FROM runs r ORDER BY r.updated DESC, r.id`, args...)
	if err != nil {
		return out, fmt.Errorf("pruning runs: %w", err)
	}
	type candidate struct {
		id      string
		updated int64
		bytes   int64
		keep    bool
	}
	var all []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.updated, &c.bytes, &c.keep); err != nil {
			rows.Close()
			return out, fmt.Errorf("pruning runs: %w", err)
		}
		all = append(all, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("pruning runs: %w", err)
	}
	// A run kept anyway (waiting, or attempted now) may read its handles
	// again on resume: the runs that own them are kept with it.
	readers, err := db.handleReaders(ctx)
	if err != nil {
		return out, err
	}
	kept := map[string]bool{}
	for _, c := range all {
		if c.keep {
			kept[c.id] = true
		}
	}
	for owner, rs := range readers {
		for _, r := range rs {
			if kept[r] {
				kept[owner] = true
			}
		}
	}
	var cands []candidate
	for _, c := range all {
		if kept[c.id] {
			out.Kept += c.bytes
			continue
		}
		cands = append(cands, c)
	}
	var doomed []string
	cutoff := now.Add(-r.MaxAge).UnixMilli()
	over := false
	for _, c := range cands { // newest first
		switch {
		case r.MaxAge > 0 && c.updated < cutoff, over:
		case r.MaxBytes > 0 && out.Kept+c.bytes > r.MaxBytes:
			over = true // this run and every older one
		default:
			out.Kept += c.bytes
			continue
		}
		doomed = append(doomed, c.id)
		out.Bytes += c.bytes
	}
	for len(doomed) > 0 {
		n := min(len(doomed), pruneBatch)
		batch := doomed[:n]
		doomed = doomed[n:]
		ids := make([]any, len(batch))
		marks := make([]string, len(batch))
		for i, id := range batch {
			ids[i], marks[i] = id, "?"
		}
		// The lease is checked again: an attempt may have claimed the run
		// since it was read.
		res, err := db.sql.ExecContext(ctx, `DELETE FROM runs WHERE id IN (`+strings.Join(marks, ", ")+`) AND lease <= ?`, append(ids, now.UnixMilli())...)
		if err != nil {
			return out, fmt.Errorf("deleting runs: %w", err)
		}
		k, _ := res.RowsAffected()
		out.Runs += int(k)
	}
	if out.Audit, err = db.pruneAudit(ctx, r.MaxAudit); err != nil {
		return out, err
	}
	if err := db.Vacuum(ctx); err != nil {
		return out, err
	}
	out.FileAfter = db.fileBytes()
	return out, nil
}

// AuditKept is how many of the audit trail's newest entries the hub's
// retention keeps (with the entry that set each config rule): some 10 MB,
// far more than the window shows.
const AuditKept = 100_000

// pruneAudit deletes the audit entries older than the newest keep, but for
// each target's last policy entry, in batches of pruneBatch*50, and
// returns how many went. keep 0 deletes none.
func (db *DB) pruneAudit(ctx context.Context, keep int) (int, error) {
	if keep <= 0 {
		return 0, nil
	}
	var oldest int64 // the oldest entry kept by count
	err := db.sql.QueryRowContext(ctx, `SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?`, keep-1).Scan(&oldest)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pruning the audit trail: %w", err)
	}
	deleted := 0
	for {
		res, err := db.sql.ExecContext(ctx, `DELETE FROM audit WHERE id IN (
			SELECT id FROM audit WHERE id < ? AND id NOT IN (
				SELECT MAX(id) FROM audit WHERE decision LIKE 'policy\_%' ESCAPE '\' GROUP BY address)
			ORDER BY id LIMIT ?)`, oldest, pruneBatch*50)
		if err != nil {
			return deleted, fmt.Errorf("pruning the audit trail: %w", err)
		}
		n, _ := res.RowsAffected()
		deleted += int(n)
		if n < pruneBatch*50 {
			return deleted, nil
		}
	}
}

// JournalRead is the state of a journal entry that records a read of a
// handle: its outcome is a JSON object whose "handle" names the handle
// read, which a resume reads again.
const JournalRead = "read"

// handleReaders maps each run that owns a handle read by another run's
// journal to those readers.
func (db *DB) handleReaders(ctx context.Context) (map[string][]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT h.run_id, j.run_id FROM journal j
		JOIN handles h ON h.id = json_extract(j.outcome, '$.handle')
		WHERE j.state = ? AND j.run_id != h.run_id`, JournalRead)
	if err != nil {
		return nil, fmt.Errorf("pruning runs: reading the handles runs read: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var owner, reader string
		if err := rows.Scan(&owner, &reader); err != nil {
			return nil, fmt.Errorf("pruning runs: %w", err)
		}
		out[owner] = append(out[owner], reader)
	}
	return out, rows.Err()
}

// Vacuum gives the database's free pages back to the file system and
// checkpoints and truncates the WAL. The checkpoint waits at most 100 ms
// for another process's readers or writer; a WAL they hold up is truncated
// at a later vacuum.
func (db *DB) Vacuum(ctx context.Context) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("vacuuming: %w", err)
	}
	defer conn.Close()
	var free int64
	if err := conn.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return fmt.Errorf("vacuuming: %w", err)
	}
	if free > 0 {
		if _, err := conn.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
			return fmt.Errorf("vacuuming: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 100`); err != nil {
		return fmt.Errorf("checkpointing: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeoutMs))
	var busy, logged, moved int
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved)
	if err != nil && !strings.Contains(err.Error(), "busy") && !strings.Contains(err.Error(), "locked") {
		return fmt.Errorf("checkpointing: %w", err)
	}
	return nil
}

// fileBytes is the size of the database and the files beside it.
func (db *DB) fileBytes() int64 {
	var n int64
	for _, p := range Files(db.path) {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
