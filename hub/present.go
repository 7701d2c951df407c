package hub

import (
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// SetApprovalPresenter registers present, which shows a pending approval
// to the person (the tray app's dialog) and reports whether it did. The
// model is told that a dialog is open on the person's screen only when a
// presenter showed the approval; otherwise it is told that the person can
// decide with `capabilities hub approve <runId>`. The returned function
// removes present. present is called while an execute returns and must
// not block.
func (h *Hub) SetApprovalPresenter(present func(Approval) bool) (remove func()) {
	return h.presenters.Add(present)
}

// presentApproval offers a pending approval to the presenters and reports
// whether one showed it.
func (h *Hub) presentApproval(p *store.Pending) bool {
	return h.presenters.Offer(func() Approval { return h.approvalOf(p) })
}

// pendingMessage is what the model is told about a pending approval: what
// actually happened on the person's side (a dialog is open only when one
// was shown), and the terminal command that always works. Never a URL or
// a token.
func pendingMessage(runID string, shown bool) string {
	resume := "execute({ \"resume\": \"" + runID + "\" })"
	if shown {
		return "An approval dialog is open on the user's screen. Tell the user, and after they decide call " + resume +
			". They can also decide in a terminal: capabilities hub approve " + runID
	}
	return "The user has to approve this call. Tell them to run `capabilities hub approve " + runID +
		"` in a terminal, and after they decide call " + resume + "."
}

// redactCode is a run's code as a person sees it beside an approval or in
// the run's details: the known secrets and the credentials of well-known
// shapes hidden, as in the preview of the call's arguments.
func (h *Hub) redactCode(code string) string {
	return secrets.RedactCredentials(h.secrets.Scrub(sandbox.CallShown(code)))
}
