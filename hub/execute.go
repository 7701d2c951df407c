package hub

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/onewrite"
	"capabilities.sh/capabilities/sandbox"
)

// ExecuteRequest is the execute tool's input plus who asked.
type ExecuteRequest struct {
	Code   string `json:"code,omitempty"`
	Resume string `json:"resume,omitempty"`
	// Client names the MCP client that asked ("claude-code 2.1").
	Client string `json:"-"`
	// Profile is the profile the client selected; "" is the whole hub.
	Profile string `json:"-"`
	// direct is set by CallTool alone: only its code may start with the
	// direct-mode mark, whose run returns the upstream's result as sent.
	direct bool
}

// Execute runs code, or resumes a run. It returns an envelope for every run
// it creates or finds; the error is for bad input only (*InputError). Safe
// for concurrent use: attempts of one run are serialised, runs go in parallel.
func (h *Hub) Execute(ctx context.Context, req ExecuteRequest) (*Envelope, error) {
	switch {
	case req.Code != "" && req.Resume != "":
		return nil, &InputError{"code", `send exactly one of "code" or "resume", not both`}
	case req.Code == "" && req.Resume == "":
		return nil, &InputError{"code", `send exactly one of "code" (JavaScript, up to 64 KB) or "resume" (a runId)`}
	case h.paused.Load():
		return nil, &InputError{"code", "the user paused the hub from its tray menu; tell them, and try again after they resume it"}
	case !req.direct && strings.HasPrefix(req.Code, sandbox.CallMark):
		return nil, &InputError{"code", "must not start with the line " + strings.TrimSpace(sandbox.CallMark) + ", which marks a call of a direct-mode tool"}
	}
	sc, err := h.scope(req.Profile)
	if err != nil {
		return nil, err
	}
	if req.Resume != "" {
		return h.resume(ctx, req.Resume, sc)
	}
	now := h.now()
	run := &runRow{
		ID:      newID("r_"),
		Code:    req.Code,
		Seed:    newSeed(),
		Clock:   now.Truncate(time.Millisecond),
		Status:  StatusRunning,
		Client:  scope.Client(req.Client, sc),
		Created: now,
		Updated: now,
	}
	prep, err := sandbox.Prepare(req.Code, h.limits)
	if err != nil {
		env := &Envelope{RunID: run.ID, Status: StatusFailed, Calls: []CallRecord{}, Error: envelopeError(err)}
		env.seal(h.secrets, h.limits.InlineResultBytes)
		run.Status, run.Envelope = StatusFailed, env
		if serr := h.createRun(ctx, run); serr != nil {
			return nil, serr
		}
		h.events.Publish(Event{Kind: EventRun, ID: run.ID})
		return env, nil
	}
	run.Code, run.Notices = prep.Code, prep.Notices
	// The run is stored with its first attempt started, by the attempt: at
	// its first tool call, or with its envelope when it makes none.
	run.Attempts, run.Engine, run.Prelude = 1, sandbox.EngineHash(), sandbox.PreludeHash()
	unlock := h.lockRun(run.ID)
	defer unlock()
	return h.attempt(ctx, run, true, sc)
}

func envelopeError(err error) *EnvelopeError {
	var se *sandbox.Error
	if errors.As(err, &se) {
		hint := se.Hint
		if hint == "" {
			hint = Hint(se.Code)
		}
		return &EnvelopeError{Code: se.Code, Message: se.Message, Hint: hint}
	}
	return &EnvelopeError{Code: sandbox.CodeInternal, Message: err.Error(), Hint: Hint(sandbox.CodeInternal)}
}

func (h *Hub) lockRun(id string) func() { return h.runLocks.Lock(id) }

// resume continues a run: a finished run returns its final envelope; a run
// still waiting for a person returns the same pending envelope and runs
// nothing; otherwise the stored code runs again from its journal, in the
// scope of the request that resumes it.
func (h *Hub) resume(ctx context.Context, id string, sc *scope.Scope) (*Envelope, error) {
	id = strings.TrimSpace(id)
	unlock := h.lockRun(id)
	defer unlock()
	run, err := h.loadRun(ctx, id)
	if errors.Is(err, ErrNoRun) || err == nil && !sc.HoldsRun(run.Client) {
		return nil, &InputError{"resume", fmt.Sprintf("no run %q; resume only a runId returned by execute", id)}
	}
	if err != nil {
		return nil, err
	}
	if Terminal(run.Status) && run.Envelope != nil {
		return run.Envelope, nil
	}
	// Another hub process on this home may be attempting the run: lease it,
	// then read it again, as that attempt may have ended meanwhile.
	if err := h.claimRun(ctx, id, h.now()); err != nil {
		return nil, err
	}
	defer h.db.ReleaseRun(context.Background(), id, h.owner)
	if run, err = h.loadRun(ctx, id); err != nil {
		return nil, err
	}
	if Terminal(run.Status) && run.Envelope != nil {
		return run.Envelope, nil
	}
	if run.Status == StatusAwaitingApproval || run.Status == StatusAwaitingConnection {
		// What the run waits for may have just been written to config.json
		// (`capabilities connection add` adds the connection's reference
		// beside the secret it stores): read the file now if it changed,
		// rather than when the watcher next looks. A bad file keeps the
		// last good config, as it does for the watcher. The work a reload
		// starts is the hub's, not this request's.
		_ = h.ReloadConfig(h.bg)
		ready, env, err := h.pendingSettled(ctx, run)
		if err != nil {
			return nil, err
		}
		if !ready {
			return env, nil
		}
	}
	return h.attempt(ctx, run, false, sc)
}

