package hub

// Plans: one decision for every call a run would make that needs consent.
//
// When a run reaches a call the gate asks about, the call is not sent and
// the run does not stop there: the host plans it (sandbox.Planned), the
// code gets a placeholder for its result and goes on, and every later call
// that needs consent is planned the same way. Calls the gate allows before
// the first planned call run and are journaled as usual, so the real run
// replays them. After it, a write the gate allows is not sent (it gets a
// placeholder), and a read-only one is sent but not journaled: it saw the
// state before the planned calls, so the real run sends it again rather
// than replay it (runHost.ahead). A call policy denies is denied, and
// while planning it is not journaled (its arguments may hold
// placeholders), so the real run meets the same deny. Planning
// ends when the code returns, needs a placeholder's actual value, or
// reaches a limit; the run then waits with every planned call as a pending
// approval, in order, with where planning stopped.
//
// A planned call's pending row has seq -N, N being the call's seq while
// planning, so it never stands for a call of the journal; store.PlanEntry
// holds its symbolic arguments (when they use an earlier planned call's
// result), whether its connection lacked a secret, and the code and
// journal position the plan is bound to.
//
// On resume the real run is held to the plan: a call that needs consent
// runs without asking only if it matches the next unused entry (address,
// connection, definition, and arguments equal as canonical JSON once the
// symbols are resolved with the results the real calls they stand for
// returned), and each entry is used once (store.DB.UsePlanned). Anything
// else drops what is left of the plan and plans the rest of the code again
// from that call.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/sandbox"
)

// journalPlanned is the journal state of a call that was planned and not
// sent. A call of the real run at its seq takes its place, whatever it is:
// the plan, not the journal, holds the real run to the planned call.
const journalPlanned = "planned"

// runPlan is one attempt's view of its run's plan. Safe for concurrent
// use: a run's calls may reach the host at once.
type runPlan struct {
	code    string // hash of the run's code
	journal int    // the highest seq the journal held when the attempt began

	mu sync.Mutex
	// entries are the stored plan's calls, by their seq while planning.
	entries []*store.Pending
	// results are the results of calls of this attempt that used an entry,
	// by seq, for the symbols of later entries.
	results map[int]json.RawMessage
	journ   map[int]*store.JournalEntry
	// planning is set once this attempt plans: every later call that needs
	// consent is planned too.
	planning bool
	first    int  // the lowest seq this attempt planned, 0 before it plans
	dropped  bool // the stored plan was dropped when this attempt began planning
	made     []*store.Pending
	denied   []store.PlanDenied
}

// codeHash is what a plan is bound to of its run's code.
func codeHash(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:16])
}

// loadPlan is an attempt's plan: the planned calls among the run's pending
// rows (none for a fresh run). Entries bound to other code are left out,
// and dropped when the attempt plans.
func (h *Hub) loadPlan(run *runRow, journal map[int]*store.JournalEntry, pending []*store.Pending) *runPlan {
	pl := &runPlan{code: codeHash(run.Code), results: map[int]json.RawMessage{}, journ: journal}
	for seq, e := range journal {
		if e.State != journalPlanned {
			pl.journal = max(pl.journal, seq)
		}
	}
	for _, p := range pending {
		if p.Plan != nil && p.Kind == KindApproval && p.Plan.Code == pl.code {
			pl.entries = append(pl.entries, p)
		}
	}
	sort.Slice(pl.entries, func(i, j int) bool { return pl.entries[i].Seq > pl.entries[j].Seq })
	return pl
}

// plannedSeq is the seq a planned call had while planning.
func plannedSeq(p *store.Pending) int { return -p.Seq }

