package config

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"capabilities.sh/capabilities/hub/secrets"
)

// Reach names what a source's connections send their secrets to, in the
// words of a note: "origin" for an MCP server over HTTP, "document or base
// URL" for a REST API, "program, folder or environment" for a program.
func (s *Source) Reach() string {
	switch {
	case s.URL != "":
		return "origin"
	case s.OpenAPI != "":
		return "document or base URL"
	}
	return "program, folder or environment"
}

// SameReach reports whether s, replacing old, sends what its connections
// give it to the same place old did (ReachKey): the same origin for an MCP
// server over HTTP; the same document and base URL origin for a REST API;
// for a program, the same command, folder and environment, and the same
// arguments but for a package's version ("server-github@2"). A replaced
// source's connections, and the secrets and sign-ins they hold, follow it
// only so: a file imported with --replace cannot send a person's token to a
// server of its choosing by taking the name of the source that holds it.
func SameReach(old, s *Source) bool {
	k := old.ReachKey()
	return k != "" && k == s.ReachKey()
}

// ReachKey names, in one string, where a source sends its calls and what
// its connections give it (SameReach); "" for an HTTP server whose URL has
// no origin, which reaches nothing the same.
func (s *Source) ReachKey() string {
	switch {
	case s.URL != "":
		if o := secrets.OriginOfURL(s.URL); o != "" {
			return "url " + o
		}
		return ""
	case s.OpenAPI != "":
		return "openapi " + strconv.Quote(s.OpenAPI) + " " + secrets.OriginOfURL(s.BaseURL)
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = unversioned(a)
	}
	env := s.Env
	if len(env) == 0 {
		env = nil // none is none, written or not
	}
	key, _ := json.Marshal(struct {
		Command, Cwd string
		Args         []string
		Env          map[string]string // marshalled in key order
	}{s.Command, s.Cwd, args, env})
	return "program " + string(key)
}

// versionRE matches what follows a package's name to pin its version: npm's
// "@1.2.3", "@^1", "@latest"; Python's "==1.2"; a container image's ":v1".
var versionRE = regexp.MustCompile(`^(v?[0-9][0-9A-Za-z.+-]*|[\^~][0-9A-Za-z.+-]*|latest|next)$`)

// unversioned is a program's argument without the version it pins. A URL
// is compared whole: "https://good.example@other.example" is no version of
// "https://good.example".
func unversioned(arg string) string {
	if strings.Contains(arg, "://") {
		return arg
	}
	for _, sep := range []string{"==", "@", ":"} {
		if i := strings.LastIndex(arg, sep); i > 0 && versionRE.MatchString(arg[i+len(sep):]) {
			return arg[:i]
		}
	}
	return arg
}

// LeftBehind lists the keychain keys that must go when s takes the place
// of old as source name: those of old's connections that s does not read,
// and, when s reaches another place (SameReach), every one either reads
// but those in fresh, stored for s itself. A key left would otherwise be
// read by s and go, unseen, where s sends it.
func (old *Source) LeftBehind(name string, s *Source, fresh map[string]string) []string {
	same := SameReach(old, s)
	seen := map[string]bool{}
	var keys []string
	add := func(src *Source, conn string, gone func(ref string) bool) {
		for _, ref := range src.SecretRefs(conn) {
			key := SecretKey(name, conn, ref)
			if _, ok := fresh[key]; !ok && !seen[key] && gone(ref) {
				seen[key] = true
				keys = append(keys, key)
			}
		}
	}
	for _, conn := range old.ConnectionNames() {
		add(old, conn, func(ref string) bool {
			return !same || s.Connections[conn] == nil || !slices.Contains(s.SecretRefs(conn), ref)
		})
	}
	if !same {
		for _, conn := range s.ConnectionNames() {
			add(s, conn, func(string) bool { return true })
		}
	}
	return keys
}