// pendingSettled reports whether every input the run waits for is there. If
// not, it returns the envelope to give back unchanged (or a failure, when an
// approval expired).
func (h *Hub) pendingSettled(ctx context.Context, run *runRow) (bool, *Envelope, error) {
	pend, err := h.db.PendingOf(ctx, run.ID)
	if err != nil {
		return false, nil, err
	}
	now := h.now()
	waiting := false
	undecided := map[string]bool{}
	for _, p := range pend {
		if p.Decision != "" {
			continue
		}
		undecided[p.ID] = true
		switch p.Kind {
		case KindApproval:
			if now.After(p.Expires) {
				env := &Envelope{RunID: run.ID, Status: StatusFailed, Calls: envelopeCalls(run), Notices: run.Notices,
					Error: &EnvelopeError{Code: CodeApprovalExpired, Message: fmt.Sprintf("the approval for %s expired at %s without a decision", p.Address, p.Expires.UTC().Format(time.RFC3339)), Hint: Hint(CodeApprovalExpired)}}
				if err := h.finishAttempt(ctx, run.ID, env, now); err != nil {
					return false, nil, err
				}
				h.events.Publish(Event{Kind: EventApprovalExpired, ID: p.ID})
				return false, env, nil
			}
			waiting = true
		case KindConnection:
			if h.connectionReady(p) {
				if err := h.db.Decide(ctx, p, "allow", false, "connection", "keychain", now); err != nil && !errors.Is(err, ErrAlreadyDecided) {
					return false, nil, err
				}
				continue
			}
			waiting = true
		}
	}
	if waiting {
		return false, stillPending(run.Envelope, undecided), nil
	}
	return true, nil, nil
}

// stillPending is a paused run's envelope with only the inputs it still
// waits for: a call of a plan decided on its own, or a connection whose
// secrets arrived, is no longer listed as waiting.
func stillPending(env *Envelope, undecided map[string]bool) *Envelope {
	if env == nil {
		return nil
	}
	var items []PendingItem
	for _, it := range env.Pending {
		if undecided[it.ID] {
			items = append(items, it)
		}
	}
	if len(items) == len(env.Pending) {
		return env
	}
	out := *env
	out.Pending = items
	out.Notices = append(slices.Clip(env.Notices), fmt.Sprintf("%d of the run's %d inputs %s decided; it goes on when the rest %s.",
		len(env.Pending)-len(items), len(env.Pending), plural(len(env.Pending)-len(items), "is", "are"), plural(len(items), "is", "are")))
	return &out
}

func envelopeCalls(run *runRow) []CallRecord {
	if run.Envelope != nil && run.Envelope.Calls != nil {
		return run.Envelope.Calls
	}
	return []CallRecord{}
}

// connectionReady reports whether every secret of a pending connection is
// in the keychain now.
func (h *Hub) connectionReady(p *store.Pending) bool {
	src, conn, ok := h.sourceOfAddress(p.Address, p.Connection)
	if !ok {
		return false
	}
	need := h.restNeed(p.Address, src, conn)
	return len(h.restMissing(src, h.missingSecrets(src, conn), need)) == 0 && need == ""
}

// restMissing is missing, a connection's missing secrets, for a call of an
// OpenAPI operation whose credentials need says what it lacks: the
// sign-in of a connection that signs in is missing only for an operation
// that lacks its token. A public operation, or one an API key opens, does
// not wait for it.
func (h *Hub) restMissing(source string, missing []string, need string) []string {
	if s := h.Config().Sources[source]; s == nil || s.OpenAPI == "" || need != "" || !slices.Contains(missing, OAuthSignInRef) {
		return missing
	}
	return slices.DeleteFunc(slices.Clone(missing), func(m string) bool { return m == OAuthSignInRef })
}

// sourceOfAddress finds the config source of a tool address and resolves
// the connection name ("" = default).
func (h *Hub) sourceOfAddress(address, conn string) (string, string, bool) {
	var source string
	if t, ok := h.catalog.Snapshot().Lookup(address); ok {
		source = t.Source
	} else {
		// A call to a source whose tools were not listed yet.
		ns, _, _ := strings.Cut(address, ".")
		source = h.Config().SourceOfNamespace(ns)
	}
	s := h.Config().Sources[source]
	if s == nil {
		return "", "", false
	}
	return source, cmp.Or(conn, s.DefaultConnection()), true
}

func (h *Hub) missingSecrets(source, conn string) []string {
	s := h.Config().Sources[source]
	if s == nil {
		return nil
	}
	var missing []string
	if h.signIns.NeedsSignIn(source, conn) {
		missing = append(missing, OAuthSignInRef)
	}
	if conn == "" {
		return missing
	}
	for _, ref := range s.SecretRefs(conn) {
		if _, err := h.kc.Get(config.SecretKey(source, conn, ref)); err != nil {
			missing = append(missing, ref)
		}
	}
	return missing
}

// restNeed is what the OpenAPI operation at address needs from connection
// conn of source that it does not have; "" when nothing (or not an
// OpenAPI operation).
func (h *Hub) restNeed(address, source, conn string) string {
	if s := h.Config().Sources[source]; s == nil || s.OpenAPI == "" {
		return ""
	}
	t, ok := h.catalog.Snapshot().Lookup(address)
	if !ok || t.Source != source {
		return ""
	}
	return h.openapi.AuthNeed(source, t.Name, conn)
}

