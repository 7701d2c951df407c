package sandbox

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"capabilities.sh/capabilities/internal/editdist"
)

// enginePanic is a Go panic out of the runtime; the runtime is discarded.
type enginePanic struct{ value any }

func (p *enginePanic) Error() string { return fmt.Sprintf("engine panic: %v", p.value) }

// protect calls f, turning panics out of goja into errors.
func protect(f func() error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			switch v := x.(type) {
			case *goja.InterruptedError:
				err = v
			case *goja.StackOverflowError:
				err = v
			case *goja.Exception:
				err = v
			default:
				err = &enginePanic{value: x}
			}
		}
	}()
	return f()
}

// failFrom records the failure behind an error out of the runtime.
func (r *run) failFrom(err error) {
	var interrupted *goja.InterruptedError
	var overflow *goja.StackOverflowError
	var ex *goja.Exception
	var panicked *enginePanic
	switch {
	case errors.As(err, &interrupted):
		if e, ok := interrupted.Value().(*Error); ok {
			r.fail(e)
		} else {
			r.fail(newError(CodeInternal, "the runtime was interrupted: %v", interrupted.Value()))
		}
	case errors.As(err, &overflow):
		r.fail(newError(CodeStackLimit, "the call stack exceeded %d frames", r.limits.StackDepth))
	case errors.As(err, &ex) && r.describe == nil:
		// The prelude itself failed.
		r.fail(newError(CodeInternal, "setting up the sandbox: %s", ex.Error()))
	case errors.As(err, &ex):
		r.fail(r.uncaught(ex.Value()))
	case errors.As(err, &panicked):
		r.fail(newError(CodeInternal, "the engine failed on this code (%v)", panicked.value))
	default:
		r.fail(newError(CodeInternal, "%v", err))
	}
}

// uncaught is the failure for a value the code threw and did not catch: a
// runtime_error, or for a ToolError its own code and hint (the hint for
// its code when it has none). A ToolError whose code is not a plain code,
// or is one of the sandbox's own but host_error and arguments_too_large
// (the two a call rejects with), is a runtime_error: the code cannot pass
// for a limit.
func (r *run) uncaught(v goja.Value) *Error {
	msg := "Uncaught " + r.describeValue(v)
	var fields []string
	err := r.timed(func() error {
		f, err := r.toolErrorOf(goja.Undefined(), v)
		if err != nil || goja.IsUndefined(f) {
			return err
		}
		return r.rt.ExportTo(f, &fields)
	})
	if err != nil || len(fields) != 2 || !toolCodeRe.MatchString(fields[0]) || (hints[fields[0]] != "" && fields[0] != CodeHostError && fields[0] != CodeArgsTooLarge) {
		e := newError(CodeRuntimeError, "%s", msg)
		if m := notDefinedRe.FindStringSubmatch(msg); m != nil {
			if h := r.notDefinedHint(m[1]); h != "" {
				e.Hint = h
			}
		}
		return e
	}
	code, hint := fields[0], fields[1]
	if hint == "" {
		hint = hints[code]
	}
	return &Error{Code: code, Message: msg, Hint: hint}
}

// notDefinedRe finds the name of a ReferenceError for a missing global.
var notDefinedRe = regexp.MustCompile(`^Uncaught ReferenceError: ([A-Za-z_$][A-Za-z0-9_$]*) is not defined`)

// missingHosts are the globals of other JavaScript hosts that code written
// for them reaches for: this sandbox has none of what they do.
var missingHosts = map[string]bool{
	"fetch": true, "XMLHttpRequest": true, "WebSocket": true, "EventSource": true,
	"require": true, "module": true, "exports": true, "process": true, "Buffer": true,
	"__dirname": true, "__filename": true, "Deno": true, "Bun": true,
	"window": true, "document": true, "localStorage": true, "navigator": true,
}

// notDefinedHint is the hint for a ReferenceError on a global that does
// not exist: what the sandbox offers instead of another host's global, or
// the namespace a near name meant (githb for github). "" keeps the
// runtime error's own hint.
func (r *run) notDefinedHint(name string) string {
	names := make([]string, 0, len(r.namespaces))
	for _, ns := range r.namespaces {
		names = append(names, ns.Name)
	}
	if missingHosts[name] {
		return name + " does not exist here: the code has no network, files or modules besides the sources' functions (" + strings.Join(names, ", ") + "). Find a tool that does what you need with hub.search(\"what you need\") and call it."
	}
	// Near enough to be a slip, not a local variable of the code's own:
	// one edit in a short name, two in a longer one.
	limit := 1
	if len(name) > 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, ns := range names {
		if d := editdist.Levenshtein(strings.ToLower(name), strings.ToLower(ns)); d < bestD && ns != name {
			best, bestD = ns, d
		}
	}
	if best == "" || len(name) < 3 {
		return ""
	}
	return "There is no global " + name + ". Did you mean the source " + best + "? The sources here are " + strings.Join(names, ", ") + "."
}

// toolCodeRe is what a ToolError code must look like to become a run's.
var toolCodeRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// describeValue formats a thrown value with its guest stack frames. It runs
// guest code (getters, toString), so it runs timed.
func (r *run) describeValue(v goja.Value) string {
	var text string
	err := r.timed(func() error {
		s, err := r.describe(goja.Undefined(), v)
		if err != nil {
			return err
		}
		text = s.String()
		return nil
	})
	if err != nil || text == "" {
		return "exception (it could not be formatted)"
	}
	return cleanStack(text)
}

var frameRe = regexp.MustCompile(`^\s*at (?:(.*?) \()?` + regexp.QuoteMeta(guestFile) + `:(\d+):(\d+)(?:\(\d+\))?\)?$`)

// cleanStack keeps the message and the guest's own frames, with lines
// counted in the person's code.
func cleanStack(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	frames := 0
	inStack := false
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "at ") {
			inStack = true
			m := frameRe.FindStringSubmatch(l)
			if m == nil || frames >= 5 {
				continue
			}
			line, _ := strconv.Atoi(m[2])
			name := m[1]
			if name == "" || name == "<anonymous>" {
				out = append(out, fmt.Sprintf("    at line %d:%s", guestLine(line), m[3]))
			} else {
				out = append(out, fmt.Sprintf("    at %s (line %d:%s)", name, guestLine(line), m[3]))
			}
			frames++
			continue
		}
		if inStack {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
