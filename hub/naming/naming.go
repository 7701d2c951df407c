// Package naming is how sources and upstream tools appear in code.
//
// A source is a global (its namespace), each of its tools a method:
// github.createIssue. Upstream MCP names are anything a server sends
// (unicode, dots, slashes, 5,000 characters, "__proto__"), so the method
// name is derived, and always an ASCII identifier the sandbox accepts.
// Once a tool has a method name it keeps it: the catalog stores it per
// (source, MCP name), and a name listed later that would take it gets a
// numeric suffix instead (see Catalog.assignAddresses).
package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"capabilities.sh/capabilities/sandbox"
)

// Namespace is the JavaScript global a source appears as: the source name
// as an identifier, with "-" and "." words joined in camelCase
// ("my-github" -> "myGithub"). Config validation keeps names to letters,
// digits, "_" and "-", and refuses those whose namespace the sandbox
// cannot install (sandbox.CheckNamespace).
func Namespace(source string) string { return Camel(source) }

// MaxLen bounds a derived method name, in bytes; longer ones are cut and
// end in a hash of the whole MCP name, so two long names stay apart.
const MaxLen = 64

// objectNames are properties every object or promise has: a tool so named
// would be shadowed, or make the namespace a thenable. Reserved words
// (which need quoting in declarations) are sandbox.IsReservedWord's.
var objectNames = map[string]bool{
	"constructor": true, "prototype": true, "__proto__": true, "toString": true, "valueOf": true,
	"hasOwnProperty": true, "then": true, "toJSON": true, "isPrototypeOf": true,
	"propertyIsEnumerable": true, "toLocaleString": true,
}

// foldLetters are Latin letters that do not decompose into an ASCII letter
// and a mark.
var foldLetters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "AE", 'ø': "o", 'Ø': "O", 'œ': "oe", 'Œ': "OE", 'ł': "l", 'Ł': "L",
	'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D", 'þ': "th", 'Þ': "TH", 'ı': "i", 'ĸ': "k", 'ŋ': "ng",
}

// asciiWords folds name to ASCII where a letter has an ASCII base ("café"
// -> "cafe") and splits it into words of ASCII letters and digits; every
// other character separates words.
func asciiWords(name string) []string {
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range norm.NFKD.String(name) {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			cur = append(cur, byte(r))
		case unicode.Is(unicode.Mn, r):
			// A combining mark of the letter before it: dropped.
		case foldLetters[r] != "":
			cur = append(cur, foldLetters[r]...)
		default:
			flush()
		}
	}
	flush()
	return words
}

// Camel turns a name into a camelCase JavaScript identifier:
// "create_issue" -> "createIssue", "get-file" -> "getFile",
// "API.listKeys" -> "apiListKeys", "café" -> "cafe". Characters outside
// ASCII letters and digits separate words; a leading digit gets a "_"
// prefix. A name without any letter or digit gives "".
func Camel(name string) string {
	words := asciiWords(name)
	var b strings.Builder
	for i, w := range words {
		rs := []byte(w)
		if i == 0 {
			// Lower a leading run of capitals: "API" -> "api", "URLFor" -> "urlFor".
			j := 0
			for j < len(rs) && rs[j] >= 'A' && rs[j] <= 'Z' {
				j++
			}
			if j > 1 && j < len(rs) {
				j-- // keep the capital that starts the next word
			}
			for k := 0; k < j; k++ {
				rs[k] += 'a' - 'A'
			}
		} else if rs[0] >= 'a' && rs[0] <= 'z' {
			rs[0] -= 'a' - 'A'
		}
		b.Write(rs)
	}
	s := b.String()
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return s
}

// nameHash is a short, stable tag of an MCP name.
func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

// MethodName is the method name an MCP name asks for, before collisions:
// its camelCase form, "_" after a reserved name, cut to MaxLen with a
// hash of the name; "tool_<hash>" for a name with no ASCII letter or digit
// ("工具", "🚀"). It returns "" for an empty name, which gets no method.
func MethodName(mcpName string) string {
	if mcpName == "" {
		return ""
	}
	base := Camel(mcpName)
	switch {
	case base == "":
		base = "tool_" + nameHash(mcpName)
	case len(base) > MaxLen:
		base = base[:MaxLen-len("_12345678")] + "_" + nameHash(mcpName)
	case objectNames[base] || sandbox.IsReservedWord(base):
		base += "_"
	}
	return base
}

// AssignMethodNames gives each of names a method name that none of taken (the
// names already given, method name -> MCP name) has, in MCP name order: the
// base name, or where that is taken, the base with the first free numeric
// suffix from 2. It adds each to taken and returns MCP name -> method name.
// A name that cannot have one (empty, or somehow not an identifier the
// sandbox takes) is left out of the result.
func AssignMethodNames(taken map[string]string, names []string) map[string]string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	for _, n := range sorted {
		base := MethodName(n)
		if base == "" {
			continue
		}
		js := base
		for i := 2; taken[js] != ""; i++ {
			js = base + strconv.Itoa(i)
		}
		if sandbox.CheckTool(js) != nil {
			continue
		}
		taken[js] = n
		out[n] = js
	}
	return out
}

// ToolNames maps a source's MCP tool names to method names on a fresh
// namespace, collision-free: the camelCase form, and where two tools would
// share one, the later one (in MCP name order) gets a numeric suffix.
// Reserved words get a "_" suffix. Names that can have no method (the
// empty name) are left out. The catalog starts from the same assignment
// and keeps it as names come and go.
func ToolNames(mcpNames []string) map[string]string {
	return AssignMethodNames(map[string]string{}, mcpNames)
}

// Truncate keeps a hostile tool name readable in logs and warnings: a name
// over 80 bytes is cut there, on a character boundary, and says its length.
func Truncate(name string) string {
	const max = 80
	if len(name) <= max {
		return name
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", name[:cut], len(name))
}