// attempt runs the run's code once, against its journal. The caller holds
// the run's lock. A fresh run is not stored yet and has neither journal nor
// pending inputs, so none are read; it is stored before its first tool
// call writes anything, or at the end with its envelope: a run that calls
// no tool costs one write. Until then it is in no list, and a hub that dies
// meanwhile loses nothing: no call was made and no client has its id. The
// code sees what scope sc holds, and nothing else.
func (h *Hub) attempt(ctx context.Context, run *runRow, fresh bool, sc *scope.Scope) (*Envelope, error) {
	journal, pending := map[int]*store.JournalEntry{}, map[int]bool{}
	var rows []*store.Pending
	if !fresh {
		var err error
		if journal, err = h.db.ReadJournal(ctx, run.ID); err != nil {
			return nil, err
		}
		if rows, err = h.db.PendingOf(ctx, run.ID); err != nil {
			return nil, err
		}
		for _, p := range rows {
			if p.Seq > 0 {
				pending[p.Seq] = true
			}
		}
		if err := h.db.StartAttempt(ctx, run.ID, StatusRunning, sandbox.EngineHash(), sandbox.PreludeHash(), h.now()); err != nil {
			return nil, err
		}
	}
	h.events.Publish(Event{Kind: EventRun, ID: run.ID})
	// Sources the code names that are being listed for the first time are
	// waited for, within one bound for the whole attempt.
	ctx = withStartupDeadline(ctx, time.Now().Add(h.startupWait))
	cfg := sc.Config(h.Config())
	h.awaitSources(ctx, cfg.SourcesInCode(run.Code), false)
	snap := sc.Snapshot(h.catalog.Snapshot())
	host := &runHost{
		h:       h,
		scope:   sc,
		outer:   ctx,
		run:     run,
		snap:    snap,
		policy:  h.currentPolicy(),
		journal: journal,
		pending: pending,
		records: map[int]CallRecord{},
		missing: map[upstream.ConnKey][]string{},
		order:   upstream.NewWriteOrder(),
		plan:    h.loadPlan(run, journal, rows),
	}
	for _, e := range journal {
		host.stored += int64(len(e.Outcome) + len(e.Args))
	}
	if !fresh {
		host.row.Begin(func() error { return nil }, false) // stored by its first attempt
	}
	fired := firedRecord(journal)
	host.firedKept = firings(fired)
	out := h.driver.Run(ctx, sandbox.Request{
		Code:       run.Code,
		Seed:       run.Seed,
		Clock:      run.Clock,
		Namespaces: snap.SandboxNamespaces(cfg),
		Limits:     h.limits,
		Replay:     replayed(journal, pending),
		Fired:      fired,
		Host:       host,
	})
	env := h.envelope(run, host, out)
	if err := h.planned(ctx, run, host, out, env); err != nil {
		return nil, err
	}
	h.keepResult(ctx, run, host, env, out)
	env.seal(h.secrets, h.limits.InlineResultBytes)
	// The envelope is stored even when the caller went away: with the run
	// when no call stored it (the driver has returned, so no call will).
	inserted := host.row.Begin(func() error {
		run.Status, run.Envelope, run.Updated = env.Status, env, h.now()
		return h.createRun(context.WithoutCancel(ctx), run)
	}, false)
	if err := host.row.Wait(); err != nil {
		return nil, err
	}
	if !inserted {
		if err := h.finishAttempt(context.WithoutCancel(ctx), run.ID, env, h.now()); err != nil {
			return nil, err
		}
	}
	h.events.Publish(Event{Kind: EventRun, ID: run.ID})
	for _, p := range env.Pending {
		h.events.Publish(Event{Kind: EventApprovalAdded, ID: p.ID})
	}
	return env, nil
}

// replayed is how many calls earlier attempts issued: the highest seq the
// journal or the pending inputs hold. The sandbox's timers do not wait
// again for what those attempts already waited.
func replayed(journal map[int]*store.JournalEntry, pending map[int]bool) int {
	n := 0
	for seq := range journal {
		n = max(n, seq)
	}
	for seq := range pending {
		n = max(n, seq)
	}
	return n
}

// firedRecord is where earlier attempts fired timers while calls were in
// flight, as far as their journaled calls saw: each call keeps the record
// up to its issue when it had grown, and records only grow, so the one
// with the most firings holds all the others.
func firedRecord(journal map[int]*store.JournalEntry) []sandbox.Early {
	var best []sandbox.Early
	for _, e := range journal {
		var rec []sandbox.Early
		if e.Fired == nil || json.Unmarshal(e.Fired, &rec) != nil {
			continue
		}
		if firings(rec) > firings(best) {
			best = rec
		}
	}
	return best
}

// firings counts the timers a record holds.
func firings(rec []sandbox.Early) int {
	n := 0
	for _, e := range rec {
		n += e.Timers
	}
	return n
}

// firedToKeep is c.Fired as JSON for c's journal entry when it holds more
// firings than the journal keeps already, else nil.
func (r *runHost) firedToKeep(c sandbox.Call) json.RawMessage {
	n := firings(c.Fired)
	r.mu.Lock()
	defer r.mu.Unlock()
	if n <= r.firedKept {
		return nil
	}
	b, err := json.Marshal(c.Fired)
	if err != nil {
		return nil
	}
	r.firedKept = n
	return b
}

func (h *Hub) envelope(run *runRow, host *runHost, out sandbox.Outcome) *Envelope {
	env := &Envelope{RunID: run.ID, Logs: out.Logs, Notices: run.Notices, Calls: host.callRecords()}
	if out.Truncated.Result || out.Truncated.Logs {
		env.Truncated = &Truncated{Result: out.Truncated.Result, Logs: out.Truncated.Logs}
	}
	if d := host.divergence(); d != "" {
		env.Status = StatusFailed
		env.Error = &EnvelopeError{Code: CodeReplayDiverged, Message: d, Hint: Hint(CodeReplayDiverged)}
		return env
	}
	switch out.Status {
	case "completed":
		env.Status, env.Result = StatusCompleted, out.Result
		if n := host.leftBehind(); n != "" {
			env.Notices = append(slices.Clip(env.Notices), n)
		}
	case "suspended":
		env.Status = StatusAwaitingConnection
		for _, s := range out.Suspends {
			p, ok := s.Detail.(*store.Pending)
			if !ok {
				continue
			}
			item := PendingItem{ID: p.ID, Kind: p.Kind, Address: p.Address, Summary: pendingSummary(p)}
			if p.Kind == KindApproval {
				env.Status = StatusAwaitingApproval
				item.Message = pendingMessage(run.ID, h.presentApproval(p))
			} else {
				src, conn, _ := h.sourceOfAddress(p.Address, p.Connection)
				need := h.restNeed(p.Address, src, conn)
				missing := h.restMissing(src, h.missingSecrets(src, conn), need)
				if slices.Contains(missing, OAuthSignInRef) {
					h.signIns.Offer(src, conn)
				}
				item.Message = config.ConnectionMessage(src, conn, missing)
				if need != "" {
					item.Message = openapi.ConnectionMessage(src, need)
				}
			}
			env.Pending = append(env.Pending, item)
		}
		sort.Slice(env.Pending, func(i, j int) bool { return env.Pending[i].ID < env.Pending[j].ID })
	case sandbox.StatusPlanned:
		env.Status = StatusAwaitingApproval // the plan's calls are its pending items (planned)
	case "cancelled":
		env.Status = StatusCancelled
		env.Error = &EnvelopeError{Code: sandbox.CodeCancelled, Message: "the run was cancelled", Hint: Hint(sandbox.CodeCancelled)}
	default:
		env.Status = StatusFailed
		if out.Error != nil {
			env.Error = &EnvelopeError{Code: out.Error.Code, Message: out.Error.Message, Hint: out.Error.Hint}
			if env.Error.Hint == "" {
				env.Error.Hint = Hint(out.Error.Code)
			}
		} else {
			env.Error = &EnvelopeError{Code: sandbox.CodeInternal, Message: "the run failed without an error", Hint: Hint(sandbox.CodeInternal)}
		}
	}
	return env
}

