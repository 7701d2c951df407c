package hub

// A run's calls as the window's Runs tab shows them (store.CallDetail),
// and the arguments a call's journal entry keeps.

import (
	"context"

	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// RunCalls returns the calls of run runID in journal order, with the
// approvals they waited for (store.DB.RunCalls), their results and
// arguments redacted of every secret the hub knows.
func (h *Hub) RunCalls(ctx context.Context, runID string) ([]store.CallDetail, error) {
	return h.db.RunCalls(ctx, runID, func(s string) string { return secrets.RedactCredentials(h.secrets.Scrub(s)) })
}

// argsToKeep is what call c's journal entry keeps of its arguments, put
// with the call's first entry of the attempt: scrubbed of every secret
// value the hub knows, as its result is, cut to store.MaxArgsBytes and
// counted against the run's share of the store. "" (the entry keeps what
// it holds) after that, when the journal held them already, or when the
// store has no room for them: the call shows them as not recorded.
func (r *runHost) argsToKeep(c sandbox.Call) string {
	r.mu.Lock()
	done := r.argsPut[c.Seq] || (r.journal[c.Seq] != nil && r.journal[c.Seq].Args != "")
	if !done {
		if r.argsPut == nil {
			r.argsPut = map[int]bool{}
		}
		r.argsPut[c.Seq] = true
	}
	r.mu.Unlock()
	if done {
		return ""
	}
	args := store.KeepArgs(r.h.secrets.ScrubJSON(c.Args))
	if r.reserve(int64(len(args))) != "" {
		return ""
	}
	return args
}
