// Package sandbox runs a person's (or a model's) JavaScript against the
// hub's tools, inside limits, and reports how it ended.
//
// # Pipeline
//
// Prepare turns code as written into code a Driver runs: it checks the size,
// takes the body of a fenced block, refuses bracket nesting deeper than 256
// before any parser sees it, unwraps `export default`, parses the code as the
// body of a strict async function, strips TypeScript with esbuild only when
// that parse fails, calls a lone function and returns a final expression.
// What `export default` precedes is called when it is a function (a named
// declaration stays one) and its value returned.
// Each forgiving rewrite adds one notice. Syntax errors carry the line and
// column in the code as written (a rewrite on the last line shifts its
// columns by the inserted "return ").
//
// # Drivers
//
// A Driver runs one attempt per Run call on a fresh goja runtime. Both
// drivers load the same prelude (package prelude, compiled once per
// process), so the guest sees the same globals everywhere.
//
// Installing the prelude is most of the cost of a short run (goja builds
// its built-ins lazily and the guards touch most of them), so runtimes are
// prepared ahead, for the namespaces of the last run, and used once: a
// pool worker prepares its runtime before it says it is ready, and the
// in-process driver keeps two prepared runtimes once it has served a run.
// A run whose namespaces differ from the prepared ones builds its own; a
// run with lower memory limits hands its caps to the guards before its code
// starts. Nothing in a prepared runtime depends on the run: the natives,
// the clock and the random source read the run's fields when called.
//
//   - NewPool runs each attempt in a worker process: this same binary
//     started with a hidden subcommand that calls ServeWorker, talking
//     newline-delimited JSON over stdin and stdout (see protocol.go). Workers
//     get an empty environment plus TZ=UTC, a data-segment cap (RLIMIT_DATA
//     on Linux) and a SIGKILL once the wall limit plus a grace period passes.
//     A worker that dies fails its run with worker_crashed (memory_limit when
//     it died of the memory cap); the pool starts a replacement and other
//     runs carry on. A worker serves up to PoolOptions.RunsPerWorker runs
//     (DefaultRunsPerWorker), each on a runtime of its own prepared after
//     the run before; one that hit a limit is replaced at once. A new
//     worker runs one small attempt before its first real one, so that
//     first use of the code paths in a fresh process is not paid by a
//     person's run. The pool keeps PoolOptions.Size workers and grows up to
//     PoolOptions.MaxSize while runs hold theirs waiting on tools or
//     timers, so that a quick run is not queued behind them; each worker
//     has its own memory limits. It is the driver for model-written code.
//   - NewInProcess runs each attempt on a goroutine of this process. It
//     recovers every panic out of goja and discards the runtime, but it shares
//     the process with the hub; see "Known gaps" below.
//
// # One run
//
// The guest code is wrapped as (async function () {"use strict"; ... }) and
// driven by an event loop on the run's goroutine, after the k6 discipline:
// every entry into the runtime is a turn (the call plus its microtasks),
// timed against Limits.Compute with goja's Interrupt armed for the rest of
// the budget, so time spent waiting on tool calls is not compute. Host
// operations (tool calls, hub.search, hub.describe, hub.read) run on their own
// goroutines, at most Limits.MaxConcurrent at once (further calls wait for a
// slot), and their results reach the guest in the order the guest issued
// them. A tool call whose arguments are over Limits.ArgsBytes as JSON is
// refused before it is issued: its promise rejects with a ToolError coded
// arguments_too_large, which the code may catch; and while calls are in
// flight, a further call starts only when its arguments fit beside theirs
// in two calls' worth (2 x Limits.ArgsBytes), so that eight calls of 4 MB
// do not hold 32 MB in the host at once. Timers run on a logical clock
// that only moves when a timer fires. A
// timer fires once its delay has passed in real time (wall time, not
// compute), while host operations are in flight too, between two results,
// so a race of a call against a timer ends at the timer. Where timers fired
// between results is recorded (Outcome.Fired, and Call.Fired on each call),
// and an attempt given that record (Request.Fired) fires its timers at the
// same points. While an attempt replays the calls of earlier ones
// (Request.Replay), its timers do not wait: they fire at the recorded
// points, or when nothing is in flight. Together with the seeded
// Math.random and crypto, this makes an attempt deterministic: the same
// request and host answers give the same Outcome, Compute aside, on either
// driver. That is what lets a resumed run replay.
//
// A run ends when the main promise has settled: pending timers are dropped,
// and host operations still in flight (ones the code did not wait for, as
// the loser of a race against a timer) are cancelled through their context;
// the host records them as unfinished. A Suspend from the host stops the run
// once the calls in flight settle: results issued before the suspended call
// are still delivered, nothing after it is, and timers no longer fire.
//
// # Planning
//
// Planning runs code ahead of calls that are not sent, to learn every call
// the code would make. A host plans a call by returning a *Planned error
// from Host.Call (or Host.Read): the call is not run, and the guest's
// promise resolves to a placeholder for its result. A planned call is an
// ordinary Call with its seq, counted towards Limits.MaxCalls; the run goes
// on, and calls the host answers with values, errors or suspensions behave
// as ever, so an attempt that replays journaled calls and then plans is as
// deterministic as any other.
//
// A placeholder is a frozen Proxy. Reading a property of one gives the
// placeholder for that path (the same object on every read), so code can
// take pieces of a result apart (destructuring objects included) and pass
// them on: console.log shows one as <result of call 2>.entities[0].name.
// Its "then" and "toJSON" read undefined (awaiting a placeholder gives the
// placeholder), and its typeof is "function", so that a method call on one
// reaches a trap.
//
// A call whose arguments hold a placeholder, whole or nested, carries them
// as symbolic JSON and Call.Symbolic is set. In symbolic JSON a placeholder
// is the one-member object
//
//	{"$planned":{"call":2,"path":["entities","0","name"]}}
//
// the value at path (object keys and array indexes, as decimal strings) in
// the result of call 2, and an object key of the code's own that reads
// "$planned" after one or more "$" is written with one "$" more ("$planned"
// as "$$planned"), so no value of the code's can pass for a placeholder.
// Arguments without a placeholder are plain JSON, planning or not, exactly
// as a run that plans nothing writes them. Symbols lists the placeholders
// of symbolic JSON; Resolve replaces each with a value and removes the
// escapes; At reads the value at a path of a result as the guest would.
// A host that holds a later run to its plan resolves a planned call's
// arguments with the values its symbols stand for by then and compares
// them with the call's arguments as canonical JSON. A host must not send a
// call with Symbolic set: it has no arguments yet.
//
// Planning stops when the code needs a placeholder's actual value: a
// conversion to a primitive (comparison with <, == or a number,
// arithmetic, String, a template, concatenation), iteration (for-of,
// spread, destructuring into an array), listing or testing its keys
// (Object.keys, for-in, "in", object spread), reading a property
// descriptor, a change (assignment, delete, defineProperty), a call of it
// or of a method on it (r.items.map(f) needs r.items), new, JSON.stringify,
// structuredClone, or passing it to hub.read, hub.search, hub.describe or
// as a connection or a call's options. The code does not go on, whatever
// it catches: the run ends at once (calls in flight are cancelled, timers
// dropped) with Status StatusPlanned and Outcome.Stop saying which call's
// result (Seq), where in it (Path), the guest line and a Reason, with a
// Message for a person: "what follows depends on the result of call 2,
// line 7: the code converts <result of call 2>.entities[0].name to a
// string". A path deeper than a result can nest (1000) stops it too.
// What no trap sees is not a stop: === and !==, == against null,
// undefined or another object, a placeholder's truthiness (always true),
// typeof, Array.isArray and instanceof. Code that branches on those
// takes the branch a function would; the plan then shows calls the actual
// values may not lead to, which is why a host holds the real run to the
// plan call by call.
//
// When the code returns once it has received a placeholder, the Outcome's
// Status is StatusPlanned with no Stop, and its Result is symbolic JSON
// (always, with or without placeholders in it). Outcome.Planned lists the seqs of
// the planned calls whose placeholder the code received, in order, with
// any status. A suspension wins over planning (StatusSuspended, as ever)
// and a failure over both. Every limit applies while planning as at any
// other time.
//
// # Limits and guards
//
// The result and the logs share Limits.InlineResultBytes, each counted as a
// host returns it: in a JSON envelope and again in the envelope's one-line
// text copy (inline.go), separators and escapes included.
//
// Every limit fails the run with its own code from errors.go, each with a
// hint. Memory is watched with runtime/metrics (the heap's growth since the
// run started), sampled every few milliseconds; typed arrays and buffers,
// which allocate megabytes in one step, are counted as they are made and the
// heap is checked within the turn every few megabytes of them. Native built-ins that could allocate or loop without
// returning to JavaScript are guarded by the prelude: String repeat, pad and
// replace, every Array method on huge lengths (includes, indexOf and
// lastIndexOf fall back to interruptible loops), sort on a copy, Array.from,
// ArrayBuffer and typed array sizes, JSON.parse nesting and JSON.stringify
// depth. RegExp exec and test are wrapped so that a backtracking match
// stopped by regexp2's process-wide timeout fails with regexp_timeout
// instead of reading as "no match".
//
// # Known gaps of the in-process driver
//
//   - Memory is process-wide: concurrent runs and the hub's own allocations
//     count against a run, and a single native allocation (a string doubled
//     past the watcher's poll) lands before the watcher sees it.
//   - Native built-ins the prelude does not guard (regexp replacements
//     with $-patterns over huge input, deep recursion inside Go code paths
//     the guards miss) can still use memory or time the limits cannot stop
//     until they return; a Go fatal error (out of memory, stack exhaustion)
//     takes the whole process down.
//   - regexp2's match timeout is a process-wide setting.
//   - Date parsing of some non-ISO strings without a zone uses the process
//     time zone; the worker runs with TZ=UTC.
//
// The worker pool contains each of these within one worker process.
package sandbox
