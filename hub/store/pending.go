package store

// Pending inputs: the approvals and connection secrets a run waits for.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Pending is an input a run waits for.
type Pending struct {
	ID, RunID  string
	Seq        int
	Kind       string // approval | connection
	Address    string
	Connection string
	ArgsHash   string
	Preview    string
	Reason     string
	Client     string
	Created    time.Time
	Expires    time.Time
	Decision   string // "" | allow | deny
	Remember   bool
	Channel    string
	Decided    time.Time
	StateUsed  bool
	// DefHash is the definition of the tool the approval was asked for: an
	// allow holds for that definition only. Change says what changed in it
	// since the person last accepted it ("" when nothing did).
	DefHash string
	Change  string
	// Plan is set on a planned call's row (its Seq is the negated seq the
	// call had while planning); nil on a call's own input.
	Plan *PlanEntry
}

// ErrNoPending reports a pending input the store does not hold.
var ErrNoPending = errors.New("no such pending input")

// PutPending stores an input call p.Seq of run p.RunID waits for; when the
// call has one already, that one stays.
func (db *DB) PutPending(ctx context.Context, p *Pending) error {
	var plan any
	if p.Plan != nil {
		b, err := json.Marshal(p.Plan)
		if err != nil {
			return fmt.Errorf("storing pending input of run %s: %w", p.RunID, err)
		}
		plan = string(b)
	}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO pending (id, run_id, seq, kind, address, connection, args_hash, preview, reason, client, created, expires, def_hash, change, plan)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, seq) DO NOTHING`,
		p.ID, p.RunID, p.Seq, p.Kind, p.Address, p.Connection, p.ArgsHash, p.Preview, p.Reason, p.Client, p.Created.UnixMilli(), p.Expires.UnixMilli(), p.DefHash, p.Change, plan)
	if err != nil {
		return fmt.Errorf("storing pending input of run %s: %w", p.RunID, err)
	}
	return nil
}

const pendingCols = `id, run_id, seq, kind, address, connection, args_hash, preview, reason, client, created, expires, COALESCE(decision, ''), remember, COALESCE(channel, ''), COALESCE(decided, 0), state_used, def_hash, change, plan, plan_used`

func scanPending(sc interface{ Scan(...any) error }) (*Pending, error) {
	var p Pending
	var created, expires, decided, used int64
	var plan sql.NullString
	if err := sc.Scan(&p.ID, &p.RunID, &p.Seq, &p.Kind, &p.Address, &p.Connection, &p.ArgsHash, &p.Preview, &p.Reason, &p.Client,
		&created, &expires, &p.Decision, &p.Remember, &p.Channel, &decided, &p.StateUsed, &p.DefHash, &p.Change, &plan, &used); err != nil {
		return nil, err
	}
	if plan.Valid {
		p.Plan = &PlanEntry{}
		if err := json.Unmarshal([]byte(plan.String), p.Plan); err != nil {
			return nil, fmt.Errorf("pending input %s: plan: %w", p.ID, err)
		}
		p.Plan.Used = int(used)
	}
	p.Created, p.Expires = time.UnixMilli(created), time.UnixMilli(expires)
	if decided > 0 {
		p.Decided = time.UnixMilli(decided)
	}
	return &p, nil
}

// PendingOf lists the inputs of run runID, decided or not, by call (a
// planned call by its seq while planning).
func (db *DB) PendingOf(ctx context.Context, runID string) ([]*Pending, error) {
	return db.queryPending(ctx, `SELECT `+pendingCols+` FROM pending WHERE run_id = ? ORDER BY abs(seq), seq`, runID)
}

// PendingByID returns pending input id, or ErrNoPending.
func (db *DB) PendingByID(ctx context.Context, id string) (*Pending, error) {
	p, err := scanPending(db.sql.QueryRowContext(ctx, `SELECT `+pendingCols+` FROM pending WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoPending
	}
	return p, err
}

// PendingAt returns the input call seq of run runID waits for, or nil.
func (db *DB) PendingAt(ctx context.Context, runID string, seq int) (*Pending, error) {
	p, err := scanPending(db.sql.QueryRowContext(ctx, `SELECT `+pendingCols+` FROM pending WHERE run_id = ? AND seq = ?`, runID, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

// PendingSeqs returns the calls of a run that have a pending input,
// decided or not; planned calls are not among them.
func (db *DB) PendingSeqs(ctx context.Context, runID string) (map[int]bool, error) {
	rows, err := db.query(ctx, `SELECT seq FROM pending WHERE run_id = ? AND seq > 0`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading pending inputs of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var seq int
		if err := rows.Scan(&seq); err != nil {
			return nil, err
		}
		out[seq] = true
	}
	return out, rows.Err()
}

// OpenPending lists the undecided inputs, oldest first.
func (db *DB) OpenPending(ctx context.Context) ([]*Pending, error) {
	return db.queryPending(ctx, `SELECT `+pendingCols+` FROM pending WHERE decision IS NULL ORDER BY created, abs(seq)`)
}

// RunsWaiting counts the runs other than runID with an undecided input
// that has not expired by now: the runs waiting for a person.
func (db *DB) RunsWaiting(ctx context.Context, runID string, now time.Time) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT COUNT(DISTINCT run_id) FROM pending WHERE decision IS NULL AND expires > ? AND run_id != ?`, now.UnixMilli(), runID).Scan(&n)
	return n, err
}

func (db *DB) queryPending(ctx context.Context, q string, args ...any) ([]*Pending, error) {
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading pending inputs: %w", err)
	}
	defer rows.Close()
	var out []*Pending
	for rows.Next() {
		p, err := scanPending(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// DropPending deletes a pending input the call no longer waits for, so it
// can ask anew.
func (db *DB) DropPending(ctx context.Context, id string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM pending WHERE id = ?`, id); err != nil {
		return fmt.Errorf("replacing pending input %s: %w", id, err)
	}
	return nil
}
