package hub

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/internal/proc"
	"capabilities.sh/capabilities/sandbox"
)

// runRow is one run as stored.
type runRow struct {
	ID       string
	Code     string
	Notices  []string
	Seed     uint64
	Clock    time.Time
	Status   string
	Attempts int
	// Engine and Prelude are the sandbox's hashes at the last attempt.
	Engine   string
	Prelude  string
	Client   string
	Envelope *Envelope
	Created  time.Time
	Updated  time.Time
}

// Journal states.
const (
	journalIssued  = "issued"
	journalOK      = "ok"
	journalError   = "error"
	journalPending = "pending"
	// journalRead is a hub.read that succeeded: its outcome is a readRef,
	// and a resume reads the handle again.
	journalRead = store.JournalRead
)

// Pending input kinds.
const (
	KindApproval   = "approval"
	KindConnection = "connection"
)

func newID(prefix string) string {
	var b [10]byte
	rand.Read(b[:])
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

func newSeed() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// The hub's runs, journals, pending inputs and audit trail are kept by
// hub/store. Every write is committed when its call returns, so each step
// survives a kill -9: on its own transaction, or, for journal entries, in
// the group Hub.journal commits. A journal entry is put without a context:
// a call that ends is journaled even when its run was cancelled.

// createRun stores a fresh run. A run stored while its first attempt runs
// is leased to this hub.
func (h *Hub) createRun(ctx context.Context, r *runRow) error {
	row := &store.Run{ID: r.ID, Code: r.Code, Notices: r.Notices, Seed: r.Seed, Clock: r.Clock, Status: r.Status, Attempts: r.Attempts,
		Client: r.Client, Engine: r.Engine, Prelude: r.Prelude, Created: r.Created, Updated: r.Updated}
	if r.Envelope != nil {
		row.Envelope, _ = json.Marshal(r.Envelope)
	}
	var lease store.Lease
	if r.Status == StatusRunning {
		lease = store.Lease{Owner: h.owner, Until: r.Updated.Add(h.lease)}
	}
	err := h.db.CreateRun(ctx, row, lease)
	if err == nil { // counted for retention: a direct-mode call's code holds its arguments
		h.stored.add(int64(len(row.Code) + len(row.Envelope)))
	}
	return err
}

// ErrNoRun reports a run the hub does not hold.
var ErrNoRun = store.ErrNoRun

// ErrNoPending reports a pending approval or connection input the hub does
// not hold. Errors matching it are *[NoPendingError].
var ErrNoPending = store.ErrNoPending

// NoPendingError names the pending input the hub does not hold. It matches
// [ErrNoPending].
type NoPendingError struct{ ID string }

func (e *NoPendingError) Error() string { return fmt.Sprintf("no pending approval %q", e.ID) }

// Is makes errors.Is(err, ErrNoPending) hold.
func (e *NoPendingError) Is(target error) bool { return target == ErrNoPending }

func (h *Hub) loadRun(ctx context.Context, id string) (*runRow, error) {
	row, err := h.db.LoadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	return runRowOf(row)
}

// runRowOf is the hub's run of a stored one.
func runRowOf(row *store.Run) (*runRow, error) {
	r := &runRow{ID: row.ID, Code: row.Code, Notices: row.Notices, Seed: row.Seed, Clock: row.Clock, Status: row.Status, Attempts: row.Attempts,
		Engine: row.Engine, Prelude: row.Prelude, Client: row.Client, Created: row.Created, Updated: row.Updated}
	if row.Envelope != nil {
		r.Envelope = &Envelope{}
		if err := json.Unmarshal(row.Envelope, r.Envelope); err != nil {
			return nil, fmt.Errorf("loading run %s: envelope: %w", row.ID, err)
		}
	}
	return r, nil
}

// finishAttempt stores the envelope of an attempt and ends this hub's lease
// on the run. When another hub took the run over (this hub's lease ended
// first), its attempt is the one stored, and this envelope is not.
func (h *Hub) finishAttempt(ctx context.Context, id string, env *Envelope, now time.Time) error {
	b, _ := json.Marshal(env)
	_, err := h.db.FinishRun(ctx, id, h.owner, env.Status, b, now)
	return err
}

func (h *Hub) pendingByID(ctx context.Context, id string) (*store.Pending, error) {
	p, err := h.db.PendingByID(ctx, id)
	if errors.Is(err, store.ErrNoPending) {
		return nil, &NoPendingError{ID: id}
	}
	return p, err
}

// ErrAlreadyDecided reports a decision on an input someone already decided.
var ErrAlreadyDecided = store.ErrAlreadyDecided

// A run's attempts, across processes.
//
// One hub process attempts a run at a time. Within a process the run's lock
// (runLocks) serialises attempts; across processes (the tray hub and an
// embedded one, or a CLI that opened the home) the attempt leases the run
// in the store first, and a second process's resume is refused while the
// lease holds. An approved call that must not be repeated is also claimed
// in the store before it is sent, once: even an attempt whose lease ran out
// under it cannot send a call another attempt claimed.

// RunBusyError reports a run that another hub process is attempting now.
type RunBusyError struct {
	RunID string
	PID   int // 0 when unknown
	Until time.Time
}

func (e *RunBusyError) Error() string {
	who := "another hub process"
	if e.PID > 0 {
		who = fmt.Sprintf("another hub process (pid %d)", e.PID)
	}
	return fmt.Sprintf("run %s is being resumed by %s on this home, until %s at the latest; call execute({ \"resume\": %q }) again after it ends, or point this client at the running hub ('capabilities mcp')",
		e.RunID, who, e.Until.Local().Format(time.TimeOnly), e.RunID)
}

// newOwner names a hub in run leases: its process, and a random part so two
// hubs of one process (tests) are told apart.
func newOwner() string { return fmt.Sprintf("%d/%s", os.Getpid(), newID("")) }

// ownerPID is the process of a lease owner, 0 when it does not name one.
func ownerPID(owner string) int {
	pid, _, ok := strings.Cut(owner, "/")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(pid)
	if err != nil {
		return 0
	}
	return n
}

// ownerAlive reports whether the hub that holds a lease may still run: its
// process exists (a hub of this process counts as alive; its lease ends by
// time).
func ownerAlive(owner string) bool {
	pid := ownerPID(owner)
	if pid <= 0 || pid == os.Getpid() {
		return true
	}
	return proc.Alive(pid)
}

// claimRun leases run id to this hub for one attempt, or returns a
// *RunBusyError when another live hub holds it. A run claimed and not
// attempted is released (store.DB.ReleaseRun); finishAttempt ends the
// lease otherwise.
func (h *Hub) claimRun(ctx context.Context, id string, now time.Time) error {
	ok, held, err := h.db.ClaimRun(ctx, id, h.owner, now, now.Add(h.lease), ownerAlive)
	if errors.Is(err, store.ErrNoRun) {
		return ErrNoRun
	}
	if err != nil {
		return err
	}
	if !ok {
		return &RunBusyError{RunID: id, PID: ownerPID(held.Owner), Until: held.Until}
	}
	return nil
}

// claimApproved claims an approved call that must not be repeated before
// it is sent. It returns the call's *sandbox.ToolError when another attempt
// claimed it first: that attempt sent it, or may have.
func (r *runHost) claimApproved(ctx context.Context, c sandbox.Call, tool *catalog.Tool, p *store.Pending) error {
	if p == nil || p.Decision != "allow" || repeatable(tool) {
		return nil
	}
	ok, err := r.h.db.ClaimPending(context.WithoutCancel(ctx), p.ID, r.h.owner, r.h.now())
	if err != nil {
		return err
	}
	if !ok {
		return toolError(CodeInterrupted, c.Address, "call %d was already sent by another attempt of this run; it was not sent again because %s is neither read-only nor idempotent", c.Seq, c.Address)
	}
	return nil
}
