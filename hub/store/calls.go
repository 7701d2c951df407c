package store

// A run's calls as the window's Runs tab shows them: each journaled call
// with the arguments a person saw (redacted), its result or handle, its
// timing and who decided it, through which channel.

import (
	"context"
	"slices"
	"time"
)

// callResultMax bounds the result text of one call in CallDetail: the
// window shows it, the whole result stays in the journal and its handle.
const callResultMax = 8 << 10

// CallDetail is one tool call of a run.
type CallDetail struct {
	Seq        int    `json:"seq"`
	Address    string `json:"address"`
	Connection string `json:"connection,omitempty"`
	// State is the journal's: ok, error, issued (sent, no answer kept),
	// pending (waits for a person) or read (a handle's page).
	State string `json:"state"`
	// Args are the arguments as the approval showed them, redacted, or
	// else as the journal kept them: scrubbed of every known secret and
	// cut to MaxArgsBytes (ArgsCut says it was). "" when they were
	// not recorded (calls journaled before the journal kept arguments).
	Args    string `json:"args,omitempty"`
	ArgsCut bool   `json:"argsCut,omitempty"`
	// Result is the outcome as journaled (the result, the error, or the
	// handle it was kept under), scrubbed of secrets and cut to
	// callResultMax bytes; Cut says it was.
	Result string `json:"result,omitempty"`
	Cut    bool   `json:"cut,omitempty"`
	Ms     int64  `json:"ms"`
	// Decision is a person's answer (allow or deny) when the call asked;
	// "" when policy let it through without asking, or nobody answered
	// yet. Channel and Actor say where and who; Remember that it was an
	// "always".
	Decision string    `json:"decision,omitempty"`
	Channel  string    `json:"channel,omitempty"`
	Actor    string    `json:"actor,omitempty"`
	Remember bool      `json:"remember,omitempty"`
	Decided  time.Time `json:"decided,omitzero"`
	Reason   string    `json:"reason,omitempty"` // why it asked
}

// RunCalls returns the calls of run runID in journal order, with the
// approvals they waited for. redact hides the secrets of a journaled
// result or arguments (an approval's preview is redacted already).
func (db *DB) RunCalls(ctx context.Context, runID string, redact func(string) string) ([]CallDetail, error) {
	journal, err := db.ReadJournal(ctx, runID)
	if err != nil {
		return nil, err
	}
	pend, err := db.PendingOf(ctx, runID)
	if err != nil {
		return nil, err
	}
	actors := map[string]string{}
	if hist, err := db.History(ctx, 500); err == nil {
		for _, e := range hist {
			if e.RunID == runID && e.PendingID != "" && actors[e.PendingID] == "" {
				actors[e.PendingID] = e.Actor
			}
		}
	}
	seqs := make([]int, 0, len(journal))
	for seq := range journal {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	out := make([]CallDetail, 0, len(seqs))
	used := map[string]bool{}
	for _, seq := range seqs {
		e := journal[seq]
		c := CallDetail{Seq: seq, Address: e.Address, Connection: e.Connection, State: e.State, Ms: e.Ms}
		if len(e.Outcome) > 0 {
			c.Result = redact(string(e.Outcome))
			if len(c.Result) > callResultMax {
				c.Result, c.Cut = cutUTF8(c.Result, callResultMax), true
			}
		}
		// The call's own input, else the first unused planned entry of
		// its address (a plan's rows carry the seq the call had while
		// planning).
		var p *Pending
		for _, q := range pend {
			if q.Seq == seq && q.Kind == "approval" {
				p = q
				break
			}
		}
		if p == nil {
			for _, q := range pend {
				if q.Seq < 0 && q.Address == e.Address && !used[q.ID] {
					p = q
					break
				}
			}
		}
		if p != nil {
			used[p.ID] = true
			c.Args, c.Decision, c.Channel, c.Remember, c.Decided, c.Reason = p.Preview, p.Decision, p.Channel, p.Remember, p.Decided, p.Reason
			c.Actor = actors[p.ID]
		}
		if c.Args == "" && e.Args != "" {
			c.Args, c.ArgsCut = redact(e.Args), e.ArgsCut
		}
		out = append(out, c)
	}
	return out, nil
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
