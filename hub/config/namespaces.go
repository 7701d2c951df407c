package config

// Sources as code names them: each source is the global naming.Namespace
// gives it, and code, describe targets and calls name a source by it.

import (
	"regexp"
	"strings"

	"capabilities.sh/capabilities/hub/naming"
)

// EnabledSources returns the enabled sources whose namespace is ns, or
// every enabled source when ns is "", in name order.
func (c *Config) EnabledSources(ns string) []string {
	var out []string
	for _, name := range sortedKeys(c.Sources) {
		if c.Sources[name].Disabled || (ns != "" && naming.Namespace(name) != ns) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// SourcesOfTargets returns the enabled sources that describe targets
// (namespaces, addresses, types) name by their namespace.
func (c *Config) SourcesOfTargets(targets []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range targets {
		ns, _, _ := strings.Cut(strings.TrimSpace(t), ".")
		for _, name := range c.EnabledSources(ns) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

var identifierRe = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

// SourcesInCode returns the enabled sources whose namespace appears in
// code as a word: those a run of the code may call.
func (c *Config) SourcesInCode(code string) []string {
	byNS := map[string][]string{}
	for _, name := range c.EnabledSources("") {
		byNS[naming.Namespace(name)] = append(byNS[naming.Namespace(name)], name)
	}
	seen := map[string]bool{}
	var out []string
	for _, w := range identifierRe.FindAllString(code, -1) {
		if names, ok := byNS[w]; ok && !seen[w] {
			seen[w] = true
			out = append(out, names...)
		}
	}
	return out
}

// SourceOfNamespace returns the configured source whose namespace is ns,
// "" when none is.
func (c *Config) SourceOfNamespace(ns string) string {
	for _, name := range sortedKeys(c.Sources) {
		if naming.Namespace(name) == ns {
			return name
		}
	}
	return ""
}
