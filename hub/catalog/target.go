package catalog

// Targets: how policy rules, hub accept and the window name tools. A
// target is an address (github.createIssue), a glob (github.create*) or a
// namespace (github), written in the JavaScript form or with the MCP names
// (the source as the config names it, the tool as its upstream does:
// my-files.read_text_file); both forms name the same tools.

import (
	"path"
	"strings"
)

// TargetKind is what a target names: a namespace, the tools a glob matches,
// or one tool.
type TargetKind int

// Kinds of target, from the least to the most specific.
const (
	TargetNamespace TargetKind = iota
	TargetGlob
	TargetExact
)

// KindOf says what kind of target target is.
func KindOf(target string) TargetKind {
	switch {
	case strings.ContainsAny(target, "*?["):
		return TargetGlob
	case strings.Contains(target, "."):
		return TargetExact
	}
	return TargetNamespace
}

// Matches reports whether target (an address, glob or namespace, in
// the JavaScript or the MCP form) names the tool.
func Matches(target, source, namespace, name, jsName string) bool {
	switch KindOf(target) {
	case TargetNamespace:
		return target == namespace || target == source
	case TargetExact:
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
