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
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
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

// runStore is the hub's access to runs, journals, pending inputs and the
// audit trail. Every write is committed when its method returns, so each
// step survives a kill -9: on its own transaction, or, for journal entries,
// in the group the journal commits.
type runStore struct {
	db       *store.DB
	journalW *store.Journal
	// owner names this hub in run leases ("pid/random"); lease is how long
	// one attempt's lease lasts.
	owner string
	lease time.Duration
}

func (s runStore) createRun(ctx context.Context, r *runRow) error {
	row := &store.Run{ID: r.ID, Code: r.Code, Notices: r.Notices, Seed: r.Seed, Clock: r.Clock, Status: r.Status, Attempts: r.Attempts,
		Client: r.Client, Engine: r.Engine, Prelude: r.Prelude, Created: r.Created, Updated: r.Updated}
	if r.Envelope != nil {
		row.Envelope, _ = json.Marshal(r.Envelope)
	}
	// A run stored while its first attempt runs is leased to this hub.
	var lease store.Lease
	if r.Status == StatusRunning {
		lease = store.Lease{Owner: s.owner, Until: r.Updated.Add(s.lease)}
	}
	return s.db.CreateRun(ctx, row, lease)
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

func (s runStore) loadRun(ctx context.Context, id string) (*runRow, error) {
	row, err := s.db.LoadRun(ctx, id)
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

func (s runStore) startAttempt(ctx context.Context, id string, now time.Time, engine, prelude string) error {
	return s.db.StartAttempt(ctx, id, StatusRunning, engine, prelude, now)
}

// finishAttempt stores the envelope of an attempt and ends this hub's lease
// on the run. When another hub took the run over (this hub's lease ended
// first), its attempt is the one stored, and this envelope is not.
func (s runStore) finishAttempt(ctx context.Context, id string, env *Envelope, now time.Time) error {
	b, _ := json.Marshal(env)
	_, err := s.db.FinishRun(ctx, id, s.owner, env.Status, b, now)
	return err
}

func (s runStore) journal(ctx context.Context, runID string) (map[int]*store.JournalEntry, error) {
	return s.db.ReadJournal(ctx, runID)
}

// putJournal commits a call's journal entry. It is not cancellable: a call
// that ends is journaled even when its run was cancelled.
func (s runStore) putJournal(runID string, e *store.JournalEntry, now time.Time) error {
	return s.journalW.Put(runID, e, now)
}

func (s runStore) putPending(ctx context.Context, p *store.Pending) error {
	return s.db.PutPending(ctx, p)
}

func (s runStore) pendingOf(ctx context.Context, runID string) ([]*store.Pending, error) {
	return s.db.PendingOf(ctx, runID)
}

func (s runStore) pendingByID(ctx context.Context, id string) (*store.Pending, error) {
	p, err := s.db.PendingByID(ctx, id)
	if errors.Is(err, store.ErrNoPending) {
		return nil, &NoPendingError{ID: id}
	}
	return p, err
}

func (s runStore) pendingAt(ctx context.Context, runID string, seq int) (*store.Pending, error) {
	return s.db.PendingAt(ctx, runID, seq)
}

// openPending lists undecided inputs, oldest first.
func (s runStore) openPending(ctx context.Context) ([]*store.Pending, error) {
	return s.db.OpenPending(ctx)
}

// ErrAlreadyDecided reports a decision on an input someone already decided.
var ErrAlreadyDecided = store.ErrAlreadyDecided

// decide records a decision on an open pending input, its audit row and,
// with remember, the remembered decision, all in one transaction. A
// remembered allow holds for the approval's address, connection and
// definition; a remembered deny for the address on the approval's
// connection (every connection when the source has none). Deciding an input
// twice fails with ErrAlreadyDecided.
func (s runStore) decide(ctx context.Context, p *store.Pending, decision string, remember bool, channel, actor string, now time.Time) error {
	return s.db.Decide(ctx, p, decision, remember, channel, actor, now)
}

// redeemState uses up the signed input-request state nonce of a pending
// input: true once, for the last state signed for it, while it is
// undecided.
func (s runStore) redeemState(ctx context.Context, pendingID, nonce string) (bool, error) {
	return s.db.RedeemStateNonce(ctx, pendingID, nonce)
}

func (s runStore) audit(ctx context.Context, channel, actor, runID, address, decision, detail string, now time.Time) error {
	return s.db.Audit(ctx, store.AuditEntry{At: now, Channel: channel, Actor: actor, RunID: runID, Address: address, Decision: decision, Detail: detail})
}

// remembered returns the remembered decisions as rules.
func (s runStore) remembered(ctx context.Context) ([]policy.Rule, error) {
	ds, err := s.db.Remembered(ctx)
	if err != nil {
		return nil, err
	}
	var out []policy.Rule
	for _, d := range ds {
		out = append(out, policy.Rule{ID: d.ID, Target: d.Address, Hash: d.Hash, From: d.Channel, Mode: config.Mode(d.Mode), Remembered: true, At: d.At,
			AllConnections: d.AllConnections, Connection: d.Connection})
	}
	return out, nil
}

// forget deletes the remembered decisions for address; it reports how many
// there were.
func (s runStore) forget(ctx context.Context, address string) (int64, error) {
	return s.db.Forget(ctx, address)
}

// pinDecision gives a remembered allow that was migrated without a
// definition the one it holds for now.
func (s runStore) pinDecision(ctx context.Context, id int64, hash string) error {
	return s.db.PinDecision(ctx, id, hash)
}

// dropPending deletes a pending input the call no longer waits for, so it
// can ask anew.
func (s runStore) dropPending(ctx context.Context, id string) error {
	return s.db.DropPending(ctx, id)
}

// policyOrigins returns, per target, who last set a config rule through
// the hub (cli, window) and the mode they set.
func (s runStore) policyOrigins(ctx context.Context) (map[string][2]string, error) {
	origins, err := s.db.PolicyOrigins(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][2]string, len(origins))
	for addr, o := range origins {
		out[addr] = [2]string{o.Channel, o.Mode}
	}
	return out, nil
}

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
// *RunBusyError when another live hub holds it.
func (s runStore) claimRun(ctx context.Context, id string, now time.Time) error {
	ok, held, err := s.db.ClaimRun(ctx, id, s.owner, now, now.Add(s.lease), ownerAlive)
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

// releaseRun ends this hub's lease on a run it claimed and did not attempt
// (finishAttempt ends it otherwise). It is a no-op when the lease is gone.
func (s runStore) releaseRun(id string) {
	s.db.ReleaseRun(context.Background(), id, s.owner)
}

// claimApproved claims an approved call that must not be repeated before
// it is sent. It returns the call's *sandbox.ToolError when another attempt
// claimed it first: that attempt sent it, or may have.
func (r *runHost) claimApproved(ctx context.Context, c sandbox.Call, tool *catalog.Tool, p *store.Pending) error {
	if p == nil || p.Decision != "allow" || repeatable(tool) {
		return nil
	}
	ok, err := r.h.db.ClaimPending(context.WithoutCancel(ctx), p.ID, r.h.runs.owner, r.h.now())
	if err != nil {
		return err
	}
	if !ok {
		return toolError(CodeInterrupted, c.Address, "call %d was already sent by another attempt of this run; it was not sent again because %s is neither read-only nor idempotent", c.Seq, c.Address)
	}
	return nil
}
