package store

// The journal: every tool call of a run, numbered when the code issued it,
// and its group commit.
//
// Every live tool call commits its outcome before the guest sees it, and a
// call that must not be repeated (neither read-only nor idempotent) also
// commits "issued" before it leaves the hub. Committed one transaction each
// from many calls at once, they would queue on SQLite's single write lock,
// whose busy handler sleeps a millisecond or more at a time.
// Instead the journal's writes go one group at a time: a caller that finds
// no commit under way commits its entry itself, with a statement prepared
// once; entries put while a commit is under way wait, and the first of them
// then commits all of them in one transaction. Each caller returns after
// the commit of the group its entry went into, so an entry is as durable
// when Put returns as with a transaction of its own (WAL,
// synchronous=NORMAL: it survives kill -9).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// JournalEntry is one journaled tool call.
type JournalEntry struct {
	Seq        int
	Address    string
	Connection string
	ArgsHash   string
	State      string // issued | ok | error | pending | read (JournalRead)
	Outcome    json.RawMessage
	Ms         int64
	// Fired is where the run's timers had fired while calls were in flight
	// when the code issued this call (the sandbox's record, as JSON), kept
	// on the entries that add firings to the ones before. A Put without it
	// keeps what the call's entry holds.
	Fired json.RawMessage
	// Args are the call's arguments as kept for a person (KeepArgs:
	// scrubbed by the caller, compact, cut to MaxArgsBytes); "" when they
	// were not recorded. A Put without them keeps what the entry holds.
	// ArgsCut says ReadJournal found them cut: Args is then the start, and
	// the mark that says so is left out.
	Args    string
	ArgsCut bool
}

// maxJournalGroup bounds one transaction, so a burst of calls does not
// hold the write lock (and the callers in the group) for long.
const maxJournalGroup = 256

// ErrJournalClosed reports a Put after Close.
var ErrJournalClosed = errors.New("the journal is closed")

// errJournalLead tells a waiting caller to commit the queue.
var errJournalLead = errors.New("commit the queued journal entries")

const journalUpsert = `INSERT INTO journal (run_id, seq, address, connection, args_hash, state, outcome, ms, started, fired, args)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (run_id, seq) DO UPDATE SET address = excluded.address, connection = excluded.connection, args_hash = excluded.args_hash,
		state = excluded.state, outcome = excluded.outcome, ms = excluded.ms, fired = coalesce(excluded.fired, journal.fired),
		args = coalesce(excluded.args, journal.args)`

// Journal commits journal entries in groups.
//
// Concurrency: Put is safe for concurrent use and returns once its entry
// is committed, or with the error that kept it out. Commits run on the
// callers' goroutines, one group at a time. After Close, Put fails with
// ErrJournalClosed; entries already queued are still committed.
type Journal struct {
	db     *DB
	upsert *sql.Stmt // shared; the store closes it

	mu      sync.Mutex
	queue   []*journalWrite // waiting for the next group, oldest first
	leading bool            // a caller is committing; it hands over to queue[0]
	closed  bool
}

type journalWrite struct {
	runID string
	entry *JournalEntry
	at    time.Time
	err   chan error // buffered: the result, or errJournalLead
}

// NewJournal returns the journal's writer over db. Closing db ends it too.
func (db *DB) NewJournal(ctx context.Context) (*Journal, error) {
	upsert, err := db.prepared(ctx, journalUpsert)
	if err != nil {
		return nil, fmt.Errorf("preparing the journal: %w", err)
	}
	return &Journal{db: db, upsert: upsert}, nil
}

