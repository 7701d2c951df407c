package sandbox

import (
	"fmt"
	"regexp"
	"sync"
)

// Names the guest sees: namespaces are globals, tools are properties of
// them. The sandbox decides which names it can install; the hub asks it
// before a config or a catalog reaches a run, so a name one source brings
// never fails the runs of every other.

// identRe is the identifier form the sandbox installs: ASCII letters,
// digits, _ and $, not starting with a digit.
var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// MaxNameLength bounds a namespace or tool name, in bytes.
const MaxNameLength = 128

// reservedWords are JavaScript's reserved words, the words strict mode
// reserves, and the names strict mode forbids as bindings.
var reservedWords = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
	"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
	"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
	"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
	"yield": true, "let": true, "static": true, "implements": true, "interface": true,
	"package": true, "private": true, "protected": true, "public": true, "await": true,
	"eval": true, "arguments": true,
}

// standardGlobals are globals of JavaScript and of the prelude that a
// runtime may not show as own properties of globalThis (the prelude
// removes some, such as eval and Function, and replaces others): no
// namespace may take them either.
var standardGlobals = []string{
	"globalThis", "undefined", "NaN", "Infinity", "eval", "Function", "Object", "Array", "String",
	"Number", "Boolean", "Symbol", "BigInt", "Math", "JSON", "Date", "RegExp", "Error", "TypeError",
	"RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError",
	"Promise", "Proxy", "Reflect", "Map", "Set", "WeakMap", "WeakSet", "WeakRef",
	"FinalizationRegistry", "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics",
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
	"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
	"parseInt", "parseFloat", "isNaN", "isFinite", "encodeURI", "encodeURIComponent",
	"decodeURI", "decodeURIComponent", "escape", "unescape",
	"hub", "console", "ToolError", "crypto", "setTimeout", "clearTimeout", "setInterval",
	"clearInterval", "structuredClone", "TextEncoder", "TextDecoder", "atob", "btoa",
	"fetch", "require", "process", "Buffer", "URL", "URLSearchParams", "module", "exports",
}

// globals returns every name a namespace may not take: the reserved words,
// the standard globals, and the own properties of globalThis in a runtime
// with the prelude loaded, so a global the prelude adds is covered the
// day it is added.
var globals = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for w := range reservedWords {
		out[w] = true
	}
	for _, g := range standardGlobals {
		out[g] = true
	}
	eng, err := loadEngine()
	if err != nil {
		return out // execute reports the broken prelude on every run
	}
	r, err := newShell(eng, nil)
	if err != nil {
		return out
	}
	for _, name := range r.rt.GlobalObject().GetOwnPropertyNames() {
		out[name] = true
	}
	return out
})

// IsIdentifier reports whether s has the form of a name the sandbox
// installs: an ASCII identifier of at most MaxNameLength bytes. It says
// nothing about reserved words or globals; see CheckNamespace.
func IsIdentifier(s string) bool { return len(s) <= MaxNameLength && identRe.MatchString(s) }

// CheckNamespace reports why name cannot be a namespace, the global a
// source appears as, or nil when it can: it must be an identifier, not a
// reserved word, and not one of the guest's globals (hub, console,
// ToolError, parseInt, ...). Safe for concurrent use; the first call loads
// the prelude once.
func CheckNamespace(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a namespace needs a name")
	case !IsIdentifier(name):
		return fmt.Errorf("%q is not a JavaScript identifier of ASCII letters, digits, _ and $ (at most %d)", name, MaxNameLength)
	case reservedWords[name]:
		return fmt.Errorf("%q is a reserved word in JavaScript", name)
	case globals()[name]:
		return fmt.Errorf("%q would shadow the sandbox global %s", name, name)
	}
	return nil
}

// IsReservedWord reports whether s is a JavaScript reserved word, a word
// strict mode reserves, or a name strict mode forbids as a binding.
func IsReservedWord(s string) bool { return reservedWords[s] }

// CheckTool reports why name cannot be a tool of a namespace, or nil when
// it can: it must be an identifier.
func CheckTool(name string) error {
	if !IsIdentifier(name) {
		return fmt.Errorf("%q is not a JavaScript identifier of ASCII letters, digits, _ and $ (at most %d)", name, MaxNameLength)
	}
	return nil
}
