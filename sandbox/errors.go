package sandbox

import "fmt"

// Error codes. Every way a run or Prepare can fail has one code here, and
// every code has a hint that travels with the error to the person or model
// that wrote the code. Tool failures seen by the guest (ToolError.code) are
// chosen by the host, except CodeHostError and CodeArgsTooLarge.
const (
	CodeComputeLimit       = "compute_limit"
	CodeWallLimit          = "wall_limit"
	CodeMemoryLimit        = "memory_limit"
	CodeMaxCalls           = "max_calls"
	CodeStackLimit         = "stack_limit"
	CodeCodeTooLarge       = "code_too_large"
	CodeArgsTooLarge       = "arguments_too_large" // a ToolError: one call's arguments are over Limits.ArgsBytes
	CodeSyntaxError        = "syntax_error"
	CodeTooDeeplyNested    = "too_deeply_nested"
	CodeTimerLimit         = "timer_limit"
	CodeRuntimeError       = "runtime_error"
	CodeUnhandledRejection = "unhandled_rejection"
	CodeUnsettled          = "unsettled"
	CodeResultNotJSON      = "result_not_json"
	CodeRegexpTimeout      = "regexp_timeout"
	CodeWorkerCrashed      = "worker_crashed"
	CodeHostError          = "host_error"
	CodeCancelled          = "cancelled"
	CodeInvalidRequest     = "invalid_request"
	CodeInternal           = "internal_error"
)

// hints is the one list of codes and their hints.
var hints = map[string]string{
	CodeComputeLimit:       "The code ran out of compute time. Do less work in JavaScript: let tools filter and page, and avoid loops over large data.",
	CodeWallLimit:          "The run took too long in total, tool calls included. Make fewer or smaller calls, or split the work across runs.",
	CodeMemoryLimit:        "The code used too much memory. Keep only the fields you need from tool results and avoid building huge strings or arrays.",
	CodeMaxCalls:           "The run made too many tool calls. Use tools that return many items per call, or split the work across runs.",
	CodeStackLimit:         "The call stack got too deep. Replace deep recursion with a loop.",
	CodeCodeTooLarge:       "The code is too large. Send less code; move data into tool arguments instead of literals.",
	CodeArgsTooLarge:       "One call's arguments are too large. Send less per call: split the data over several calls, or pass what the tool can read it from (a path, a URL) instead of the content.",
	CodeSyntaxError:        "Fix the syntax at the reported line and column. The code is the body of an async function: use await and return directly.",
	CodeTooDeeplyNested:    "The code nests brackets too deeply. Flatten the structure.",
	CodeTimerLimit:         "setTimeout takes delays up to 30 seconds and a limited number of pending timers.",
	CodeRuntimeError:       "The code threw an exception it did not catch. Read the message and the line, fix the code, and try again.",
	CodeUnhandledRejection: "A promise was rejected and nothing handled it. Await every promise you start, or attach .catch to it.",
	CodeUnsettled:          "The code waited on a promise that nothing could settle. Make sure every awaited promise is resolved or rejected.",
	CodeResultNotJSON:      "Return a value that JSON can represent: plain objects, arrays, strings, numbers, booleans or null.",
	CodeRegexpTimeout:      "A regular expression took too long to match. Simplify it: avoid nested quantifiers such as (a+)+ and lookarounds over long input.",
	CodeWorkerCrashed:      "The sandbox process running the code died. The code most likely exhausted memory or the stack; reduce the data it holds.",
	CodeHostError:          "The tool call failed inside the hub. Retry later, or report it if it persists.",
	CodeCancelled:          "The run was cancelled before it finished.",
	CodeInvalidRequest:     "The sandbox request was malformed; this is a bug in the caller.",
	CodeInternal:           "The sandbox engine failed on this code and discarded the run. Try an equivalent, simpler formulation.",
}

// Hint returns the hint for an error code, or "" for a code not in the list.
func Hint(code string) string { return hints[code] }

// Error is a sandbox failure: a code from the list above, a specific
// lowercase message, and the code's hint.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// newError builds an Error with the hint for its code.
func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hints[code]}
}
