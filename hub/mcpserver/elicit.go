package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/inputstate"
)

// Legacy elicitation: a client of a protocol before 2026-07-28 cannot take
// input requests in a tool's result, but one that declared form elicitation
// takes an elicitation/create request while the tool call is in flight. The
// hub asks it the questions an input request would carry (one per call, or
// one for a run's plan), records the answers through the same signed state
// an input request's answers go through, and resumes the run, so the model
// gets the run's result in the same call. A client with neither keeps the
// envelope that says the run awaits approval.

// canElicit reports whether the client of req takes elicitation/create
// requests: it negotiated a protocol before 2026-07-28 (which forbids
// requests from the server and asks in input requests instead) and declared
// form elicitation. A session of the stateless HTTP endpoint never declared
// anything, so it gets the envelope.
func canElicit(req *mcp.CallToolRequest) bool {
	if req.Session == nil || req.ProtocolVersion() >= "2026-07-28" {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil // an empty elicitation capability means form
}

// elicitApprovals asks the client of ss about the open approvals of run
// runID with elicitation/create requests, one per question (a run's plan
// is one question, whose answer decides each of its calls), and records the
// answers as RedeemInputs records an input request's, through ChannelClient
// with client as who answered. A declined or cancelled form, or an answer
// that is not one of the choices, leaves its calls pending.
//
// decided reports that an answer was recorded (the run can resume);
// dismissed that a question was left undecided, so the caller should not
// ask again at once. An error that wraps inputstate.ErrBadState says the answer
// was refused (the pending calls changed, or the state expired while the
// person looked); any other error says the client could not be asked.
//
// It blocks until the client answers every question or ctx ends; ss must
// be the session of the call in flight.
func (m *server) elicitApprovals(ctx context.Context, ss *mcp.ServerSession, runID, client string) (decided, dismissed bool, err error) {
	pend, err := m.hub.Pending(ctx, runID)
	if err != nil {
		return false, false, err
	}
	open, qs, whole := questions(pend)
	if len(open) == 0 {
		return false, false, nil
	}
	state, err := m.sign(ctx, runID, open, whole)
	if err != nil {
		return false, false, fmt.Errorf("signing the elicitation's state: %w", err)
	}
	answers := make(map[string]string, len(qs))
	for i, q := range qs {
		about := []string{q.id}
		if whole {
			about = open
		}
		res, elsewhere, err := m.askUntilDecided(ctx, ss, runID, about, q)
		if elsewhere {
			decided = true
			continue
		}
		if err != nil {
			if i == 0 {
				return false, false, fmt.Errorf("asking the client: %w", err)
			}
			// Broken off midway: what was answered stands, the rest stays
			// pending.
			m.log.Info("an approval elicitation failed; its call stays pending", "run", runID, "pending", q.id, "err", err)
			dismissed = true
			break
		}
		if d := elicitDecision(res); d != "" {
			answers[q.id] = d
		} else {
			dismissed = true
		}
	}
	if len(answers) == 0 {
		return decided, dismissed, nil
	}
	if _, _, err := m.hub.RedeemInputs(ctx, state, answers, client); err != nil {
		return false, dismissed, err
	}
	return true, dismissed, nil
}

// askUntilDecided asks the client of ss question q, about the calls ids of
// run runID, and withdraws the form once each of them is decided or
// expired elsewhere (the hub's dialog, `capabilities hub approve`, another
// client): cancelling the request tells the client so
// (notifications/cancelled), and the person is not left with a form whose
// answer would change nothing. elsewhere reports that.
func (m *server) askUntilDecided(ctx context.Context, ss *mcp.ServerSession, runID string, ids []string, q question) (res *mcp.ElicitResult, elsewhere bool, err error) {
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	var settled atomic.Bool
	check := func() bool {
		if m.settled(ctx, runID, ids) {
			settled.Store(true)
			cancel()
		}
		return settled.Load()
	}
	stop := m.hub.Subscribe(func(e hub.Event) {
		if (e.Kind == hub.EventApprovalDecided || e.Kind == hub.EventApprovalExpired) && slices.Contains(ids, e.ID) {
			check()
		}
	})
	defer stop()
	if check() { // decided before the subscription began
		return nil, true, nil
	}
	res, err = ss.Elicit(ectx, &mcp.ElicitParams{Mode: "form", Message: q.message, RequestedSchema: approvalSchema})
	if settled.Load() && ctx.Err() == nil {
		return nil, true, nil
	}
	return res, false, err
}

// settled reports whether none of the calls ids of run runID is still
// open: each is decided, expired or gone.
func (m *server) settled(ctx context.Context, runID string, ids []string) bool {
	pend, err := m.hub.Pending(ctx, runID)
	if err != nil {
		return false
	}
	for _, a := range pend {
		if slices.Contains(ids, a.ID) && a.Decision == "" && !a.Expired {
			return false
		}
	}
	return true
}

// elicitConsent is what a client that takes elicitation gets for a run
// env that awaits approval: it asks with elicitApprovals and resumes the
// run, again each time the run pauses for consent anew, until the run ends
// or a question is left undecided, and returns the run's last envelope (as
// a client gets it after dismissing an input request). A client that
// cannot be asked gets env back. An error that wraps inputstate.ErrBadState says
// the hub refused the answer; any other is the resume's.
func (m *server) elicitConsent(ctx context.Context, ss *mcp.ServerSession, env *hub.Envelope, client string) (*hub.Envelope, error) {
	for env.Status == hub.StatusAwaitingApproval {
		decided, dismissed, err := m.elicitApprovals(ctx, ss, env.RunID, client)
		if errors.Is(err, inputstate.ErrBadState) {
			return env, err
		}
		if err != nil {
			m.log.Info("approvals not asked by elicitation; the client gets the envelope", "run", env.RunID, "err", err)
			return env, nil
		}
		if !decided {
			return env, nil
		}
		if env, err = m.hub.Execute(ctx, hub.ExecuteRequest{Resume: env.RunID, Client: client, Profile: m.profile}); err != nil {
			return nil, err
		}
		if dismissed {
			break
		}
	}
	return env, nil
}