func pendingSummary(p *store.Pending) string {
	conn, on := "default connection", "" // a call of a source without connections carries no secret
	if p.Connection != "" {
		conn = "connection " + p.Connection
		on = " on " + conn
	}
	if p.Kind == KindConnection && strings.HasPrefix(p.Reason, signInReason) {
		return fmt.Sprintf("%s needs a sign-in for %s", p.Address, conn)
	}
	if p.Kind == KindConnection {
		return fmt.Sprintf("%s needs a secret for %s", p.Address, conn)
	}
	return fmt.Sprintf("%s%s: %s (%s)", p.Address, on, secrets.CompactPreview(p.Preview, 160), p.Reason)
}

// runHost answers one attempt's tool calls: from the journal where the call
// was made before, else by policy, then upstream.
type runHost struct {
	h       *Hub
	scope   *scope.Scope    // the profile the run is attempted in; nil for the whole hub
	outer   context.Context // the caller's: when it ends, the run is cancelled, not done
	run     *runRow
	snap    *catalog.Snapshot
	policy  *policy.Policy
	changed map[string]bool      // shared, read-only
	order   *upstream.WriteOrder // this attempt's writes, in seq order
	plan    *runPlan             // the run's plan, and this attempt's planning (plan.go)

	// row stores a fresh run's row before anything that refers to it is
	// written (storeRun, runStored): a read-only first call's request
	// overlaps the write, and the attempt waits for it before it ends.
	row onewrite.Write

	mu      sync.Mutex
	stored  int64        // bytes of outcomes (and arguments) the run's journal holds
	argsPut map[int]bool // calls whose arguments this attempt journaled
	journal map[int]*store.JournalEntry
	pending map[int]bool // calls with a pending input row, decided or not
	records map[int]CallRecord
	// behind are the calls still in flight when the code returned,
	// cancelled when the run ended (the loser of a race against a timer).
	behind   []int
	missing  map[upstream.ConnKey][]string // secrets missing per connection, read once per attempt
	diverged string
	// firedKept is how many timer firings the longest record in the
	// journal holds (sandbox.Call.Fired): a call's entry keeps its record
	// only when it holds more.
	firedKept int
}

func (r *runHost) callRecords() []CallRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	seqs := make([]int, 0, len(r.records))
	for s := range r.records {
		seqs = append(seqs, s)
	}
	sort.Ints(seqs)
	out := make([]CallRecord, 0, len(seqs))
	for _, s := range seqs {
		out = append(out, r.records[s])
	}
	return out
}

// leftBehind is the notice for calls the code did not wait for, which
// were cancelled when it returned, or "".
func (r *runHost) leftBehind() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.behind) == 0 {
		return ""
	}
	seqs := slices.Sorted(slices.Values(r.behind))
	var names []string
	for _, s := range seqs {
		names = append(names, fmt.Sprintf("call %d (%s)", s, r.records[s].Address))
	}
	return fmt.Sprintf("The code returned while %s was still in flight; it was cancelled and may or may not have taken effect upstream. Await every call whose effect you need.", strings.Join(names, ", "))
}

// recorded reports whether call seq is in the envelope's calls already.
func (r *runHost) recorded(seq int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.records[seq]
	return ok
}

func (r *runHost) record(seq int, address string, ok bool, ms int64) {
	r.mu.Lock()
	r.records[seq] = CallRecord{Address: address, OK: ok, Ms: ms}
	r.mu.Unlock()
}

func (r *runHost) divergence() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.diverged
}

// diverge stops the run: the code did not replay its journal.
func (r *runHost) diverge(c sandbox.Call, msg string) error {
	r.mu.Lock()
	if r.diverged == "" {
		r.diverged = msg
	}
	r.mu.Unlock()
	return &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: "diverged"}
}

// Search implements sandbox.Host.
func (r *runHost) Search(ctx context.Context, query string) (string, error) {
	return r.h.Search(ctx, SearchRequest{Query: query, Profile: r.scope.Name()})
}

// Describe implements sandbox.Host.
func (r *runHost) Describe(ctx context.Context, target string) (string, error) {
	return r.h.Describe(ctx, DescribeRequest{Targets: []string{target}, Profile: r.scope.Name()})
}

