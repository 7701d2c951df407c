package store

// Plans: the calls a run would make that need consent, collected while the
// code runs ahead of the first of them, and decided at once. Each planned
// call is a pending approval (Pending.Plan set); the run keeps where
// planning stopped and what policy denied on the way (RunPlan).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// PlanEntry is what a planned call's pending row holds beyond an
// approval's.
type PlanEntry struct {
	// Args is the call's arguments as symbolic JSON, known secrets
	// scrubbed, when they hold a placeholder for an earlier planned call's
	// result; nil when they are plain (the row's ArgsHash then holds them).
	Args json.RawMessage `json:"args,omitempty"`
	// Missing says the call's connection lacked a secret or a sign-in when
	// it was planned.
	Missing bool `json:"missing,omitempty"`
	// Code and Journal bind the entry to the run: the hash of its code and
	// the highest seq its journal held when planning began.
	Code    string `json:"code"`
	Journal int    `json:"journal"`
	// Used is the seq of the real run's call that used the entry, 0 while
	// unused (its own column, not part of the JSON).
	Used int `json:"-"`
}

// PlanDenied is a call policy denied while a run was planned: it was not
// sent, and the code got the denial.
type PlanDenied struct {
	Seq        int    `json:"seq"`
	Address    string `json:"address"`
	Connection string `json:"connection,omitempty"`
	Preview    string `json:"preview"`
	Reason     string `json:"reason"`
}

// RunPlan is a run's last plan as a whole: where planning stopped ("" when
// the code returned) and the calls policy denied on the way.
type RunPlan struct {
	Stop   string       `json:"stop,omitempty"`
	Denied []PlanDenied `json:"denied,omitempty"`
}

// UsePlanned marks planned call id used by call seq of the real run: true
// once, for a decided entry nobody used yet.
func (db *DB) UsePlanned(ctx context.Context, id string, seq int) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE pending SET plan_used = ? WHERE id = ? AND plan IS NOT NULL AND plan_used = 0 AND decision IS NOT NULL`, seq, id)
	if err != nil {
		return false, fmt.Errorf("using planned call %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// DropPlan deletes every planned call of run runID, used or not, and the
// run's plan: the run is planned again from where it went its own way.
func (db *DB) DropPlan(ctx context.Context, runID string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM pending WHERE run_id = ? AND plan IS NOT NULL`, runID); err != nil {
		return fmt.Errorf("dropping the plan of run %s: %w", runID, err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET plan = NULL WHERE id = ?`, runID); err != nil {
		return fmt.Errorf("dropping the plan of run %s: %w", runID, err)
	}
	return nil
}

// SetRunPlan stores run runID's plan as a whole.
func (db *DB) SetRunPlan(ctx context.Context, runID string, p *RunPlan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("storing the plan of run %s: %w", runID, err)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET plan = ? WHERE id = ?`, string(b), runID); err != nil {
		return fmt.Errorf("storing the plan of run %s: %w", runID, err)
	}
	return nil
}

// LoadRunPlan returns run runID's plan as a whole, nil when it has none, or
// ErrNoRun.
func (db *DB) LoadRunPlan(ctx context.Context, runID string) (*RunPlan, error) {
	var s sql.NullString
	err := db.sql.QueryRowContext(ctx, `SELECT plan FROM runs WHERE id = ?`, runID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoRun
	}
	if err != nil {
		return nil, fmt.Errorf("reading the plan of run %s: %w", runID, err)
	}
	if !s.Valid {
		return nil, nil
	}
	var p RunPlan
	if err := json.Unmarshal([]byte(s.String), &p); err != nil {
		return nil, fmt.Errorf("reading the plan of run %s: %w", runID, err)
	}
	return &p, nil
}