// fromPlan settles a call the gate asks about against the plan. It returns
// nil when the call matches the next unused entry and the person allowed
// it (the entry is used), the denial when they denied it, and otherwise
// plans the call (*sandbox.Planned), dropping what is left of the stored
// plan first.
func (r *runHost) fromPlan(ctx context.Context, c sandbox.Call, hash string, rc *resolvedCall, dec policy.Decision, missing bool) error {
	pl := r.plan
	pl.mu.Lock()
	e := pl.next(c.Seq)
	ok := !pl.planning && !c.Symbolic && !missing && e != nil && r.matches(e, c, hash, rc)
	if ok {
		e.Plan.Used = c.Seq // held here until the store says otherwise
	}
	pl.mu.Unlock()
	if !ok {
		return r.planCall(ctx, c, hash, rc, dec, missing)
	}
	used, err := r.h.db.UsePlanned(context.WithoutCancel(ctx), e.ID, c.Seq)
	if err != nil {
		return err
	}
	if !used {
		return toolError(CodeInterrupted, c.Address, "call %d was already sent by another attempt of this run; it was not sent again", c.Seq)
	}
	switch e.Decision {
	case "deny":
		return toolError(CodeDenied, c.Address, "the person declined %s when asked (decided in the %s)", c.Address, policy.ChannelWords(e.Channel))
	case "allow":
		return nil // matches checked the definition
	}
	return &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: KindApproval, Detail: e}
}

// next is the entry call seq is held to: the unused entry planned as call
// seq (the real run, deterministic, issues its calls with the seqs they
// had while planning, though calls in flight together may reach the host
// in another order), else the first entry no call used yet. The caller
// holds pl.mu.
func (pl *runPlan) next(seq int) *store.Pending {
	var first *store.Pending
	for _, e := range pl.entries {
		if e.Plan.Used != 0 {
			continue
		}
		if plannedSeq(e) == seq {
			return e
		}
		if first == nil {
			first = e
		}
	}
	return first
}

// planMatches reports whether call c would run on the plan: this attempt
// does not plan, and c matches the entry it is held to.
func (r *runHost) planMatches(c sandbox.Call, hash string, rc *resolvedCall) bool {
	pl := r.plan
	pl.mu.Lock()
	defer pl.mu.Unlock()
	e := pl.next(c.Seq)
	return !pl.planning && e != nil && r.matches(e, c, hash, rc)
}

// matches reports whether call c is entry e: the same address, connection
// and definition, and the same arguments once e's symbols stand for the
// results of the calls that used the entries they name. The caller holds
// r.plan.mu.
func (r *runHost) matches(e *store.Pending, c sandbox.Call, hash string, rc *resolvedCall) bool {
	if e.Decision == "" || e.Address != c.Address || e.Connection != rc.conn || c.Seq <= e.Plan.Journal {
		return false
	}
	if e.DefHash != rc.tool.Hash && (e.DefHash != "" || rc.tool.Changed()) {
		return false
	}
	if e.Plan.Args == nil {
		return e.ArgsHash == hash
	}
	resolved, err := sandbox.Resolve(e.Plan.Args, r.plan.symbolValue)
	if err != nil || resolved == nil {
		return false
	}
	return exactjson.Hash(resolved) == hash
}

// symbolValue is the value a symbol stands for in the real run: the value
// at its path in the result of the call that used the entry planned as
// call s.Call. The caller holds pl.mu.
func (pl *runPlan) symbolValue(s sandbox.Symbol) (json.RawMessage, bool) {
	for _, e := range pl.entries {
		if plannedSeq(e) != s.Call || e.Plan.Used == 0 {
			continue
		}
		res, ok := pl.results[e.Plan.Used]
		if !ok {
			je := pl.journ[e.Plan.Used]
			if je == nil || je.State != journalOK {
				return nil, false
			}
			res = je.Outcome
		}
		return sandbox.At(res, s.Path)
	}
	return nil, false
}

// keep holds the result of call seq when it used an entry of the plan, for
// the symbols of the entries after it.
func (pl *runPlan) keep(seq int, val json.RawMessage) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for _, e := range pl.entries {
		if e.Plan.Used == seq {
			pl.results[seq] = val
			return
		}
	}
}

