package sandbox

import (
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// jsGuardLengths(proto, names) replaces each named method of proto with
// a native guard that fails the run with memory_limit when the receiver's
// length is above the array cap, and calls the method otherwise. It is the
// prelude's guard for the Array methods that need nothing more; a native
// costs a prepared runtime a fraction of what a JavaScript closure does,
// and a call through it less too.
func (r *run) jsGuardLengths(c goja.FunctionCall) goja.Value {
	rt := r.rt
	proto := c.Argument(0).ToObject(rt)
	var names []string
	if err := rt.ExportTo(c.Argument(1), &names); err != nil {
		panic(rt.NewTypeError("guardLengths: the names must be strings"))
	}
	for _, name := range names {
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			panic(rt.NewTypeError("guardLengths: %s is not a function", name))
		}
		what := "Array.prototype." + name
		length := int(proto.Get(name).ToObject(rt).Get("length").ToInteger())
		guard := named(rt, name, length, func(c goja.FunctionCall) goja.Value {
			if n := r.lengthOf(c.This); n > r.maxArray {
				r.fail(newError(CodeMemoryLimit, "%s would hold %d elements, above the sandbox cap of %d", what, n, r.maxArray))
				return goja.Undefined() // the interrupt stops the guest before it reads this
			}
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
		if err := proto.DefineDataProperty(name, guard, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			panic(err)
		}
	}
	return goja.Undefined()
}

// lengthOf is ToLength(v.length), 0 for undefined and null, as the guards
// read it.
func (r *run) lengthOf(v goja.Value) int64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	n := v.ToObject(r.rt).Get("length")
	if n == nil {
		return 0
	}
	f := n.ToFloat()
	switch {
	case f != f || f <= 0:
		return 0
	case f >= 1<<53-1:
		return 1<<53 - 1
	}
	return int64(f)
}

// guardRegexp wraps RegExp.prototype.exec and test so that a backtracking
// match stopped by regexp2's timeout fails the run with regexp_timeout
// instead of reading as "no match". Once exec is replaced, goja routes
// match, matchAll, replace, search and split through it; test reads the
// pattern directly, so it is wrapped too.
func (r *run) guardRegexp() error {
	rt := r.rt
	proto := rt.Get("RegExp").ToObject(rt).Get("prototype").ToObject(rt)
	for _, name := range []string{"exec", "test"} {
		orig, ok := goja.AssertFunction(proto.Get(name))
		if !ok {
			return fmt.Errorf("RegExp.prototype.%s is not a function", name)
		}
		fn := named(rt, name, 1, func(c goja.FunctionCall) goja.Value {
			start := time.Now()
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			if (goja.IsNull(v) || v == goja.Value(rt.ToValue(false))) && time.Since(start) >= regexpTimeout*9/10 {
				// More specific than the compute limit that may have fired
				// while the match ran.
				e := newError(CodeRegexpTimeout, "a regular expression match ran past %s", regexpTimeout)
				if cur := r.failure.Load(); cur != nil && cur.Code == CodeComputeLimit {
					r.failure.CompareAndSwap(cur, e)
				}
				r.fail(e)
			}
			return v
		})
		if err := proto.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) jsLimit(c goja.FunctionCall) goja.Value {
	code, _ := argString(c, 0)
	msg, _ := argString(c, 1)
	switch code {
	case CodeMemoryLimit, CodeTimerLimit:
		r.fail(newError(code, "%s", msg))
	default:
		panic(r.rt.NewTypeError("invalid limit"))
	}
	return goja.Undefined()
}

func (r *run) jsJSONDepth(c goja.FunctionCall) goja.Value {
	s, _ := argString(c, 0)
	return r.rt.ToValue(jsonDepth(s))
}

// jsonDepth returns the deepest nesting of [ and { in JSON text, outside
// strings.
func jsonDepth[T ~string | ~[]byte](s T) int {
	depth, maxDepth := 0, 0
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ']', '}':
			depth--
		}
	}
	return maxDepth
}
