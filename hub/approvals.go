package hub

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/inputstate"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// Decisions a person can make on a pending approval.
const (
	AllowOnce   = "allow_once"
	AllowAlways = "allow_always"
	DenyOnce    = "deny"
	DenyAlways  = "deny_always"
)

// ParseDecision accepts allow_once, allow_always, deny, deny_always.
func ParseDecision(s string) (decision string, remember bool, err error) {
	switch s {
	case AllowOnce:
		return "allow", false, nil
	case AllowAlways:
		return "allow", true, nil
	case DenyOnce, "deny_once":
		return "deny", false, nil
	case DenyAlways:
		return "deny", true, nil
	}
	return "", false, fmt.Errorf("decision %q: must be allow_once, allow_always, deny or deny_always", s)
}

// Approval is a pending call as a person sees it, already redacted.
type Approval struct {
	ID                string    `json:"id"`
	RunID             string    `json:"runId"`
	Seq               int       `json:"seq"`
	Kind              string    `json:"kind"`
	Address           string    `json:"address"`
	Title             string    `json:"title,omitempty"`
	Connection        string    `json:"connection"`
	DefaultConnection bool      `json:"defaultConnection"`
	Reason            string    `json:"reason"`
	Client            string    `json:"client,omitempty"`
	Preview           string    `json:"preview"` // the whole call as sent, indented JSON, with only known secrets and credential shapes hidden; never cut
	Created           time.Time `json:"created"`
	Expires           time.Time `json:"expires"`
	Expired           bool      `json:"expired,omitempty"`
	Decision          string    `json:"decision,omitempty"`
	Channel           string    `json:"channel,omitempty"`
	// Change says what changed in the tool's definition since the person
	// accepted it ("description, annotations (no longer read-only)
	// changed"); allowing the call accepts the new definition. "" when the
	// definition did not change.
	Change string `json:"change,omitempty"`
	// Description and Annotations are the tool's, from the catalog:
	// annotations in words ("read-only", "destructive", "idempotent",
	// "open world"). Code is the run's code, for a person to see the call
	// in its context.
	Description string   `json:"description,omitempty"`
	Annotations []string `json:"annotations,omitempty"`
	Code        string   `json:"code,omitempty"`
	// Source is the config name of the tool's source ("" when the tool
	// left the catalog); a connection input names its secret by it.
	Source string `json:"source,omitempty"`
	// Plan is set when the call is one of a run's plan (plan.go): Seq is
	// then the call's seq while planning, and Preview shows a placeholder
	// for an earlier planned call's result as <result of call N>.path.
	Plan *PlanInfo `json:"plan,omitempty"`
	// Request is an OpenAPI operation's method, path template and
	// server; nil for an MCP tool.
	Request *upstream.RESTRequest `json:"request,omitempty"`
	// DefinitionWas and DefinitionIs are the accepted and the current
	// definition of a changed tool, as JSON, when the store kept the
	// accepted one and the current one is the one asked about.
	DefinitionWas string `json:"definitionWas,omitempty"`
	DefinitionIs  string `json:"definitionIs,omitempty"`
	// SecretWhere says, for a connection input, what the secret fills
	// ("header X-API-Key", "environment variable GITHUB_TOKEN"), when the
	// hub can tell; SignIn is set when a sign-in provides it instead.
	SecretWhere string `json:"secretWhere,omitempty"`
	SignIn      bool   `json:"signIn,omitempty"`
	// OffersSignIn is set when the call, a REST API's, takes a token its
	// document's OAuth flow gives: a sign-in provides it as well as a
	// pasted token.
	OffersSignIn bool `json:"offersSignIn,omitempty"`
}

