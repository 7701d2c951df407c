package sandbox

import (
	"encoding/json"
	"errors"

	"github.com/dop251/goja"
)

// outcome builds the Outcome once the loop is over.
func (r *run) outcome() Outcome {
	out := Outcome{Calls: r.seq, Fired: r.fired, Planned: r.planned}
	var result json.RawMessage
	failure := r.failure.Load()
	// Once the code holds a placeholder, the result is symbolic JSON.
	stringify := r.stringify
	if len(r.planned) > 0 {
		stringify = func(this goja.Value, args ...goja.Value) (goja.Value, error) {
			v, err := r.symbolic(this, args...)
			if err != nil {
				return nil, err
			}
			return v.ToObject(r.rt).Get("0"), nil
		}
	}
	switch {
	case failure != nil:
	case len(r.suspends) > 0:
	case r.main.State() == goja.PromiseStateRejected:
		r.fail(r.uncaught(r.main.Result()))
	default:
		v := r.main.Result()
		if !goja.IsUndefined(v) {
			err := r.timed(func() error {
				s, err := stringify(goja.Undefined(), v)
				if err != nil {
					return err
				}
				if !goja.IsUndefined(s) {
					result = json.RawMessage(s.String())
				}
				return nil
			})
			if err != nil {
				var ex *goja.Exception
				if errors.As(err, &ex) {
					r.fail(newError(CodeResultNotJSON, "the returned value cannot be turned into JSON: %s", r.describeValue(ex.Value())))
				} else {
					r.failFrom(err)
				}
			}
		}
	}
	out.Compute = r.compute
	failure = r.failure.Load()
	stopped := failure != nil && failure == r.stopErr
	switch {
	case failure != nil && !stopped:
		out.Status = StatusFailed
		if failure.Code == CodeCancelled {
			out.Status = StatusCancelled
		}
		out.Error = failure
		result = nil
	case len(r.suspends) > 0:
		out.Status = StatusSuspended
		out.Suspends = sortSuspends(r.suspends)
		result = nil
	case len(r.planned) > 0 || stopped:
		out.Status = StatusPlanned
		if stopped {
			out.Stop = r.planStop
			result = nil
		}
	default:
		out.Status = StatusCompleted
	}
	out.Result, out.Logs, out.Truncated = fitBudget(result, r.logs, r.limits.InlineResultBytes)
	out.Truncated.Logs = out.Truncated.Logs || r.truncLogs
	if out.Truncated.Result {
		out.Whole = result
	}
	return out
}

func sortSuspends(s []*Suspend) []*Suspend {
	out := append([]*Suspend(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Seq < out[j-1].Seq; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// maxPreviewCost bounds the preview of a result over the inline budget:
// enough to show its shape (about 3 KB of plain text), leaving the rest of
// the budget to the logs. A host hands out the whole value by handle.
const maxPreviewCost = 6 << 10

// fitBudget keeps the result and the logs within budget together, each at
// its cost as the host returns it (see inline.go). The result comes first;
// a result too large on its own becomes a JSON string holding the start of
// its JSON text, costing at most 3/4 of the budget and maxPreviewCost.
func fitBudget(result json.RawMessage, logs []string, budget int) (json.RawMessage, []string, Truncated) {
	var tr Truncated
	if rawCost(result) > budget {
		tr.Result = true
		result = preview(result, min(budget*3/4, maxPreviewCost))
	}
	room := budget - rawCost(result)
	var kept []string
	for _, l := range logs {
		cost := logCost(l)
		if cost > room {
			tr.Logs = true
			if room > 64 {
				if cut, ok := cutToCost(l, "…", room); ok {
					kept = append(kept, cut)
				}
			}
			break
		}
		kept = append(kept, l)
		room -= cost
	}
	return result, kept, tr
}

// preview returns a JSON string costing at most max (see inline.go) that
// holds the start of raw (of the string itself when raw is a JSON string)
// and a marker.
func preview(raw json.RawMessage, max int) json.RawMessage {
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	}
	const marker = "… (truncated)"
	// As a log line costs its string plus a separator.
	if cut, ok := cutToCost(text, marker, max+2); ok {
		b, _ := json.Marshal(cut)
		return b
	}
	b, _ := json.Marshal(marker)
	return b
}