// planCall records call c as planned, a pending approval of the run, and
// returns *sandbox.Planned.
func (r *runHost) planCall(ctx context.Context, c sandbox.Call, hash string, rc *resolvedCall, dec policy.Decision, missing bool) error {
	if err := r.startPlanning(ctx); err != nil {
		return err
	}
	h := r.h
	p := r.newPending(c, hash, KindApproval, rc.conn, dec.Reason)
	p.Seq = -c.Seq
	p.DefHash, p.Change = rc.tool.Hash, dec.Change
	p.Plan = &store.PlanEntry{Missing: missing, Code: r.plan.code, Journal: r.plan.journal}
	if c.Symbolic {
		p.Plan.Args = h.secrets.ScrubJSON(c.Args)
		p.Preview = sandbox.ShowSymbols(c.Args, secrets.Redactor{Known: h.knownSecrets()}.Preview)
	}
	if err := r.putPending(ctx, p); err != nil {
		return err
	}
	if !c.Symbolic {
		// Journaled as planned, as a call waiting for a person is journaled
		// as pending: the real run's call at this seq takes its place.
		e := &store.JournalEntry{Seq: c.Seq, Address: c.Address, Connection: c.Connection, ArgsHash: hash, State: journalPlanned, Fired: r.firedToKeep(c), Args: r.argsToKeep(c)}
		if err := r.put(e, h.now()); err != nil {
			return err
		}
	}
	r.plan.mu.Lock()
	r.plan.made = append(r.plan.made, p)
	if r.plan.first == 0 || c.Seq < r.plan.first {
		r.plan.first = c.Seq
	}
	r.plan.mu.Unlock()
	return &sandbox.Planned{}
}

// startPlanning turns the attempt to planning, once, and drops the stored
// plan: from here on the run is planned anew.
func (r *runHost) startPlanning(ctx context.Context) error {
	pl := r.plan
	pl.mu.Lock()
	pl.planning = true
	drop := !pl.dropped && len(pl.entries) > 0
	pl.dropped = true
	pl.mu.Unlock()
	if !drop {
		return nil
	}
	if err := r.h.db.DropPlan(context.WithoutCancel(ctx), r.run.ID); err != nil {
		return err
	}
	pl.mu.Lock()
	pl.entries = nil
	pl.mu.Unlock()
	return nil
}

// after reports whether call seq follows a call this attempt planned: such
// a call is answered by ahead, whatever policy says of it.
func (pl *runPlan) after(seq int) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.first > 0 && seq > pl.first
}

// ahead answers call c, which policy lets run without asking and which
// follows a call this attempt planned. Nothing of it is journaled: the
// real run makes it again in its turn, after the planned calls before it.
//
// A write is not sent, since it would go out before the planned calls
// ahead of it: the code gets a placeholder. A read-only call is sent, so
// the code can plan on its result (a loop that reads, then writes what it
// read, is planned whole instead of stopping at the first read), and that
// result is the upstream's state before the planned calls: the real run
// must not replay it, so it is not journaled, and the real run reads again
// and works on what the planned calls left. A read is then sent twice in
// the run; its source said it changes nothing (annotations.readOnlyHint),
// which is what lets policy run it without asking in the first place. Where
// the state the planned calls leave makes the code take another path than
// planning took on the earlier state, its calls no longer match the plan:
// they are asked about, and nothing runs that the person did not see.
//
// A read whose arguments hold placeholders, whose source could not be
// listed, or which fails, gets a placeholder too: the real run meets its
// outcome in its turn.
func (r *runHost) ahead(ctx context.Context, c sandbox.Call, rc *resolvedCall, listErr error) (json.RawMessage, error) {
	t := rc.tool
	r.order.Settle(c.Seq)
	if c.Symbolic || listErr != nil || t.Annotations == nil || !t.Annotations.ReadOnlyHint || r.validateArgs(t, c.Args) != nil {
		return nil, &sandbox.Planned{}
	}
	h := r.h
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, h.upTimeout)
	res, err := h.up.CallListed(cctx, t.Source, rc.conn, t.Name, c.Args, t.Request)
	cancel()
	if err != nil || res.IsError {
		return nil, &sandbox.Planned{}
	}
	val, err := upstream.ResultValue(res)
	if err != nil {
		return nil, &sandbox.Planned{}
	}
	r.record(c.Seq, c.Address, true, time.Since(start).Milliseconds())
	return h.secrets.ScrubJSON(val), nil
}