// Pending lists the approvals and connection inputs nobody decided yet,
// oldest first. runID filters to one run when set. The preview of each is
// built again from the journal's redacted summary; raw arguments are never
// stored.
func (h *Hub) Pending(ctx context.Context, runID string) ([]Approval, error) {
	var rows []*store.Pending
	var err error
	if runID != "" {
		all, e := h.db.PendingOf(ctx, runID)
		err = e
		for _, p := range all {
			if p.Decision == "" {
				rows = append(rows, p)
			}
		}
	} else {
		rows, err = h.db.OpenPending(ctx)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Approval, 0, len(rows))
	codes := map[string]string{}
	for _, p := range rows {
		a := h.approvalOf(p)
		code, ok := codes[p.RunID]
		if !ok {
			if c, err := h.db.ShownCode(ctx, p.RunID); err == nil {
				code = h.redactCode(c)
			} else if !errors.Is(err, ErrNoRun) {
				return nil, err
			}
			codes[p.RunID] = code
		}
		a.Code = code
		out = append(out, a)
	}
	if err := h.withPlans(ctx, rows, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (h *Hub) approvalOf(p *store.Pending) Approval {
	a := Approval{
		ID: p.ID, RunID: p.RunID, Seq: p.Seq, Kind: p.Kind, Address: p.Address, Connection: p.Connection,
		Reason: p.Reason, Client: p.Client, Preview: p.Preview, Created: p.Created, Expires: p.Expires,
		Expired: p.Decision == "" && h.now().After(p.Expires), Decision: p.Decision, Channel: p.Channel,
		Change: p.Change,
	}
	if p.Plan != nil {
		a.Seq = plannedSeq(p)
		a.Plan = &PlanInfo{Seq: a.Seq, Missing: p.Plan.Missing}
	}
	if t, ok := h.catalog.Snapshot().Lookup(p.Address); ok {
		a.Title = t.Title
		a.Description = t.Description
		a.Source = t.Source
		a.Annotations = catalog.AnnotationWords(t.Annotations)
		if s := h.Config().Sources[t.Source]; s != nil {
			a.DefaultConnection = s.DefaultConnection() == p.Connection
		}
		if t.Request != nil {
			req := *t.Request
			a.Request = &req
		}
		if p.Change != "" && t.PinnedDefinition != nil && (p.DefHash == "" || p.DefHash == t.Hash) {
			if cur, err := t.DefinitionJSON(); err == nil {
				a.DefinitionWas, a.DefinitionIs = string(t.PinnedDefinition), string(cur)
			}
		}
		if p.Kind == KindConnection {
			if slot, err := h.SecretSlot(t.Source, p.Connection, ""); err == nil {
				a.SecretWhere, a.SignIn = slot.Where, slot.SignIn
			}
			a.SignIn = a.SignIn || strings.HasPrefix(p.Reason, signInReason)
			if s := h.Config().Sources[t.Source]; !a.SignIn && s != nil && s.OpenAPI != "" {
				a.OffersSignIn = h.openapi.OffersSignIn(t.Source, t.Name)
			}
		}
	}
	return a
}

// Decide records a person's decision on a pending approval. The next resume
// of its run honours it. channel says where it came from (dialog, client,
// cli); deciding twice returns ErrAlreadyDecided; an expired approval is
// refused.
func (h *Hub) Decide(ctx context.Context, pendingID, decision, channel, actor string) error {
	verdict, remember, err := ParseDecision(decision)
	if err != nil {
		return err
	}
	p, err := h.pendingByID(ctx, pendingID)
	if err != nil {
		return err
	}
	if p.Kind != KindApproval {
		return fmt.Errorf("%s waits for a connection secret, not a decision: capabilities connection add", pendingID)
	}
	if p.Decision != "" {
		return fmt.Errorf("approval %s: %w (%s by %s)", pendingID, ErrAlreadyDecided, p.Decision, p.Channel)
	}
	if h.now().After(p.Expires) {
		return fmt.Errorf("approval %s expired at %s", pendingID, p.Expires.UTC().Format(time.RFC3339))
	}
	if remember && verdict == "allow" && scope.MadeInProfile(p.Client) {
		// A call asked inside a profile is allowed once: a remembered
		// allow would widen what the whole hub and every other profile
		// get, and the profile's own rules would ask again anyway.
		remember = false
	}
	if err := h.db.Decide(ctx, p, verdict, remember, channel, actor, h.now()); err != nil {
		return err
	}
	if verdict == "allow" {
		// The person consented to the definition the approval showed.
		if err := h.pinApproved(ctx, p, channel); err != nil {
			return err
		}
	}
	if remember {
		if err := h.reloadPolicy(ctx); err != nil {
			return err
		}
	}
	h.log.Info("approval decided", "id", pendingID, "run", p.RunID, "address", p.Address, "decision", decision, "channel", channel)
	h.events.Publish(Event{Kind: EventApprovalDecided, ID: pendingID})
	return nil
}

// expireLoop announces approvals as they expire, so dialogs can say so.
func (h *Hub) expireLoop(ctx context.Context) {
	announced := map[string]bool{}
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rows, err := h.db.OpenPending(ctx)
		if err != nil {
			continue
		}
		now := h.now()
		for _, p := range rows {
			if now.After(p.Expires) && !announced[p.ID] {
				announced[p.ID] = true
				h.events.Publish(Event{Kind: EventApprovalExpired, ID: p.ID})
			}
		}
	}
}

// key returns the signing key, loading it on first use: the keychain may be
// slow or locked, and most runs never need it.
func (h *Hub) key() []byte {
	h.signOnce.Do(func() { h.signKey = inputstate.LoadKey(h.kc, h.log) })
	return h.signKey
}

// RedeemInputs checks a state SignInputs signed against the stored pending
// calls and records the client's answers (pending id to decision, as
// ParseDecision reads it; "" or absent leaves the call pending) through
// ChannelClient, with actor as who answered. Each state is accepted once,
// and only for the exact pending calls (run, sequence number, arguments
// hash) it was signed for; any other state is refused with an error
// matching inputstate.ErrBadState. It returns the run and the pending calls the state
// asked about.
func (h *Hub) RedeemInputs(ctx context.Context, state string, answers map[string]string, actor string) (runID string, asked []string, err error) {
	st, err := h.redeemInput(ctx, state, answers, actor)
	if err != nil {
		return "", nil, err
	}
	for _, c := range st.Calls {
		asked = append(asked, c.PendingID)
		if st.Whole {
			break // one question for them all
		}
	}
	return st.RunID, asked, nil
}

// redeemInput is RedeemInputs, returning the state it redeemed.
func (h *Hub) redeemInput(ctx context.Context, state string, answers map[string]string, actor string) (*inputstate.State, error) {
	st, err := inputstate.Verify(h.key(), state, h.now())
	if err != nil {
		return nil, err
	}
	for _, c := range st.Calls {
		p, err := h.pendingByID(ctx, c.PendingID)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", inputstate.ErrBadState, err)
		}
		if p.RunID != st.RunID || p.Seq != c.Seq || p.ArgsHash != c.ArgsHash {
			return nil, fmt.Errorf("%w: it does not match pending call %s", inputstate.ErrBadState, c.PendingID)
		}
	}
	for _, c := range st.Calls {
		ok, err := h.db.RedeemStateNonce(ctx, c.PendingID, st.Nonce)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: already used, or replaced by a newer request", inputstate.ErrBadState)
		}
	}
	for _, c := range st.Calls {
		ans, ok := answers[c.PendingID]
		if st.Whole {
			ans, ok = answers[st.Calls[0].PendingID]
		}
		if !ok || ans == "" {
			continue // dismissed: the call stays pending for another channel
		}
		if err := h.Decide(ctx, c.PendingID, ans, policy.ChannelClient, actor); err != nil && !errors.Is(err, ErrAlreadyDecided) {
			return nil, err
		}
	}
	return st, nil
}