// Call implements sandbox.Host. A call passes a pipeline of small steps:
// replay answers it from the journal when an earlier attempt finished it;
// resolve finds its tool, source and connection; the gate decides allow,
// ask or deny from the policy, the pinned definition and the connection;
// consent brings in a person's decision or the secrets the call waits for;
// live sends it upstream. Every call the code made is in the envelope's
// calls, refused ones too.
func (r *runHost) Call(ctx context.Context, c sandbox.Call) (json.RawMessage, error) {
	defer r.order.Settle(c.Seq)
	r.storeRun(ctx)
	hash := exactjson.Hash(c.Args)
	je, out, err, done := r.replay(c, hash)
	if done {
		return out, err
	}
	rc, err := r.resolve(ctx, c)
	if err != nil {
		var te *sandbox.ToolError
		if errors.As(err, &te) {
			return nil, r.refuse(c, te)
		}
		return nil, err // a suspend, or the store failed
	}
	if je != nil && je.State == journalIssued && !repeatable(rc.tool) {
		// The call was in flight when the hub stopped: it may have happened.
		te := toolError(CodeInterrupted, c.Address, "call %d was in flight when the hub stopped; it was not repeated because %s is neither read-only nor idempotent", c.Seq, c.Address)
		return r.finish(c, hash, nil, te, 0)
	}
	dec := r.scope.Gate(r.policy, policy.InputFor(rc.tool, rc.conn, r.config()))
	if dec.Mode == config.Deny {
		return r.deny(c, hash, rc, dec)
	}
	rc, listErr, err := r.current(ctx, c, rc)
	if err != nil {
		var te *sandbox.ToolError
		if errors.As(err, &te) {
			return nil, r.refuse(c, te)
		}
		return nil, err
	}
	if listErr == nil {
		dec = r.scope.Gate(r.policy, policy.InputFor(rc.tool, rc.conn, r.config()))
		if dec.Mode == config.Deny {
			return r.deny(c, hash, rc, dec)
		}
	}
	if err := r.consent(ctx, c, hash, rc, dec); err != nil {
		var te *sandbox.ToolError
		if errors.As(err, &te) {
			return r.finish(c, hash, nil, te, 0)
		}
		return nil, err
	}
	if r.plan.after(c.Seq) {
		return r.ahead(ctx, c, rc, listErr)
	}
	if listErr != nil {
		// Nothing leaves on a definition the source was not seen to list.
		return nil, r.unchecked(ctx, c, rc, listErr)
	}
	start := time.Now()
	out, err = r.live(ctx, c, hash, rc)
	if err == nil {
		r.plan.keep(c.Seq, out)
	}
	if err != nil && !r.recorded(c.Seq) {
		// Refused before it left, or in flight when the run ended.
		r.record(c.Seq, c.Address, false, time.Since(start).Milliseconds())
	}
	if err != nil && ctx.Err() != nil && r.outer.Err() == nil {
		// The run ended while the call was in flight, and not because
		// its caller went away: the code returned without waiting for it.
		r.mu.Lock()
		r.behind = append(r.behind, c.Seq)
		r.mu.Unlock()
	}
	return out, err
}

// resolvedCall is a call with its tool, its source and the connection it
// uses (the source's default when the code named none).
type resolvedCall struct {
	tool *catalog.Tool
	src  *config.Source
	conn string
}

// replay answers a call from the journal of an earlier attempt. done is
// false when the call must go on (no entry, or one that did not finish);
// je is the entry found, if any. A call that differs from its entry stops
// the run as diverged.
func (r *runHost) replay(c sandbox.Call, hash string) (je *store.JournalEntry, out json.RawMessage, err error, done bool) {
	r.mu.Lock()
	je = r.journal[c.Seq]
	r.mu.Unlock()
	if je == nil {
		return nil, nil, nil, false
	}
	if je.State == journalPlanned && (je.Address != c.Address || je.Connection != c.Connection || je.ArgsHash != hash) {
		// The plan had another call here; this one is held to the plan.
		return nil, nil, nil, false
	}
	if je.Address != c.Address || je.Connection != c.Connection || je.ArgsHash != hash {
		what := "different arguments"
		switch {
		case je.Address != c.Address:
			what = fmt.Sprintf("%s instead of %s", c.Address, je.Address)
		case je.Connection != c.Connection:
			what = fmt.Sprintf("connection %q instead of %q", c.Connection, je.Connection)
		}
		return je, nil, r.diverge(c, fmt.Sprintf("call %d of the resumed run made %s; the journal holds %s from the first attempt", c.Seq, what, je.Address)), true
	}
	switch je.State {
	case journalOK:
		r.record(c.Seq, c.Address, true, je.Ms)
		return je, je.Outcome, nil, true
	case journalError:
		r.record(c.Seq, c.Address, false, je.Ms)
		var te sandbox.ToolError
		if json.Unmarshal(je.Outcome, &te) != nil || te.Code == "" {
			te = sandbox.ToolError{Code: CodeToolError, Address: c.Address, Message: "the call failed"}
		}
		return je, nil, &te, true
	}
	return je, nil, nil, false
}

// resolve finds the call's tool in the attempt's catalog snapshot (or, for
// a source not listed yet, as unlisted finds it), its source in the config
// and its connection. A call that cannot go on is a *sandbox.ToolError, or
// a *sandbox.Suspend when it waits for a connection's secret.
func (r *runHost) resolve(ctx context.Context, c sandbox.Call) (*resolvedCall, error) {
	tool, ok := r.snap.Lookup(c.Address)
	if !ok {
		var err error
		if tool, err = r.unlisted(ctx, c); err != nil {
			return nil, err
		}
	}
	src := r.config().Sources[tool.Source]
	if src == nil {
		return nil, toolError(CodeUnknownTool, c.Address, "source %s was removed from the config", tool.Source)
	}
	conn := c.Connection
	if conn != "" {
		if _, ok := src.Connections[conn]; !ok {
			names := src.ConnectionNames()
			known := "it has none"
			if len(names) > 0 {
				known = "it has: " + strings.Join(names, ", ")
			}
			return nil, toolError(CodeUnknownConn, c.Address, "source %s has no connection %q (%s)", tool.Source, conn, known)
		}
	}
	return &resolvedCall{tool: tool, src: src, conn: cmp.Or(conn, src.DefaultConnection())}, nil
}

// current brings the call's tool up to what its source lists now. A source
// this process has not listed since its definition last changed (the hub
// just started and knows its tools from the store, or its config changed)
// is listed first, and the call is resolved again on that listing, so the
// gate compares the definition the source serves now with the pinned one.
// listErr is set when the source could not be listed: the call may still
// wait for a person or a connection, but it must not be sent
// ([runHost.unchecked]). A tool the new listing no longer has is a
// *sandbox.ToolError.
func (r *runHost) current(ctx context.Context, c sandbox.Call, rc *resolvedCall) (_ *resolvedCall, listErr error, err error) {
	fresh, listErr := r.h.awaitFresh(ctx, rc.tool.Source)
	if !fresh {
		return rc, listErr, nil
	}
	t, ok := r.h.catalog.Snapshot().Lookup(c.Address)
	if !ok || t.Source != rc.tool.Source || t.Name != rc.tool.Name {
		return nil, nil, toolError(CodeUnknownTool, c.Address, "source %s no longer lists %s", rc.tool.Source, c.Address)
	}
	return &resolvedCall{tool: t, src: rc.src, conn: rc.conn}, nil, nil
}

