package sandbox

import (
	"bytes"
	"encoding/json"
	"strings"
)

// CallMark starts the code CallCode writes. A host that runs code it did
// not write refuses code that starts with it, so that such code is always
// the host's own.
const CallMark = "// one call of a direct-mode tool\n"

// CallCode is the code of a run that makes one tool call and returns its
// result: the tool by its namespace and name, args (a JSON object) given
// to JSON.parse, so that a key such as __proto__ is data, as sent, and the
// connection when it is not "". It is what a host runs for a client's call
// of one tool (MCP's tools/call), whose arguments may be as large as any
// call's: in code CallCode wrote, the arguments' literal counts against
// Limits.ArgsBytes, as the call does, and not against Limits.CodeBytes.
func CallCode(namespace, name string, args json.RawMessage, connection string) string {
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	b.WriteString(CallMark)
	b.WriteString("return await " + namespace + "[" + quote(name) + "](JSON.parse(" + quote(string(args)) + ")")
	if connection != "" {
		b.WriteString(", { connection: " + quote(connection) + " }")
	}
	b.WriteString(");")
	return b.String()
}

// ArgsSize is the size of arguments v (a decoded JSON value) as a call
// counts it against Limits.ArgsBytes: JSON as JSON.stringify writes it,
// without the escapes json.Marshal writes for < > & (six bytes each).
func ArgsSize(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return 0
	}
	return b.Len() - 1 // its newline
}

// CallShown is code as a person reads it: code CallCode wrote with its
// arguments' literal in a comment's place (the person reads the arguments
// beside it, redacted and cut to size), other code as it is. Code cut
// inside the literal, as a list of runs holds it, is shown to the literal.
func CallShown(code string) string {
	start, end, ok := callLiteral(code)
	if ok {
		return code[:start] + argsShown + code[end:]
	}
	if start, ok := callLiteralStart(code); ok && start < len(code) && code[start] == '"' && jsonStringEnd(code, start) == start {
		return code[:start] + argsShown + " …"
	}
	return code
}

// argsShown stands for the arguments' literal in CallShown.
const argsShown = "/* the call's arguments */"

// codeBytes is how much of code counts against limits.CodeBytes: all of
// it, but the arguments' literal of code CallCode wrote, when that literal
// is no longer than arguments of limits.ArgsBytes can make it: seven bytes
// for one at most, a < written \u003c by json.Marshal and its backslash
// escaped again when quoted. The call then holds the arguments to
// limits.ArgsBytes.
func codeBytes(code string, limits Limits) int {
	start, end, ok := callLiteral(code)
	if !ok || end-start > 7*limits.ArgsBytes+2 {
		return len(code)
	}
	return len(code) - (end - start)
}

// callLiteral finds the arguments' literal in code CallCode wrote, and
// nothing else: [start, end) is the JSON string given to JSON.parse.
func callLiteral(code string) (start, end int, ok bool) {
	start, ok = callLiteralStart(code)
	if !ok {
		return 0, 0, false
	}
	end = jsonStringEnd(code, start)
	switch {
	case end == start:
		return 0, 0, false
	case code[end:] == "));":
		return start, end, true
	}
	if rest, ok := strings.CutPrefix(code[end:], "), { connection: "); ok {
		if e := jsonStringEnd(rest, 0); e > 0 && rest[e:] == " });" {
			return start, end, true
		}
	}
	return 0, 0, false
}

// callLiteralStart is where the arguments' literal starts in code that
// begins as CallCode's does, up to it.
func callLiteralStart(code string) (int, bool) {
	rest, ok := strings.CutPrefix(code, CallMark+"return await ")
	if !ok {
		return 0, false
	}
	i := len(code) - len(rest)
	j := i
	for j < len(code) && (code[j] == '_' || code[j] == '$' || 'a' <= code[j] && code[j] <= 'z' || 'A' <= code[j] && code[j] <= 'Z' || j > i && '0' <= code[j] && code[j] <= '9') {
		j++
	}
	if j == i || !strings.HasPrefix(code[j:], "[") {
		return 0, false
	}
	e := jsonStringEnd(code, j+1)
	if e == j+1 || !strings.HasPrefix(code[e:], "](JSON.parse(") {
		return 0, false
	}
	return e + len("](JSON.parse("), true
}

// jsonStringEnd is the offset just past the JSON string that starts at
// code[i], or i when none does.
func jsonStringEnd(code string, i int) int {
	if i >= len(code) || code[i] != '"' {
		return i
	}
	for j := i + 1; j < len(code); j++ {
		switch c := code[j]; {
		case c == '\\':
			j++
		case c == '"':
			return j + 1
		case c < 0x20:
			return i
		}
	}
	return i
}