// SignInputs signs the state of an input request that asks a client about
// pendingIDs, open approvals of run runID, for RedeemInputs to check when
// the client answers. Only the last state signed for a call can answer it,
// once: each call's row keeps the state's nonce, which RedeemInputs uses
// up.
func (h *Hub) SignInputs(ctx context.Context, runID string, pendingIDs []string) (string, error) {
	return h.signInputs(ctx, runID, pendingIDs, false)
}

// SignPlan is SignInputs for one input request that asks once about all of
// pendingIDs, the open calls of a run's plan, keyed by the first of them:
// RedeemInputs takes the answer for that one as the answer for each.
func (h *Hub) SignPlan(ctx context.Context, runID string, pendingIDs []string) (string, error) {
	return h.signInputs(ctx, runID, pendingIDs, true)
}

func (h *Hub) signInputs(ctx context.Context, runID string, pendingIDs []string, whole bool) (string, error) {
	rows, err := h.db.PendingOf(ctx, runID)
	if err != nil {
		return "", err
	}
	byID := make(map[string]*store.Pending, len(rows))
	for _, p := range rows {
		byID[p.ID] = p
	}
	pend := make([]*store.Pending, 0, len(pendingIDs))
	for _, id := range pendingIDs {
		p, ok := byID[id]
		if !ok || p.Kind != KindApproval || p.Decision != "" {
			return "", fmt.Errorf("%s is not an open approval of run %s", id, runID)
		}
		pend = append(pend, p)
	}
	return h.newInputState(ctx, runID, pend, whole)
}

