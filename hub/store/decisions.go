package store

// Decisions: the person's answers to pending inputs, the decisions they
// asked to remember, and the audit trail of every decision.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Decision is a remembered decision ("always allow", "always deny"): a
// rule with a scope. An allow holds for one address, one definition (Hash)
// and one connection; a deny for an address, on one connection or on all.
type Decision struct {
	ID      int64
	Address string
	// AllConnections is set when the decision holds on every connection;
	// otherwise it holds on Connection only ("" is a source without
	// connections).
	AllConnections bool
	Connection     string
	// Hash is the definition an allow holds for; "" for a deny, and for an
	// allow migrated before definitions were pinned, until PinDecision.
	Hash    string
	Mode    string // allow | deny
	Channel string // who decided: dialog | client | cli
	At      time.Time
}

// AuditEntry is one row of the audit trail.
type AuditEntry struct {
	At        time.Time
	Channel   string
	Actor     string
	PendingID string
	RunID     string
	Address   string
	Decision  string
	Detail    string
}

// ErrAlreadyDecided reports a decision on an input someone already decided.
var ErrAlreadyDecided = errors.New("already decided")

// Decide records a decision (allow or deny) on an open pending input, its
// audit entry and, with remember, the remembered decision, all in one
// transaction. A remembered allow holds for the approval's address,
// connection and definition; a remembered deny for the address on the
// approval's connection (every connection when the source has none).
// Deciding an input twice fails with ErrAlreadyDecided.
func (db *DB) Decide(ctx context.Context, p *Pending, decision string, remember bool, channel, actor string, now time.Time) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE pending SET decision = ?, remember = ?, channel = ?, decided = ? WHERE id = ? AND decision IS NULL`,
		decision, remember, channel, now.UnixMilli(), p.ID)
	if err != nil {
		return fmt.Errorf("recording the decision on %s: %w", p.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("approval %s of run %s: %w", p.ID, p.RunID, ErrAlreadyDecided)
	}
	what := decision
	if remember {
		what += "_always"
		var conn any = p.Connection
		hash := p.DefHash
		if decision == "deny" {
			hash = ""
			if p.Connection == "" {
				conn = nil
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO decisions (address, connection, hash, mode, channel, at) VALUES (?, ?, ?, ?, ?, ?)`,
			p.Address, conn, hash, decision, channel, now.UnixMilli()); err != nil {
			return fmt.Errorf("remembering the decision on %s: %w", p.ID, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit (at, channel, actor, pending_id, run_id, address, decision, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		now.UnixMilli(), channel, actor, p.ID, p.RunID, p.Address, what, p.Connection); err != nil {
		return err
	}
	return tx.Commit()
}

// Audit adds e to the audit trail.
func (db *DB) Audit(ctx context.Context, e AuditEntry) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO audit (at, channel, actor, pending_id, run_id, address, decision, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		e.At.UnixMilli(), e.Channel, e.Actor, e.PendingID, e.RunID, e.Address, e.Decision, e.Detail)
	return err
}

// History returns the latest limit entries of the audit trail, newest
// first.
func (db *DB) History(ctx context.Context, limit int) ([]AuditEntry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT at, channel, actor, pending_id, run_id, address, decision, detail FROM audit ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&at, &e.Channel, &e.Actor, &e.PendingID, &e.RunID, &e.Address, &e.Decision, &e.Detail); err != nil {
			return nil, err
		}
		e.At = time.UnixMilli(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// DecisionRecord is one row of the audit trail.
type DecisionRecord struct {
	At       time.Time `json:"at"`
	Channel  string    `json:"channel"`
	Actor    string    `json:"actor,omitempty"`
	RunID    string    `json:"runId,omitempty"`
	Address  string    `json:"address,omitempty"`
	Decision string    `json:"decision"`
}

// Decisions returns the latest limit decisions of the audit trail as the
// local API, the CLI and the tray show them, newest first; limit <= 0
// is 50.
func (db *DB) Decisions(ctx context.Context, limit int) ([]DecisionRecord, error) {
	if limit <= 0 {
		limit = 50
	}
	entries, err := db.History(ctx, limit)
	if err != nil {
		return nil, err
	}
	var out []DecisionRecord
	for _, e := range entries {
		out = append(out, DecisionRecord{At: e.At, Channel: e.Channel, Actor: e.Actor, RunID: e.RunID, Address: e.Address, Decision: e.Decision})
	}
	return out, nil
}

// Remembered returns the remembered decisions, oldest first.
func (db *DB) Remembered(ctx context.Context) ([]Decision, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, address, connection, hash, mode, channel, at FROM decisions ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading remembered decisions: %w", err)
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		var d Decision
		var conn sql.NullString
		var at int64
		if err := rows.Scan(&d.ID, &d.Address, &conn, &d.Hash, &d.Mode, &d.Channel, &at); err != nil {
			return nil, fmt.Errorf("reading remembered decisions: %w", err)
		}
		d.At = time.UnixMilli(at)
		d.AllConnections, d.Connection = !conn.Valid, conn.String
		out = append(out, d)
	}
	return out, rows.Err()
}

// Forget deletes the remembered decisions for address; it reports how many
// there were.
func (db *DB) Forget(ctx context.Context, address string) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM decisions WHERE address = ?`, address)
	if err != nil {
		return 0, fmt.Errorf("forgetting decisions for %s: %w", address, err)
	}
	return res.RowsAffected()
}

// PinDecision gives remembered decision id, an allow migrated without a
// definition, the definition hash it holds for from now on. A decision
// pinned already keeps its definition.
func (db *DB) PinDecision(ctx context.Context, id int64, hash string) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE OR IGNORE decisions SET hash = ? WHERE id = ? AND hash = ''`, hash, id)
	return err
}

// PolicyOrigin is who last set a config rule through the hub (Channel:
// cli, window), and the mode they set.
type PolicyOrigin struct {
	Channel string
	Mode    string
}

// policyAudit prefixes the decision of an audit entry that records a rule
// set through the hub: policy_allow, policy_ask, policy_deny,
// policy_removed.
const policyAudit = "policy_"

// PolicyOrigins returns, per target, the origin of its config rule: the
// last audit entry whose decision is policy_<mode>.
func (db *DB) PolicyOrigins(ctx context.Context) (map[string]PolicyOrigin, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT address, channel, decision FROM audit WHERE decision LIKE 'policy\_%' ESCAPE '\' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading policy origins: %w", err)
	}
	defer rows.Close()
	out := map[string]PolicyOrigin{}
	for rows.Next() {
		var addr, channel, what string
		if err := rows.Scan(&addr, &channel, &what); err != nil {
			return nil, err
		}
		out[addr] = PolicyOrigin{Channel: channel, Mode: strings.TrimPrefix(what, policyAudit)}
	}
	return out, rows.Err()
}