// unchecked is the outcome of a call that could go out but whose source
// could not be listed since the hub started or its config changed, so the
// tool's definition now is unknown: it waits for a sign-in when that is
// what the listing lacked, and is refused otherwise (not journaled, so a
// resume tries again).
func (r *runHost) unchecked(ctx context.Context, c sandbox.Call, rc *resolvedCall, listErr error) error {
	if ue := (*upstream.Error)(nil); errors.As(listErr, &ue) && ue.Kind == upstream.KindNeedsSignIn {
		return r.awaitConnection(ctx, c, rc.conn, []string{OAuthSignInRef})
	}
	te := r.h.unavailable(c.Address, rc.tool.Source, listErr)
	te.Retryable = true
	te.Message = fmt.Sprintf("%s was not sent: its definition could not be checked, because source %s could not be listed since the hub started or its config changed (%s)",
		c.Address, naming.Namespace(rc.tool.Source), te.Message)
	return r.refuse(c, te)
}

// refuse records a call that was refused before the gate and returns its
// error. It is not journaled: a resume refuses it again.
func (r *runHost) refuse(c sandbox.Call, te *sandbox.ToolError) error {
	r.record(c.Seq, c.Address, false, 0)
	return te
}

// consent settles what the call needs from a person before it runs: the
// connection's secrets, and for a call the gate asks about, an approval of
// this call and this definition. It returns nil when the call may run, a
// *sandbox.Suspend when it waits, and a *sandbox.ToolError when the person
// denied it. A person's deny of this call holds whatever the gate says now.
func (r *runHost) consent(ctx context.Context, c sandbox.Call, hash string, rc *resolvedCall, dec policy.Decision) error {
	h := r.h
	// A person's decision, from this or an earlier attempt. Only calls
	// that had a pending input when the attempt started can have one: the
	// attempt holds the run's lock, and nothing else adds inputs to a run.
	var p *store.Pending
	if r.hasPending(c.Seq) {
		var err error
		if p, err = h.db.PendingAt(ctx, r.run.ID, c.Seq); err != nil {
			return err
		}
	}
	if p != nil && p.ArgsHash != hash {
		return r.diverge(c, fmt.Sprintf("call %d of the resumed run to %s has different arguments than the call the person decided on", c.Seq, c.Address))
	}
	if p != nil && p.Kind == KindApproval && p.Decision == "deny" {
		return toolError(CodeDenied, c.Address, "the person declined %s when asked (decided in the %s)", c.Address, policy.ChannelWords(p.Channel))
	}
	need := ""
	if rc.src.OpenAPI != "" { // an OpenAPI operation's credentials; an MCP tool has no such need
		need = h.openapi.AuthNeed(rc.tool.Source, rc.tool.Name, rc.conn)
	}
	missing := h.restMissing(rc.tool.Source, r.missingSecrets(rc.tool.Source, rc.conn), need)
	lacks := len(missing) > 0 || need != ""
	if c.Symbolic {
		// Its arguments wait for a planned call's result: it can neither
		// be sent nor wait for an input, only be planned.
		if dec.Mode == config.Ask {
			return r.planCall(ctx, c, hash, rc, dec, lacks)
		}
		return &sandbox.Planned{}
	}
	if lacks && dec.Mode == config.Ask && p == nil && !r.planMatches(c, hash, rc) {
		// Planned with its connection marked; the real run waits for the
		// connection before the call.
		return r.planCall(ctx, c, hash, rc, dec, true)
	}
	if lacks && (p == nil || p.Kind != KindConnection || p.Decision == "") {
		if p == nil {
			p = r.newPending(c, hash, KindConnection, rc.conn, connectionReason(rc.conn, missing))
			if err := r.suspendOn(ctx, c, hash, p); err != nil {
				return err
			}
		}
		return &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: KindConnection, Detail: p}
	}
	if dec.Mode != config.Ask {
		return nil
	}
	switch {
	case p != nil && p.Kind == KindApproval && p.Decision == "":
		return &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: KindApproval, Detail: p}
	case p != nil && p.Kind == KindApproval && p.Decision == "allow" &&
		(p.DefHash == rc.tool.Hash || (p.DefHash == "" && !rc.tool.Changed())):
		return r.claimApproved(ctx, c, rc.tool, p)
	}
	// No approval yet, only a connection input before it (the secret
	// arrived), or an allow given for another definition of the tool: the
	// plan decides, or the call is planned (plan.go), in place of the
	// decided row.
	if p != nil {
		if err := h.db.DropPending(ctx, p.ID); err != nil {
			return err
		}
	}
	return r.fromPlan(ctx, c, hash, rc, dec, false)
}

// storeRun begins storing a fresh run's row in the background, unless it
// is stored or being stored. Every write that refers to the run waits for
// it (runStored).
func (r *runHost) storeRun(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	r.row.Begin(func() error { return r.h.createRun(ctx, r.run) }, true)
}

// runStored returns once the run's row is in the store, storing it now if
// nothing began to, or with the error that kept it out.
func (r *runHost) runStored(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	r.row.Begin(func() error { return r.h.createRun(ctx, r.run) }, false)
	return r.row.Wait()
}

// put journals e (Journal.Put) once the run's row is stored.
func (r *runHost) put(e *store.JournalEntry, at time.Time) error {
	if err := r.runStored(context.Background()); err != nil {
		return err
	}
	return r.h.journal.Put(r.run.ID, e, at)
}

// maxWaitingRuns bounds the runs waiting for a person (a model's loop of runs).
const maxWaitingRuns = 100

// putPending stores the pending input p once the run's row is stored,
// unless maxWaitingRuns other runs wait.
func (r *runHost) putPending(ctx context.Context, p *store.Pending) error {
	if n, err := r.h.db.RunsWaiting(ctx, r.run.ID, r.h.now()); err != nil || n >= maxWaitingRuns {
		return cmp.Or(err, error(toolError(CodeTooManyWaiting, p.Address, "%d runs already wait for a person's decision, the most the hub keeps waiting; %s would wait too", n, p.Address)))
	}
	if err := r.runStored(ctx); err != nil {
		return err
	}
	return r.h.db.PutPending(context.WithoutCancel(ctx), p)
}

