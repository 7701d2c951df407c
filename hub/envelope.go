package hub

import (
	"capabilities.sh/capabilities/hub/secrets"
	"encoding/json"
	"fmt"
)

// Run statuses, as the envelope reports them.
const (
	StatusRunning            = "running" // only in the store, while an attempt runs
	StatusCompleted          = "completed"
	StatusFailed             = "failed"
	StatusAwaitingApproval   = "awaiting_approval"
	StatusAwaitingConnection = "awaiting_connection"
	StatusCancelled          = "cancelled"
)

// Envelope is what execute returns: the spec's ExecuteEnvelope.
type Envelope struct {
	RunID     string          `json:"runId"`
	Status    string          `json:"status"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *EnvelopeError  `json:"error,omitempty"`
	Logs      []string        `json:"logs,omitempty"`
	Calls     []CallRecord    `json:"calls"`
	Pending   []PendingItem   `json:"pending,omitempty"`
	Truncated *Truncated      `json:"truncated,omitempty"`
	Notices   []string        `json:"notices,omitempty"`
}

// EnvelopeError is a failed run's error.
type EnvelopeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// CallRecord is one tool call of a run.
type CallRecord struct {
	Address string `json:"address"`
	OK      bool   `json:"ok"`
	Ms      int64  `json:"ms"`
}

// PendingItem is an input a run waits for.
type PendingItem struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"` // approval | connection
	Address string `json:"address,omitempty"`
	Summary string `json:"summary"`
	Message string `json:"message,omitempty"`
}

// Truncated says what was cut to fit inlineResultBytes.
type Truncated struct {
	Result bool `json:"result,omitempty"`
	Logs   bool `json:"logs,omitempty"`
}

// Terminal reports whether the status is final.
func Terminal(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusCancelled
}

// Line is the envelope as one compact line of JSON, the text form of the
// execute result. The sandbox's inline budget counts the result and logs
// as json.Marshal writes them here, and again inside this line sent as a
// JSON string (sandbox/inline.go): keep the two encodings in step.
func (e *Envelope) Line() string {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Sprintf(`{"runId":%q,"status":%q}`, e.RunID, e.Status)
	}
	return string(b)
}

func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// seal makes e fit to leave the hub and to be stored: every known secret
// value is scrubbed from its result, logs and error, and the error message
// is capped at budget bytes (inlineResultBytes) with a marker saying how
// much was cut.
func (e *Envelope) seal(sec *secrets.Secrets, budget int) {
	e.Result = sec.ScrubJSON(e.Result)
	for i, l := range e.Logs {
		e.Logs[i] = sec.Scrub(l)
	}
	if e.Error != nil {
		e.Error.Message = secrets.Cap(sec.Scrub(e.Error.Message), budget)
		e.Error.Hint = secrets.Cap(sec.Scrub(e.Error.Hint), budget)
	}
}