// deny is the outcome of a call policy denies. While the attempt plans it
// is in the plan as denied and is not journaled: its arguments may hold
// placeholders, and the real run meets the same deny.
func (r *runHost) deny(c sandbox.Call, hash string, rc *resolvedCall, dec policy.Decision) (json.RawMessage, error) {
	te := toolError(CodeDenied, c.Address, "%s is denied: %s", c.Address, dec.Reason)
	pl := r.plan
	pl.mu.Lock()
	planning := pl.planning
	pl.mu.Unlock()
	if planning {
		d := store.PlanDenied{Seq: c.Seq, Address: c.Address, Connection: rc.conn, Reason: dec.Reason,
			Preview: sandbox.ShowSymbols(c.Args, secrets.Redactor{Known: r.h.knownSecrets()}.Preview)}
		pl.mu.Lock()
		pl.denied = append(pl.denied, d)
		pl.mu.Unlock()
	}
	if planning || c.Symbolic {
		return nil, r.refuse(c, te)
	}
	return r.finish(c, hash, nil, te, 0)
}

// planned turns an attempt that planned calls into the run's pause: the
// envelope waits for approval with every planned call as a pending item,
// in order, and where planning stopped as a notice; the plan as a whole is
// stored. An attempt that failed drops the calls it planned.
func (h *Hub) planned(ctx context.Context, run *runRow, host *runHost, out sandbox.Outcome, env *Envelope) error {
	pl := host.plan
	pl.mu.Lock()
	made := slices.Clone(pl.made)
	denied := slices.Clone(pl.denied)
	pl.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	stop := ""
	if out.Stop != nil {
		stop = out.Stop.Message
	}
	switch {
	case env.Status == StatusFailed && len(made) > 0 && env.Error != nil && planEndsAt[env.Error.Code]:
		// The code failed, or reached a limit, past its first planned call:
		// planning ends there, and the plan says so. The real run gets its
		// own attempt, with its limits, and fails there too if the failure
		// was the code's own.
		stop = fmt.Sprintf("planning ended where the run failed (%s: %s)", env.Error.Code, env.Error.Message)
	case env.Status == StatusFailed || env.Status == StatusCancelled:
		if len(made) > 0 {
			return h.db.DropPlan(ctx, run.ID)
		}
		return nil
	case len(made) == 0 && out.Status == sandbox.StatusPlanned:
		// A placeholder can only come from a call that needs consent, and
		// each such call is in made: this is a bug, not the code's.
		env.Status, env.Result = StatusFailed, nil
		env.Error = &EnvelopeError{Code: sandbox.CodeInternal, Message: "the run was planned, but no call of the plan was kept", Hint: Hint(sandbox.CodeInternal)}
		return nil
	case len(made) == 0:
		return nil
	}
	sort.Slice(made, func(i, j int) bool { return made[i].Seq > made[j].Seq })
	sort.Slice(denied, func(i, j int) bool { return denied[i].Seq < denied[j].Seq })
	rp := &store.RunPlan{Denied: denied, Stop: stop}
	if err := h.db.SetRunPlan(ctx, run.ID, rp); err != nil {
		return err
	}
	if env.Status != StatusAwaitingConnection {
		env.Status, env.Error, env.Result, env.Truncated = StatusAwaitingApproval, nil, nil, nil
	}
	shown := false
	for _, p := range made {
		if h.presentApproval(p) {
			shown = true
		}
	}
	for _, p := range made {
		env.Pending = append(env.Pending, PendingItem{ID: p.ID, Kind: p.Kind, Address: p.Address, Summary: pendingSummary(p), Message: planMessage(run.ID, len(made), shown)})
	}
	env.Notices = append(slices.Clip(env.Notices), planNotice(made, rp))
	return nil
}