func (r *runHost) hasPending(seq int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending[seq]
}

// missingSecrets is Hub.missingSecrets, read from the keychain once per
// connection and attempt rather than on every call: a secret added or
// removed while an attempt runs counts from the next attempt.
func (r *runHost) missingSecrets(source, conn string) []string {
	k := upstream.ConnKey{Source: source, Conn: conn}
	r.mu.Lock()
	missing, ok := r.missing[k]
	r.mu.Unlock()
	if ok {
		return missing
	}
	// Read outside the lock: the keychain may be slow, and two calls
	// reading at once get the same answer.
	missing = r.h.missingSecrets(source, conn)
	r.mu.Lock()
	r.missing[k] = missing
	r.mu.Unlock()
	return missing
}

func (r *runHost) newPending(c sandbox.Call, hash, kind, conn, reason string) *store.Pending {
	now := r.h.now()
	red := secrets.Redactor{Known: r.h.knownSecrets()}
	return &store.Pending{
		ID:         newID("p_"),
		RunID:      r.run.ID,
		Seq:        c.Seq,
		Kind:       kind,
		Address:    c.Address,
		Connection: conn,
		ArgsHash:   hash,
		Preview:    red.Preview(c.Args),
		Reason:     reason,
		Client:     r.run.Client,
		Created:    now,
		Expires:    now.Add(r.h.ttl),
	}
}

// suspendOn stores the pending input and journals the call as pending.
func (r *runHost) suspendOn(ctx context.Context, c sandbox.Call, hash string, p *store.Pending) error {
	ctx = context.WithoutCancel(ctx)
	if err := r.putPending(ctx, p); err != nil {
		return err
	}
	r.mu.Lock()
	r.pending[c.Seq] = true
	r.mu.Unlock()
	// The row may already exist (ON CONFLICT DO NOTHING): read back the stored one.
	stored, err := r.h.db.PendingAt(ctx, r.run.ID, c.Seq)
	if err != nil {
		return err
	}
	if stored != nil {
		*p = *stored
	}
	return r.put(&store.JournalEntry{Seq: c.Seq, Address: c.Address, Connection: c.Connection, ArgsHash: hash, State: journalPending, Fired: r.firedToKeep(c), Args: r.argsToKeep(c)}, r.h.now())
}

// repeatable reports whether a call of tool may be sent again when its
// outcome is unknown: the tool says it is read-only or idempotent.
func repeatable(tool *catalog.Tool) bool {
	ann := tool.Annotations
	return ann != nil && (ann.ReadOnlyHint || ann.IdempotentHint)
}

// live sends the call upstream. A call that is not read-only waits for the
// writes before it to the same upstream (upstream.WriteOrder). One that must
// not be repeated is journaled "issued" before it leaves, so a crash in
// flight is seen on resume; a repeatable one only with its outcome (a
// resume that finds no entry sends it again), which saves a commit.
func (r *runHost) live(ctx context.Context, c sandbox.Call, hash string, rc *resolvedCall) (json.RawMessage, error) {
	h := r.h
	tool, conn := rc.tool, rc.conn
	if te := r.validateArgs(tool, c.Args); te != nil {
		return r.finish(c, hash, nil, te, 0)
	}
	if upstream.SerialWrites(tool.Annotations, rc.src) {
		key := upstream.ConnKey{Source: tool.Source, Conn: conn}
		done, err := r.order.Begin(ctx, c.Seq, key)
		if err != nil {
			return nil, err
		}
		defer done()
		release, err := h.writeLanes.Acquire(ctx, key)
		if err != nil {
			return nil, err
		}
		defer release()
	} else {
		r.order.Settle(c.Seq)
	}
	if !repeatable(tool) {
		if err := r.put(&store.JournalEntry{Seq: c.Seq, Address: c.Address, Connection: c.Connection, ArgsHash: hash, State: journalIssued, Fired: r.firedToKeep(c), Args: r.argsToKeep(c)}, h.now()); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, h.upTimeout+upstream.StuckGrace+time.Second) // the upstream's own bounds first
	res, err := h.up.CallListed(cctx, tool.Source, conn, tool.Name, c.Args, tool.Request)
	cancel()
	ms := time.Since(start).Milliseconds()
	if ue := (*upstream.Error)(nil); errors.As(err, &ue) && ue.Kind == upstream.KindNeedsSignIn && ctx.Err() == nil {
		// The server refused the call before running it: it waits for the
		// person to sign in, and goes out again on resume.
		return nil, r.awaitConnection(ctx, c, conn, []string{OAuthSignInRef})
	}
	if err != nil {
		te := upstreamToolError(tool.Address, err, h.upTimeout, repeatable(tool))
		if ctx.Err() != nil {
			// The run ended (cancelled or out of time) while the call was in
			// flight: it stays "issued", so a resume treats it as interrupted.
			return nil, te
		}
		return r.finish(c, hash, nil, te, ms)
	}
	if strings.HasPrefix(r.run.Code, sandbox.CallMark) {
		// One call of a direct-mode tool: its client gets the upstream's
		// result as sent, isError included (finish scrubs it).
		if raw, err := json.Marshal(res); err == nil {
			return r.finish(c, hash, raw, nil, ms)
		}
	}
	if res.IsError {
		// Scrubbed before it is cut, so no part of a secret is left at the cut.
		msg := firstLine(h.secrets.Scrub(upstream.ErrorText(res)), h.limits.InlineResultBytes)
		te := &sandbox.ToolError{Code: CodeToolError, Address: tool.Address, Message: msg, Hint: Hint(CodeToolError)}
		return r.finish(c, hash, nil, te, ms)
	}
	val, err := upstream.ResultValue(res)
	if err != nil {
		te := &sandbox.ToolError{Code: CodeUpstreamError, Address: tool.Address, Message: err.Error(), Hint: Hint(CodeUpstreamError)}
		return r.finish(c, hash, nil, te, ms)
	}
	return r.finish(c, hash, val, nil, ms)
}

