package hub

// Targets: how policy rules, hub accept and the window name tools. A
// target is an address (github.createIssue), a glob (github.create*) or a
// namespace (github), written in the JavaScript form or with the MCP names
// (the source as the config names it, the tool as its upstream does:
// my-files.read_text_file); both forms name the same tools.

import (
	"path"
	"strings"
)

// Kinds of target, from the least to the most specific.
const (
	targetNamespace = iota
	targetGlob
	targetExact
)

func targetKind(target string) int {
	switch {
	case strings.ContainsAny(target, "*?["):
		return targetGlob
	case strings.Contains(target, "."):
		return targetExact
	}
	return targetNamespace
}

// targetMatches reports whether target (an address, glob or namespace, in
// the JavaScript or the MCP form) names the tool.
func targetMatches(target, source, namespace, name, jsName string) bool {
	switch targetKind(target) {
	case targetNamespace:
		return target == namespace || target == source
	case targetExact:
		head, tail, _ := strings.Cut(target, ".")
		return (head == namespace || head == source) && (tail == jsName || tail == name)
	}
	for _, ns := range []string{namespace, source} {
		for _, n := range []string{jsName, name} {
			if ok, _ := path.Match(target, ns+"."+n); ok {
				return true
			}
		}
	}
	return false
}
