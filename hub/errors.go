package hub

import "capabilities.sh/capabilities/sandbox"

// Execute error codes the hub adds to the sandbox's own (sandbox/errors.go).
// A run's error, or a ToolError a guest sees, carries one of these codes
// and its hint.
const (
	CodeDenied            = "denied"           // policy or a person denied the call
	CodeReplayDiverged    = "replay_diverged"  // a resumed run called something other than its journal holds
	CodeInterrupted       = "interrupted"      // a write went out and no answer came back, or the hub stopped
	CodeApprovalExpired   = "approval_expired" // nobody decided within approvalTtlMs
	CodeInvalidArgs       = "invalid_arguments"
	CodeUnknownTool       = "unknown_tool"
	CodeUnknownConn       = "unknown_connection"
	CodeToolError         = "tool_error" // the upstream tool reported an error
	CodeUpstreamTimeout   = "upstream_timeout"
	CodeSourceUnavailable = "source_unavailable" // the source is down, starting, disabled or needs a secret
	CodeUpstreamError     = "upstream_error"     // the upstream answered with a protocol error
	CodeUnknownRun        = "unknown_run"
	CodeBadRequest        = "bad_request"      // neither or both of code and resume
	CodeUnknownHandle     = "unknown_handle"   // hub.read of a handle this home does not hold
	CodeInvalidPath       = "invalid_path"     // hub.read's path names nothing in the value
	CodeReadTooLarge      = "read_too_large"   // hub.read of more than the run may hold
	CodeStoreFull         = "store_full"       // the outcome would take the run or the store past retention's size
	CodeTooManyWaiting    = "too_many_waiting" // maxWaitingRuns other runs wait for a person: the call would not wait too
)

var hubHints = map[string]string{
	CodeDenied:            "A person declined this call when asked, or the policy denies it. Do not retry it or reach the same effect another way; tell the user what you wanted to do and ask how to go on.",
	CodeReplayDiverged:    "The resumed code made different calls than the first attempt. Run the code again with execute({ code }) instead of resuming.",
	CodeInterrupted:       "The call went out and no answer came back (or the hub stopped meanwhile): it may or may not have happened. Check its effect before calling it again; calling it again may do it twice.",
	CodeApprovalExpired:   "Nobody decided on the approval in time. Run the code again to ask again.",
	CodeInvalidArgs:       "Fix the named argument; describe the tool to see its exact type.",
	CodeUnknownTool:       "Search for the tool you need; the catalog may have changed.",
	CodeUnknownConn:       "Use a connection listed by search, or omit { connection } to use the default one.",
	CodeToolError:         "The tool reported a failure. Read the message; fix the arguments or try another tool.",
	CodeUpstreamTimeout:   "The tool did not answer in time. Retry, or ask for less at once.",
	CodeSourceUnavailable: "The tool's source cannot be used right now; the message says why. Retry later when it is retryable; otherwise tell the user.",
	CodeUpstreamError:     "The tool's server rejected the call. Check the arguments against describe.",
	CodeUnknownRun:        "Resume only a runId returned by execute.",
	CodeBadRequest:        `Send exactly one of "code" or "resume".`,
	CodeUnknownHandle:     "Use a handle exactly as an earlier execute's result gave it. A handle lasts as long as its run is kept; run the code that made the result again for a new one.",
	CodeInvalidPath:       "Name keys and array indexes the value has, such as rows.0.name; read its preview or a slice to see its shape.",
	CodeReadTooLarge:      "Read it in slices with { offset, length }, or one part of it with { path }.",
	CodeStoreFull:         "The call ran, but its result was too large to keep. Ask for less at once (a page, a filter), and return only what you need.",
	CodeTooManyWaiting:    "The call was not sent: too many runs already wait for the user's decision. Tell the user; once they have decided on some, run it again.",
}

// Hint returns the hint for any execute error code, the hub's or the
// sandbox's.
func Hint(code string) string {
	if h, ok := hubHints[code]; ok {
		return h
	}
	return sandbox.Hint(code)
}

func toolError(code, address, format string, args ...any) *sandbox.ToolError {
	return &sandbox.ToolError{Code: code, Address: address, Message: sprintf(format, args...), Hint: Hint(code)}
}
