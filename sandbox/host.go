package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
)

// Namespace is one tool source as the guest sees it: a frozen global object
// named Name with one async method per entry in Tools. Both are JavaScript
// identifiers.
type Namespace struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
	// Open says the host does not know the namespace's tools yet (its
	// source has not been listed): a call to any name reaches the host,
	// which answers it or rejects it with a ToolError, instead of a
	// TypeError naming the closest tools.
	Open bool `json:"open,omitempty"`
}

// Call is one tool call issued by the guest.
type Call struct {
	Seq        int             `json:"seq"`                  // 1-based, assigned when the guest issues the call
	Address    string          `json:"address"`              // "namespace.tool"
	Args       json.RawMessage `json:"args"`                 // the first argument as JSON; {} when omitted
	Connection string          `json:"connection,omitempty"` // from { connection: "work" }; "" is the default connection
	// Fired is where timers fired while host operations were in flight,
	// up to this call's issue, replayed ones included: what a later
	// attempt passes as Request.Fired to reach this call the same way. A
	// host that keeps calls for replay keeps it with them.
	Fired []Early `json:"fired,omitempty"`
	// Symbolic says Args is symbolic JSON: it holds at least one
	// placeholder of a planned call's result (see Planning in the package
	// documentation, Symbols and Resolve). Args without a placeholder are
	// plain JSON, as ever, planning or not.
	Symbolic bool `json:"symbolic,omitempty"`
}

// Host answers the guest's tool calls, lookups and reads.
//
// Concurrency: the sandbox calls Call, Search, Describe and Read from several
// goroutines at once, up to Limits.MaxConcurrent in flight per run. Each
// method must return soon after its ctx is done: a run waits for its calls
// to return before it ends.
type Host interface {
	// Call runs one tool call and returns its JSON result, or an error:
	// a *ToolError rejects the guest's promise with a ToolError; a *Suspend
	// stops the run as "suspended" once the calls already in flight settle,
	// and the Outcome carries every Suspend collected; a *Planned resolves
	// the promise to a placeholder for the result, which the run goes on
	// with (see Planning in the package documentation); any other error
	// rejects the promise with a ToolError whose code is "host_error".
	Call(ctx context.Context, c Call) (json.RawMessage, error)
	// Search answers hub.search(query) with plain text.
	Search(ctx context.Context, query string) (string, error)
	// Describe answers hub.describe(target) with TypeScript declarations.
	Describe(ctx context.Context, target string) (string, error)
	// Read answers hub.read(handle, options) with the JSON value the guest
	// receives (see Read). Its errors are Call's: a *ToolError rejects the
	// promise with a ToolError, a *Suspend stops the run, a *Planned
	// resolves it to a placeholder.
	Read(ctx context.Context, r Read) (json.RawMessage, error)
}

// ToolError is an expected tool failure. The guest sees it as a ToolError
// with the same fields.
type ToolError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Address   string `json:"address,omitempty"`
	Hint      string `json:"hint,omitempty"`
	Status    int    `json:"status,omitempty"`
	Retryable bool   `json:"retryable,omitempty"`
}

func (e *ToolError) Error() string {
	if e.Address != "" {
		return fmt.Sprintf("%s: %s: %s", e.Address, e.Code, e.Message)
	}
	return e.Code + ": " + e.Message
}

// Suspend stops a run: the call at Seq needs something from a person
// (Kind, for example "approval" or "connection"). Detail is the host's own
// and opaque to the sandbox; it comes back unchanged in Outcome.Suspends,
// with either driver.
type Suspend struct {
	Seq     int    `json:"seq"`
	Address string `json:"address"`
	Kind    string `json:"kind"`
	Detail  any    `json:"-"`
}

func (s *Suspend) Error() string {
	return fmt.Sprintf("call %d to %s suspended: %s", s.Seq, s.Address, s.Kind)
}
