package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"
)

func argString(c goja.FunctionCall, i int) (string, bool) {
	s, ok := c.Argument(i).Export().(string)
	return s, ok
}

func (r *run) jsCall(c goja.FunctionCall) goja.Value {
	address, ok1 := argString(c, 0)
	args, ok2 := argString(c, 1)
	connection, ok3 := argString(c, 2)
	if !ok1 || !ok2 || !ok3 || !(r.addresses[address] || r.inOpenNamespace(address)) {
		panic(r.rt.NewTypeError("invalid tool call"))
	}
	if len(args) > r.limits.ArgsBytes {
		// Refused here, unsent and without a seq: the promise rejects, so
		// the code may catch it and send less at once.
		te := &ToolError{Code: CodeArgsTooLarge, Address: address, Hint: hints[CodeArgsTooLarge],
			Message: fmt.Sprintf("the arguments are %d bytes as JSON, above the limit of %d for one call", len(args), r.limits.ArgsBytes)}
		v, err := r.toolError(&pending{what: address}, te)
		if err != nil {
			panic(err)
		}
		promise, _, reject := r.rt.NewPromise()
		if err := reject(v); err != nil {
			panic(err)
		}
		return r.rt.ToValue(promise)
	}
	if !json.Valid([]byte(args)) {
		panic(r.rt.NewTypeError("invalid tool call"))
	}
	if r.seq >= r.limits.MaxCalls {
		r.fail(newError(CodeMaxCalls, "call %d (%s) is above the limit of %d tool calls per run", r.seq+1, address, r.limits.MaxCalls))
		return goja.Undefined()
	}
	// The prelude's flags for arguments written as symbolic JSON: 1, they
	// hold a placeholder; 2, a key was escaped. Without a placeholder they
	// are plain JSON again.
	flags := c.Argument(3).ToInteger()
	raw := json.RawMessage(args)
	if flags&2 != 0 && flags&1 == 0 {
		plain, err := Resolve(raw, nil)
		if err != nil {
			r.fail(newError(CodeInternal, "writing the arguments of %s: %v", address, err))
			return goja.Undefined()
		}
		raw = plain
	}
	r.seq++
	call := &Call{Seq: r.seq, Address: address, Args: raw, Connection: connection, Fired: slices.Clone(r.fired), Symbolic: flags&1 != 0}
	host := r.host
	return r.startOp(&pending{what: address, seq: call.Seq, raw: true, bytes: len(raw)}, func(ctx context.Context) completion {
		raw, err := host.Call(ctx, *call)
		if err == nil && !json.Valid(raw) {
			err = &ToolError{Code: CodeHostError, Message: "the tool returned a result that is not JSON", Address: call.Address}
		}
		return completion{raw: raw, err: err}
	})
}

// inOpenNamespace reports whether address names a tool of an open
// namespace (Namespace.Open), whose tools the host has not listed.
func (r *run) inOpenNamespace(address string) bool {
	ns, tool, ok := strings.Cut(address, ".")
	return ok && tool != "" && r.addresses[ns+"."]
}

func (r *run) jsSearch(c goja.FunctionCall) goja.Value {
	return r.textOp(c, "hub.search", "the query", Host.Search)
}

func (r *run) jsDescribe(c goja.FunctionCall) goja.Value {
	return r.textOp(c, "hub.describe", "the target", Host.Describe)
}

// textOp starts hub.search or hub.describe: one string argument, plain
// text back.
func (r *run) textOp(c goja.FunctionCall, what, arg string, do func(Host, context.Context, string) (string, error)) goja.Value {
	s, ok := argString(c, 0)
	if !ok {
		panic(r.rt.NewTypeError(what + ": " + arg + " must be a string"))
	}
	host := r.host
	return r.startOp(&pending{what: what}, func(ctx context.Context) completion {
		text, err := do(host, ctx, s)
		return completion{text: text, err: err}
	})
}

func (r *run) jsLog(c goja.FunctionCall) goja.Value {
	level, _ := argString(c, 0)
	text, _ := argString(c, 1)
	switch level {
	case "warn", "error":
		text = level + ": " + text
	}
	r.addLog(text)
	return goja.Undefined()
}

// addLog keeps log lines while they fit the inline budget, each at its
// cost as the host returns it (see inline.go).
func (r *run) addLog(text string) {
	budget := r.limits.InlineResultBytes
	if r.truncLogs {
		return
	}
	cost := logCost(text)
	if r.logBytes+cost > budget {
		r.truncLogs = true
		if room := budget - r.logBytes; room > 64 {
			if cut, ok := cutToCost(text, "…", room); ok {
				r.logs = append(r.logs, cut)
				r.logBytes += logCost(cut)
			}
		}
		return
	}
	r.logs = append(r.logs, text)
	r.logBytes += cost
}

func (r *run) jsRandomU32(goja.FunctionCall) goja.Value {
	return r.rt.ToValue(uint32(r.rng.next() >> 32))
}

// named returns fn as a JavaScript function with this name and length.
// goja names a Go function after its Go symbol (for example
// "capabilities.sh/capabilities/sandbox.(*run).jsAtob-fm"), and the name
// shows in err.stack, fn.name and fn.toString(): the guest never sees a
// Go name.
func named(rt *goja.Runtime, name string, length int, fn func(goja.FunctionCall) goja.Value) *goja.Object {
	f := rt.ToValue(fn).(*goja.Object)
	// Both are own, configurable, not writable, not enumerable, as on any
	// function; redefining them cannot fail.
	_ = f.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", rt.ToValue(length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return f
}