// planEndsAt are the failures that end planning with a plan rather than
// fail the run: the run's limits, and the code's own errors, which may come
// of a placeholder standing where a value will be.
var planEndsAt = map[string]bool{
	sandbox.CodeComputeLimit: true, sandbox.CodeWallLimit: true, sandbox.CodeMemoryLimit: true,
	sandbox.CodeMaxCalls: true, sandbox.CodeStackLimit: true, sandbox.CodeTimerLimit: true,
	sandbox.CodeTooDeeplyNested: true, sandbox.CodeRuntimeError: true, sandbox.CodeUnhandledRejection: true,
	sandbox.CodeUnsettled: true, sandbox.CodeResultNotJSON: true, sandbox.CodeRegexpTimeout: true,
}

// planMessage is what the model is told about a planned call.
func planMessage(runID string, n int, shown bool) string {
	if n == 1 {
		return pendingMessage(runID, shown)
	}
	resume := "execute({ \"resume\": \"" + runID + "\" })"
	what := fmt.Sprintf("The user has to approve the run's plan of %d calls, shown together.", n)
	if shown {
		return what + " An approval dialog is open on the user's screen. Tell the user, and after they decide call " + resume +
			". They can also decide in a terminal: capabilities hub approve " + runID
	}
	return what + " Tell them to run `capabilities hub approve " + runID + "` in a terminal, and after they decide call " + resume + "."
}

// planNotice says what the run's pause holds: how many calls were planned,
// which policy denied, and where planning stopped.
func planNotice(made []*store.Pending, rp *store.RunPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The run was planned ahead of its first call that needs approval: %d %s for one decision and %s only as planned.", len(made), plural(len(made), "call waits", "calls wait"), plural(len(made), "runs", "run"))
	if len(rp.Denied) > 0 {
		var names []string
		for _, d := range rp.Denied {
			names = append(names, fmt.Sprintf("call %d (%s)", d.Seq, d.Address))
		}
		fmt.Fprintf(&b, " Denied by policy, and not in the plan: %s.", strings.Join(names, ", "))
	}
	if rp.Stop != "" {
		fmt.Fprintf(&b, " Planning stopped: %s; calls after that are asked about when the run gets there.", rp.Stop)
	}
	return b.String()
}

// PlanInfo is what a pending approval of a planned call says about its
// plan, for a person.
type PlanInfo struct {
	// Seq is the call's seq while planning: "<result of call N>" in other
	// calls' arguments names it.
	Seq int `json:"seq"`
	// Position and Of place the call in the plan's open calls (1-based).
	Position int `json:"position"`
	Of       int `json:"of"`
	// Missing says the call's connection lacks a secret or a sign-in: the
	// run asks for it before the call.
	Missing bool `json:"missing,omitempty"`
	// Stop is where planning stopped, "" when the code returned; Denied
	// the calls policy denied while planning, which never run.
	Stop   string       `json:"stop,omitempty"`
	Denied []PlanDenied `json:"denied,omitempty"`
}

// PlanDenied is a call policy denied while a run was planned.
type PlanDenied = store.PlanDenied

// withPlans completes Plan of the approvals of planned calls, out[i] being
// rows[i]'s: its place in the plan, where planning stopped and what policy
// denied.
func (h *Hub) withPlans(ctx context.Context, rows []*store.Pending, out []Approval) error {
	plans := map[string]*store.RunPlan{}
	counts := map[string]int{}
	for _, p := range rows {
		if p.Plan != nil {
			counts[p.RunID]++
		}
	}
	pos := map[string]int{}
	for i, p := range rows {
		if p.Plan == nil {
			continue
		}
		rp, ok := plans[p.RunID]
		if !ok {
			var err error
			if rp, err = h.db.LoadRunPlan(ctx, p.RunID); err != nil && !errors.Is(err, store.ErrNoRun) {
				return err
			}
			plans[p.RunID] = rp
		}
		pos[p.RunID]++
		info := out[i].Plan // approvalOf's
		info.Position, info.Of = pos[p.RunID], counts[p.RunID]
		if rp != nil {
			info.Stop, info.Denied = rp.Stop, rp.Denied
		}
	}
	return nil
}