// finish journals a call's outcome, records it for the envelope and
// returns it for the guest: the result val, or te. An outcome that could
// not be journaled is not delivered: the guest gets a host error instead,
// and a resume treats the call as one that never answered.
//
// Both are cleaned first, so the guest and the journal get the same bytes:
// every known secret value is scrubbed from the result and from the error's
// text, and the error's message is capped at inlineResultBytes.
func (r *runHost) finish(c sandbox.Call, hash string, val json.RawMessage, te *sandbox.ToolError, ms int64) (json.RawMessage, error) {
	val = r.h.secrets.ScrubJSON(val)
	if te != nil {
		clean := *te
		clean.Message = secrets.Cap(r.h.secrets.Scrub(te.Message), r.h.limits.InlineResultBytes)
		clean.Hint = secrets.Cap(r.h.secrets.Scrub(te.Hint), r.h.limits.InlineResultBytes)
		te = &clean
	}
	e := &store.JournalEntry{Seq: c.Seq, Address: c.Address, Connection: c.Connection, ArgsHash: hash, Ms: ms, Fired: r.firedToKeep(c), Args: r.argsToKeep(c)}
	if te != nil {
		e.State = journalError
		e.Outcome, _ = json.Marshal(te)
	} else {
		e.State, e.Outcome = journalOK, val
	}
	if why := r.reserve(int64(len(e.Outcome))); why != "" {
		// Too large to keep: the call's result is dropped, and the run
		// gets, and journals, the error instead.
		val = nil
		te = &sandbox.ToolError{Code: CodeStoreFull, Address: c.Address, Message: fmt.Sprintf("the result of call %d (%s) is not kept: %s", c.Seq, c.Address, why), Hint: Hint(CodeStoreFull)}
		e.State = journalError
		e.Outcome, _ = json.Marshal(te)
		r.reserve(int64(len(e.Outcome)))
	}
	// The call's start, for an entry not journaled as issued before.
	at := r.h.now().Add(-time.Duration(ms) * time.Millisecond)
	if err := r.runStored(context.Background()); err != nil {
		// The run could not be stored: its call's outcome has nowhere to go.
		r.record(c.Seq, c.Address, false, ms)
		return nil, err
	}
	if err := r.h.journal.Put(r.run.ID, e, at); err != nil {
		r.h.log.Error("journaling a call failed", "run", r.run.ID, "seq", c.Seq, "err", err)
		r.record(c.Seq, c.Address, false, ms)
		return nil, fmt.Errorf("the outcome of call %d (%s) could not be journaled, so it is withheld: %w", c.Seq, c.Address, err)
	}
	r.record(c.Seq, c.Address, te == nil, ms)
	if te != nil {
		return nil, te
	}
	return val, nil
}

// reserve counts n more bytes of the run's journal against retention,
// or says why they cannot be stored.
func (r *runHost) reserve(n int64) string {
	r.mu.Lock()
	have := r.stored
	r.mu.Unlock()
	if why := r.h.reserveStore(context.Background(), r.run.ID, have, n); why != "" {
		return why
	}
	r.mu.Lock()
	r.stored += n
	r.mu.Unlock()
	return ""
}

// upstreamToolError turns an upstream failure into a ToolError, retryable
// when it is; a call not repeatable that got no answer once sent is interrupted.
func upstreamToolError(address string, err error, timeout time.Duration, repeat bool) *sandbox.ToolError {
	var ue *upstream.Error
	if errors.As(err, &ue) && ue.Sent && !repeat {
		return &sandbox.ToolError{Code: CodeInterrupted, Address: address, Status: ue.Status, Message: ue.Error() + "; it was sent and may have happened", Hint: Hint(CodeInterrupted)}
	}
	if errors.As(err, &ue) {
		code := CodeUpstreamError
		switch ue.Kind {
		case upstream.KindTimeout:
			code = CodeUpstreamTimeout
		case upstream.KindUnavailable:
			return sourceUnavailableError(address, ue)
		case upstream.KindUnknownConnection:
			code = CodeUnknownConn
		case upstream.KindUnknownSource:
			code = CodeUnknownTool
		case upstream.KindArguments:
			code = CodeInvalidArgs
		}
		return &sandbox.ToolError{Code: code, Address: address, Message: ue.Error(), Hint: cmp.Or(ue.Hint(), Hint(code)), Status: ue.Status, Retryable: ue.Retryable}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &sandbox.ToolError{Code: CodeUpstreamTimeout, Address: address, Message: fmt.Sprintf("no answer within %s", timeout), Hint: Hint(CodeUpstreamTimeout), Retryable: true}
	}
	return &sandbox.ToolError{Code: CodeUpstreamError, Address: address, Message: err.Error(), Hint: Hint(CodeUpstreamError)}
}

// firstLine trims s and caps it at max bytes, with a marker that says how
// much was cut.
func firstLine(s string, max int) string {
	return secrets.Cap(strings.TrimSpace(s), max)
}

// validateArgs checks arguments against the tool's input schema before the
// call leaves the hub. A schema the validator cannot use is skipped (the
// upstream validates too); bad arguments fail with the field named.
func (r *runHost) validateArgs(tool *catalog.Tool, args json.RawMessage) *sandbox.ToolError {
	resolved := r.snap.InputSchema(tool)
	if resolved == nil {
		return nil
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return toolError(CodeInvalidArgs, tool.Address, "arguments are not JSON: %v", err)
	}
	if inst == nil {
		inst = map[string]any{}
	}
	if err := resolved.Validate(inst); err != nil {
		return toolError(CodeInvalidArgs, tool.Address, "%s", strings.TrimPrefix(err.Error(), "validating root: "))
	}
	return nil
}

// knownSecrets returns the connection secrets the hub can read, for
// redaction. Secrets that cannot be read are simply not masked by value
// (key- and shape-based masking still applies).
func (h *Hub) knownSecrets() []string {
	for name, s := range h.Config().Sources {
		for _, conn := range s.ConnectionNames() {
			var vals []string
			for _, ref := range s.SecretRefs(conn) {
				if v, err := h.kc.Get(config.SecretKey(name, conn, ref)); err == nil && v != "" {
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				h.secrets.Set(secrets.ConnectionOwner(name, conn), vals...)
			}
		}
	}
	return h.secrets.Values()
}
