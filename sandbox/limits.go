package sandbox

import "time"

// Limits bound one run. DefaultLimits are the ceiling: a host may lower any
// limit for its runs but never raise one (see Lower).
type Limits struct {
	CodeBytes         int           `json:"codeBytes,omitempty"`         // size of the code in bytes
	Compute           time.Duration `json:"compute,omitempty"`           // guest execution time, paused while tool calls are in flight
	Wall              time.Duration `json:"wall,omitempty"`              // one attempt, tool calls included
	MemoryBytes       int64         `json:"memoryBytes,omitempty"`       // guest heap
	MaxCalls          int           `json:"maxCalls,omitempty"`          // tool calls per run, all attempts together: seq > MaxCalls fails
	MaxConcurrent     int           `json:"maxConcurrent,omitempty"`     // tool calls in flight; further calls wait for a slot
	ArgsBytes         int           `json:"argsBytes,omitempty"`         // one tool call's arguments as JSON; a larger call is refused unsent
	InlineResultBytes int           `json:"inlineResultBytes,omitempty"` // result and logs together
	StackDepth        int           `json:"stackDepth,omitempty"`        // JavaScript call frames
}

// DefaultLimits returns the limits from the spec's "Default limits" table,
// and one of the sandbox's own: ArgsBytes, 4 MB, under the line an MCP
// server's SDK reads whole (10 MB for the TypeScript SDK's stdio, whose
// server drops a longer message unanswered) and so that the calls a run
// has in flight hold at most 32 MB of arguments between them.
func DefaultLimits() Limits {
	return Limits{
		CodeBytes:         64 << 10,
		Compute:           10 * time.Second,
		Wall:              90 * time.Second,
		MemoryBytes:       64 << 20,
		MaxCalls:          500,
		MaxConcurrent:     8,
		ArgsBytes:         4 << 20,
		InlineResultBytes: 24 << 10,
		StackDepth:        1500,
	}
}

// Lower returns l with each field lowered to the matching field of to. A
// zero or negative field in to keeps l's value; a value larger than l's is
// clamped to l's. Lower never raises a limit.
func (l Limits) Lower(to Limits) Limits {
	l.CodeBytes = lower(l.CodeBytes, to.CodeBytes)
	l.Compute = lower(l.Compute, to.Compute)
	l.Wall = lower(l.Wall, to.Wall)
	l.MemoryBytes = lower(l.MemoryBytes, to.MemoryBytes)
	l.MaxCalls = lower(l.MaxCalls, to.MaxCalls)
	l.MaxConcurrent = lower(l.MaxConcurrent, to.MaxConcurrent)
	l.ArgsBytes = lower(l.ArgsBytes, to.ArgsBytes)
	l.InlineResultBytes = lower(l.InlineResultBytes, to.InlineResultBytes)
	l.StackDepth = lower(l.StackDepth, to.StackDepth)
	return l
}

func lower[T int | int64 | time.Duration](cur, to T) T {
	if to > 0 && to < cur {
		return to
	}
	return cur
}
