package hub

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Namespace is the JavaScript global a source appears as: the source name
// as an identifier, with "-" and "." words joined in camelCase
// ("my-github" -> "myGithub"). Config validation keeps names to letters,
// digits, "_" and "-", so the result is always an identifier.
func Namespace(source string) string { return camel(source) }

// jsReserved are words an identifier may not be.
var jsReserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
	"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
	"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
	"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
	"yield": true, "let": true, "static": true, "implements": true, "interface": true,
	"package": true, "private": true, "protected": true, "public": true, "await": true,
	// Properties every object has; a tool named so would be shadowed.
	"constructor": true, "prototype": true, "__proto__": true, "toString": true, "valueOf": true,
	"hasOwnProperty": true, "then": true,
}

// camel turns an MCP tool name into a camelCase JavaScript identifier:
// "create_issue" -> "createIssue", "get-file" -> "getFile",
// "API.listKeys" -> "apiListKeys". Characters outside letters and digits
// separate words; a leading digit gets a "_" prefix.
func camel(name string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
		} else {
			flush()
		}
	}
	flush()
	var b strings.Builder
	for i, w := range words {
		rs := []rune(w)
		if i == 0 {
			// Lower a leading run of capitals: "API" -> "api", "URLFor" -> "urlFor".
			j := 0
			for j < len(rs) && unicode.IsUpper(rs[j]) {
				j++
			}
			if j > 1 && j < len(rs) {
				j-- // keep the capital that starts the next word
			}
			for k := 0; k < j; k++ {
				rs[k] = unicode.ToLower(rs[k])
			}
		} else {
			rs[0] = unicode.ToUpper(rs[0])
		}
		b.WriteString(string(rs))
	}
	s := b.String()
	if s == "" {
		s = "tool"
	}
	if unicode.IsDigit([]rune(s)[0]) {
		s = "_" + s
	}
	return s
}

// ToolNames maps a source's MCP tool names to JavaScript method names,
// stable and collision-free: the camelCase form, and where two tools would
// share one, the later one (in MCP name order) gets a numeric suffix. Reserved
// words get a "_" suffix. The result depends only on the set of names, so it is
// the same on every start.
func ToolNames(mcpNames []string) map[string]string {
	sorted := append([]string(nil), mcpNames...)
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	used := make(map[string]bool, len(sorted))
	for _, n := range sorted {
		base := camel(n)
		if jsReserved[base] {
			base += "_"
		}
		js := base
		for i := 2; used[js]; i++ {
			js = base + strconv.Itoa(i)
		}
		used[js] = true
		out[n] = js
	}
	return out
}
