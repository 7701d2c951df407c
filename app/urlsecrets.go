package main

// What looks like a secret in a source's URL, and how a connection takes
// it instead: source add refuses it, doctor warns of it.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/config"
)

// urlSecret is one URL of a source that holds what looks like a secret.
type urlSecret struct {
	key     string // the source's key: "url", "baseUrl", "openapi"
	problem string // after the key: " holds a password", "'s query parameter api_key looks like a secret", ...
	fixed   string // the URL without it, or with a reference in its place
	then    string // the commands that store it in a connection; "" for a document's URL, which none serves
}

// urlSecretsOf lists the URLs of source name (s) that hold what looks like
// a secret, a password first: the URL of an MCP server or of an API, which
// a connection serves (its Authorization header for a password, its
// query parameters for a key in the query, the URL's reference for one
// in the path), and the URL of an OpenAPI document, which the hub fetches
// with no credential.
func urlSecretsOf(name string, s *config.Source) []urlSecret {
	var out []urlSecret
	if key, clean, problem := config.URLPasswordProblem(s); problem != "" {
		u := urlSecret{key: key, problem: " holds a password", fixed: clean, then: basicConnectionCommand(name)}
		if key == "openapi" {
			u.then = ""
		}
		out = append(out, u)
	}
	for _, u := range []struct{ key, raw string }{{"url", s.URL}, {"baseUrl", s.BaseURL}, {"openapi", s.OpenAPI}} {
		found, clean := config.URLQuerySecrets(u.raw)
		if len(found) == 0 {
			continue
		}
		what, then := queryConnectionCommands(name, found)
		us := urlSecret{key: u.key, problem: "'s query " + what + " like a secret", fixed: clean, then: then}
		if u.key == "openapi" {
			us.then = ""
		}
		out = append(out, us)
	}
	for _, u := range []struct{ key, raw string }{{"url", s.URL}, {"baseUrl", s.BaseURL}} {
		if found, template := config.URLPathSecrets(u.raw); len(found) > 0 {
			out = append(out, urlSecret{key: u.key, problem: "'s path holds what looks like a secret", fixed: template,
				then: pathConnectionCommands(name, slices.Sorted(maps.Keys(found)))})
		}
	}
	return out
}

// urlSecretRefused refuses a source being added whose URL holds what
// looks like a secret (before anything is fetched with it), saying how a
// connection takes it instead.
func urlSecretRefused(name string, s *config.Source) error {
	all := urlSecretsOf(name, s)
	if len(all) == 0 {
		return nil
	}
	u := all[0]
	flag := map[string]string{"url": "--url", "baseUrl": "--base-url", "openapi": "--openapi"}[u.key]
	err := fmt.Errorf("%s%s; secrets never go into config.json", flag, u.problem)
	if u.then == "" {
		return withHint(err, "the hub fetches the document with no credential: save it, then give its file to --openapi")
	}
	return withHint(err, fmt.Sprintf("add the source with %s %s, then: %s", flag, shellQuote(u.fixed), u.then))
}

// queryConnectionCommands names the parameters of found, a URL's query
// parameters that look like secrets ("parameter api_key looks"), and
// gives the commands that put them in source name's default connection.
func queryConnectionCommands(name string, found map[string]string) (what, then string) {
	names := slices.Sorted(maps.Keys(found))
	var cmds []string
	for _, k := range names {
		cmds = append(cmds, fmt.Sprintf("capabilities connection add %s default --query %s", name, shellQuote(k)))
	}
	what = plural(len(names), "parameter "+names[0]+" looks", "parameters "+strings.Join(names, ", ")+" look")
	return what, strings.Join(cmds, "; ") + "  (reads the secret from stdin; the connection sends it on every request)"
}

// pathConnectionCommands gives the commands that store the secrets refs,
// which a URL references, in source name's default connection.
func pathConnectionCommands(name string, refs []string) string {
	if len(refs) == 1 {
		return fmt.Sprintf("capabilities connection add %s default  (reads the secret from stdin)", name)
	}
	var cmds []string
	for _, ref := range refs {
		cmds = append(cmds, fmt.Sprintf("capabilities connection add %s default --secret %s", name, ref))
	}
	return strings.Join(cmds, "; ") + "  (each reads its secret from stdin)"
}

// basicConnectionCommand is the command that gives source name's default
// connection a user and password as the Basic Authorization header.
func basicConnectionCommand(name string) string {
	return fmt.Sprintf("printf 'Basic %%s' \"$(printf %%s 'USER:PASSWORD' | base64)\" | capabilities connection add %s default --header Authorization", name)
}

// shellQuote writes s as one word a POSIX shell reads back as s: as it is
// when it holds nothing the shell would read otherwise (a URL's ? or &),
// else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// urlRefsNote says, for source name (s) just added, how to store the
// secrets its URL raw ("URL", "base URL": what) references.
func urlRefsNote(e *env, name string, s *config.Source, what, raw string) {
	refs := slices.DeleteFunc(s.SecretRefs(s.DefaultConnection()), func(ref string) bool { return !strings.Contains(raw, "${secret:"+ref+"}") })
	if len(refs) > 0 {
		fmt.Fprintf(e.Stdout, "Its %s takes %s from the keychain; store %s with: %s\n", what, plural(len(refs), "a secret", "secrets"), plural(len(refs), "it", "them"), pathConnectionCommands(name, refs))
	}
}
