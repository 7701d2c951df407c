package hub

// Group commit of the journal.
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
// when put returns as with a transaction of its own (WAL,
// synchronous=NORMAL: it survives kill -9).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/store"
)

// maxJournalGroup bounds one transaction, so a burst of calls does not
// hold the write lock (and the callers in the group) for long.
const maxJournalGroup = 256

var errJournalClosed = errors.New("the journal is closed")

// errJournalLead tells a waiting caller to commit the queue.
var errJournalLead = errors.New("commit the queued journal entries")

const journalUpsert = `INSERT INTO journal (run_id, seq, address, connection, args_hash, state, outcome, ms, started, fired)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (run_id, seq) DO UPDATE SET state = excluded.state, outcome = excluded.outcome, ms = excluded.ms,
		fired = coalesce(excluded.fired, journal.fired)`

// journalWriter commits journal entries in groups.
//
// Concurrency: put is safe for concurrent use and returns once its entry
// is committed, or with the error that kept it out. Commits run on the
// callers' goroutines, one group at a time. After close, put fails with
// errJournalClosed; entries already queued are still committed.
type journalWriter struct {
	db     *store.DB
	upsert *sql.Stmt // shared; the store closes it

	mu      sync.Mutex
	queue   []*journalWrite // waiting for the next group, oldest first
	leading bool            // a caller is committing; it hands over to queue[0]
	closed  bool
}

type journalWrite struct {
	runID string
	entry *journalEntry
	at    time.Time
	err   chan error // buffered: the result, or errJournalLead
}

func newJournalWriter(ctx context.Context, db *store.DB) (*journalWriter, error) {
	upsert, err := db.Prepared(ctx, journalUpsert)
	if err != nil {
		return nil, fmt.Errorf("preparing the journal: %w", err)
	}
	return &journalWriter{db: db, upsert: upsert}, nil
}

// put commits e as the journal entry of call e.Seq of run runID, replacing
// the state, outcome and duration of an earlier entry of the same call.
func (w *journalWriter) put(runID string, e *journalEntry, at time.Time) error {
	req := &journalWrite{runID: runID, entry: e, at: at, err: make(chan error, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errJournalClosed
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

func (w *journalWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// commit writes a group and answers each of its callers. When the group
// fails, each entry is written again on its own, so one bad entry (a run
// deleted meanwhile) fails only its own call.
func (w *journalWriter) commit(group []*journalWrite) {
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

func (w *journalWriter) write(group []*journalWrite) error {
	// The callers already chose not to be cancelled: entries are written
	// even when their run ends.
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journaling: %w", err)
	}
	defer tx.Rollback()
	stmt := tx.StmtContext(ctx, w.upsert)
	for _, req := range group {
		e := req.entry
		if _, err := stmt.ExecContext(ctx, req.runID, e.Seq, e.Address, e.Connection, e.ArgsHash, e.State, nullable(e.Outcome), e.Ms, req.at.UnixMilli(), nullable(e.Fired)); err != nil {
			return fmt.Errorf("journaling call %d of run %s: %w", e.Seq, req.runID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journaling: %w", err)
	}
	return nil
}