// Put commits e as the journal entry of call e.Seq of run runID, replacing
// the state, outcome and duration of an earlier entry of the same call; at
// is when the call started. It is not cancellable: a call that ends is
// journaled even when its run was cancelled.
func (w *Journal) Put(runID string, e *JournalEntry, at time.Time) error {
	req := &journalWrite{runID: runID, entry: e, at: at, err: make(chan error, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrJournalClosed
	}
	w.queue = append(w.queue, req)
	lead := !w.leading
	w.leading = true
	w.mu.Unlock()
	if !lead {
		// A commit is under way: the group after it takes this entry.
		if err := <-req.err; err != errJournalLead {
			return err
		}
	}
	// Leading, req is first in the queue: commit it with everyone who
	// queued behind it, then hand over to whoever queued meanwhile.
	w.mu.Lock()
	n := min(len(w.queue), maxJournalGroup)
	group := w.queue[:n:n]
	w.queue = w.queue[n:]
	if len(w.queue) == 0 {
		w.queue = nil // let the group's array go
	}
	w.mu.Unlock()
	w.commit(group)
	w.mu.Lock()
	if len(w.queue) > 0 {
		w.queue[0].err <- errJournalLead
	} else {
		w.leading = false
	}
	w.mu.Unlock()
	return <-req.err
}

// Close makes later Puts fail with ErrJournalClosed. It may be called more
// than once.
func (w *Journal) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// commit writes a group and answers each of its callers. When the group
// fails, each entry is written again on its own, so one bad entry (a run
// deleted meanwhile) fails only its own call.
func (w *Journal) commit(group []*journalWrite) {
	err := w.write(group)
	if err != nil && len(group) > 1 {
		for _, req := range group {
			req.err <- w.write([]*journalWrite{req})
		}
		return
	}
	for _, req := range group {
		req.err <- err
	}
}

// write commits a group. A group of one entry, what a run making one call
// at a time puts, is one statement in a transaction of its own (a write
// statement takes the write lock as it starts, as BEGIN IMMEDIATE does),
// which spares the BEGIN and COMMIT statements their round trips.
func (w *Journal) write(group []*journalWrite) error {
	// The callers already chose not to be cancelled: entries are written
	// even when their run ends.
	ctx := context.Background()
	if len(group) == 1 {
		return upsertEntry(ctx, w.upsert, group[0])
	}
	tx, err := w.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journaling: %w", err)
	}
	defer tx.Rollback()
	stmt := tx.StmtContext(ctx, w.upsert)
	for _, req := range group {
		if err := upsertEntry(ctx, stmt, req); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journaling: %w", err)
	}
	return nil
}

// upsertEntry writes one entry with the journal's upsert statement.
func upsertEntry(ctx context.Context, stmt *sql.Stmt, req *journalWrite) error {
	e := req.entry
	if _, err := stmt.ExecContext(ctx, req.runID, e.Seq, e.Address, e.Connection, e.ArgsHash, e.State, nullable(e.Outcome), e.Ms, req.at.UnixMilli(), nullable(e.Fired), nullableText(e.Args)); err != nil {
		return fmt.Errorf("journaling call %d of run %s: %w", e.Seq, req.runID, err)
	}
	return nil
}

// ReadJournal returns the journal of run runID, by call.
func (db *DB) ReadJournal(ctx context.Context, runID string) (map[int]*JournalEntry, error) {
	rows, err := db.query(ctx, `SELECT seq, address, connection, args_hash, state, outcome, ms, fired, args FROM journal WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("reading the journal of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := map[int]*JournalEntry{}
	for rows.Next() {
		var e JournalEntry
		var outcome, fired, args sql.NullString
		if err := rows.Scan(&e.Seq, &e.Address, &e.Connection, &e.ArgsHash, &e.State, &outcome, &e.Ms, &fired, &args); err != nil {
			return nil, err
		}
		if outcome.Valid {
			e.Outcome = json.RawMessage(outcome.String)
		}
		if fired.Valid {
			e.Fired = json.RawMessage(fired.String)
		}
		e.Args, e.ArgsCut = splitArgs(args.String)
		out[e.Seq] = &e
	}
	return out, rows.Err()
}

// nullableText is s as a TEXT value, NULL when it is "".
func nullableText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullable is b as a TEXT value, NULL when b is nil.
func nullable(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}