// newInputState signs a state for pend, open approvals of run runID, asked
// about together when whole.
func (h *Hub) newInputState(ctx context.Context, runID string, pend []*store.Pending, whole bool) (string, error) {
	st := inputstate.State{RunID: runID, Expires: h.now().Add(h.ttl).UnixMilli(), Whole: whole}
	var nonce [12]byte
	rand.Read(nonce[:])
	st.Nonce = base64.RawURLEncoding.EncodeToString(nonce[:])
	for _, p := range pend {
		st.Calls = append(st.Calls, inputstate.Call{PendingID: p.ID, Seq: p.Seq, ArgsHash: p.ArgsHash})
		if err := h.db.SetStateNonce(ctx, p.ID, st.Nonce); err != nil {
			return "", err
		}
	}
	return inputstate.Sign(h.key(), st), nil
}

// ApproveRun decides every open approval of a run at once (the CLI's
// `hub approve RUNID --yes|--deny [--always]`).
func (h *Hub) ApproveRun(ctx context.Context, runID, decision, channel, actor string) ([]Approval, error) {
	pend, err := h.Pending(ctx, runID)
	if err != nil {
		return nil, err
	}
	var decided []Approval
	for _, a := range pend {
		if a.Kind != KindApproval {
			continue
		}
		if err := h.Decide(ctx, a.ID, decision, channel, actor); err != nil {
			return decided, err
		}
		decided = append(decided, a)
	}
	return decided, nil
}

// pinApproved pins the definition an allowed approval was asked for, when
// it is still the tool's definition: the person saw it (and what changed in
// it) and consented.
func (h *Hub) pinApproved(ctx context.Context, p *store.Pending, channel string) error {
	if p.DefHash == "" {
		return nil
	}
	t, ok := h.catalog.Snapshot().Lookup(p.Address)
	if !ok || t.Hash != p.DefHash || t.Pinned == p.DefHash {
		return nil
	}
	if _, err := h.catalog.Pin(ctx, []*catalog.Tool{t}, []string{p.DefHash}); err != nil {
		return err
	}
	return h.db.Audit(ctx, store.AuditEntry{At: h.now(), Channel: channel, RunID: p.RunID, Address: p.Address, Decision: "accept_definition", Detail: p.Change})
}

// ToolChangeInfo is a changed tool definition as the person reviews it.
type ToolChangeInfo struct {
	Address string
	Summary string
	Hash    string // the current definition's, which AcceptShown pins
	Seen    time.Time
}

// ToolChanges lists tool definitions that changed since they were pinned
// (the person consented to them or first saw them). New tools are not
// listed: they follow the policy like any tool. ChangedDefinition reads
// one's definitions.
func (h *Hub) ToolChanges(ctx context.Context) ([]ToolChangeInfo, error) {
	changes, err := h.catalog.Changes(ctx)
	changes = append(changes, h.skills.Changes()...) // upstream skills' entries
	var out []ToolChangeInfo
	for _, c := range changes {
		out = append(out, ToolChangeInfo{Address: c.Address, Seen: c.At, Hash: c.NewHash, Summary: c.Change})
	}
	return out, err
}

// ChangedDefinition is catalog.Snapshot.ChangedDefinition, now, or for
// an upstream skill (skill:...) skills.Registry.ChangedDefinition.
func (h *Hub) ChangedDefinition(ctx context.Context, address string) (was, is json.RawMessage, hash string, err error) {
	if strings.HasPrefix(address, "skill:") {
		return h.skills.ChangedDefinition(ctx, address)
	}
	return h.catalog.Snapshot().ChangedDefinition(address)
}

// ChangedHash is the hash ChangedDefinition gives for address, without
// reading an upstream skill's text from its source.
func (h *Hub) ChangedHash(ctx context.Context, address string) (string, error) {
	if strings.HasPrefix(address, "skill:") {
		return h.skills.ChangedHash(address)
	}
	_, _, hash, err := h.ChangedDefinition(ctx, address)
	return hash, err
}

// AcceptShown accepts the definitions a person was shown, each only while
// it is still the tool's definition (catalog.AcceptShown) or the upstream
// skill's entry (skills.Registry.AcceptShown); one that changed again since
// is left asking and named in the error.
func (h *Hub) AcceptShown(ctx context.Context, shown []catalog.Shown, channel string) ([]catalog.ToolChange, error) {
	var tools, skills []catalog.Shown
	for _, s := range shown {
		if strings.HasPrefix(s.Address, "skill:") {
			skills = append(skills, s)
		} else {
			tools = append(tools, s)
		}
	}
	acceptedSkills, stale, err := h.skills.AcceptShown(ctx, skills, channel) // audited there
	if err != nil {
		return acceptedSkills, err
	}
	accepted, staleTools, err := h.catalog.AcceptShown(ctx, tools)
	err, stale = cmp.Or(err, h.acceptedDefinitions(ctx, accepted, channel)), append(staleTools, stale...)
	if err == nil && len(stale) > 0 {
		err = fmt.Errorf("%s changed again since shown (or left the catalog); look at it again", strings.Join(stale, ", "))
	}
	return append(accepted, acceptedSkills...), err
}

// AcceptDefinitions accepts the current definitions of the tools target
// names (an address in either form, a namespace, a glob): their calls stop
// asking because of the change, and remembered allows move to the new
// definitions. It returns the changes it accepted, each audited with
// channel; a target that names no tool is an error.
func (h *Hub) AcceptDefinitions(ctx context.Context, target, channel string) ([]catalog.ToolChange, error) {
	if strings.HasPrefix(target, "skill:") {
		return h.skills.Accept(ctx, target, channel)
	}
	accepted, err := h.catalog.Accept(ctx, target)
	if err != nil {
		return nil, err
	}
	return accepted, h.acceptedDefinitions(ctx, accepted, channel)
}

// acceptedDefinitions audits definitions accepted through channel and
// lets the policy and the window see them.
func (h *Hub) acceptedDefinitions(ctx context.Context, accepted []catalog.ToolChange, channel string) error {
	for _, c := range accepted {
		if err := h.db.Audit(ctx, store.AuditEntry{At: h.now(), Channel: channel, Address: c.Address, Decision: "accept_definition", Detail: c.Change}); err != nil {
			return err
		}
	}
	if len(accepted) > 0 {
		if err := h.reloadPolicy(ctx); err != nil {
			return err
		}
		h.events.Publish(Event{Kind: EventCatalog})
	}
	return nil
}
