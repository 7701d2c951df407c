package config

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/keychain"
)

// Import is what importing a client's MCP config yields: sources whose
// secret values were replaced by ${secret:NAME} references, and the secrets
// themselves, keyed by keychain key, to be stored before the config is saved.
type Import struct {
	Sources map[string]*Source
	Secrets map[string]string // keychain key -> secret
	Moved   []string          // "source.env.VAR" of each value moved into the keychain
	// Refused are the file's sources whose names cannot be namespaces, or
	// whose command's arguments hold a secret; they are not imported.
	Refused Errors
}

// ImportConnection is the connection name imported secrets are filed under.
const ImportConnection = "default"

// ParseImport reads a client config ("mcpServers") or a capabilities config
// ("sources") and prepares its sources for import: every env or header value
// that looks like a secret moves into the keychain under the source's
// "default" connection.
func ParseImport(file string, data []byte) (*Import, error) {
	// VS Code's mcp.json is JSON with comments and trailing commas.
	data, err := StandardJSON(data)
	if err != nil {
		return nil, &Error{File: file, Problem: "not valid JSON: " + err.Error()}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, &Error{File: file, Problem: "not valid JSON: " + JSONProblem(data, err)}
	}
	// Only the server lists are read: the rest of a client's file is the
	// client's own (Claude Code keeps its whole state beside mcpServers).
	servers := map[string]json.RawMessage{}
	for _, k := range []string{"mcpServers", "sources"} {
		if raw, ok := probe[k]; ok {
			servers[k] = raw
		}
	}
	if len(servers) == 0 {
		// VS Code keeps them under "servers" (mcp.json) or "mcp.servers" (settings.json).
		if raw, ok := probe["servers"]; ok {
			servers["mcpServers"] = raw
		} else if mcp, ok := probe["mcp"]; ok {
			var inner map[string]json.RawMessage
			if json.Unmarshal(mcp, &inner) == nil && inner["servers"] != nil {
				servers["mcpServers"] = inner["servers"]
			}
		}
	}
	if len(servers) == 0 {
		return nil, &Error{File: file, Problem: "no \"mcpServers\" or \"sources\" object to import"}
	}
	data, _ = json.Marshal(servers)
	cfg, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	var ours map[string]json.RawMessage // the sources under "sources"
	json.Unmarshal(servers["sources"], &ours)
	imp := &Import{Sources: map[string]*Source{}, Secrets: map[string]string{}, Refused: cfg.Refused()}
	for _, name := range sortedKeys(cfg.Sources) {
		s := cfg.Sources[name]
		if problem := s.ArgSecretProblem(name); problem != "" {
			key := "mcpServers."
			if _, ok := ours[name]; ok {
				key = "sources."
			}
			imp.Refused = append(imp.Refused, &Error{File: file, Key: key + name + ".args", Problem: problem + "; it is not imported"})
			continue
		}
		found, moved := s.MoveSecrets(name)
		for k, v := range found {
			imp.Secrets[k] = v
		}
		imp.Moved = append(imp.Moved, moved...)
		imp.Sources[name] = s
	}
	sort.Strings(imp.Moved)
	return imp, nil
}

// MoveSecrets takes out of source name (s) the values that look like
// secrets, as an import does, and gives its connection "default" what
// sends each from the keychain instead: a value of env or headers (the
// connection's own, as a reference), a password in the URL (the Basic
// Authorization header a client sends for it), a key in its query (the
// connection's query parameter) or its path (a reference the URL keeps in
// its place). It returns the secrets by keychain key, and what moved
// ("github.env.GITHUB_TOKEN", "docs.url.api_key"), sorted.
func (s *Source) MoveSecrets(name string) (found map[string]string, moved []string) {
	found = map[string]string{}
	move := func(kind string, m map[string]string, dst func(*Connection) *map[string]string) {
		for _, k := range sortedKeys(m) {
			v := m[k]
			if secretRefRE.MatchString(v) || v == "" {
				continue
			}
			if !secrets.LooksSecretName(k) && !secrets.LooksLikeToken(v) {
				continue
			}
			target := dst(s.importConnection())
			if *target == nil {
				*target = map[string]string{}
			}
			ref := secretRefName(k)
			(*target)[k] = "${secret:" + ref + "}"
			found[SecretKey(name, ImportConnection, ref)] = v
			moved = append(moved, name+"."+kind+"."+k)
			delete(m, k)
		}
	}
	move("env", s.Env, func(c *Connection) *map[string]string { return &c.Env })
	move("headers", s.Headers, func(c *Connection) *map[string]string { return &c.Headers })
	if clean, basic, ok := URLPassword(s.URL); ok {
		// https://user:password@host/mcp: the client sends the password
		// as Basic auth, which the connection's Authorization header now
		// does from the keychain. Beside an Authorization header of its
		// own the password was never sent (the header is set over it),
		// and goes.
		s.URL = clean
		if s.Headers["Authorization"] == "" && !hasHeader(s.Connections[ImportConnection], "Authorization") {
			move("url", map[string]string{"Authorization": basic}, func(c *Connection) *map[string]string { return &c.Headers })
		}
	}
	if keys, clean := URLQuerySecrets(s.URL); len(keys) > 0 {
		// https://host/mcp?api_key=...: the connection sends it on every
		// request to the URL, from the keychain.
		s.URL = clean
		move("url", keys, func(c *Connection) *map[string]string { return &c.Query })
	}
	if keys, template := URLPathSecrets(s.URL); len(keys) > 0 {
		// https://host/s/<key>/mcp: the URL names it, and each connection
		// fills it in from the keychain.
		s.URL = template
		s.importConnection()
		for _, ref := range sortedKeys(keys) {
			found[SecretKey(name, ImportConnection, ref)] = keys[ref]
			moved = append(moved, name+".url."+ref)
		}
	}
	if len(moved) > 0 && s.DefaultConnection() == "" {
		s.Connections[ImportConnection].Default = true
	}
	sort.Strings(moved)
	return found, moved
}

// StoreSecrets puts found (secrets by keychain key, as MoveSecrets gives
// them) into kc, in the order of their keys, and stops at the first that
// fails.
func StoreSecrets(kc keychain.Keychain, found map[string]string) error {
	for _, key := range sortedKeys(found) {
		if err := kc.Set(key, found[key]); err != nil {
			return err
		}
	}
	return nil
}

// importConnection is s's connection "default", made when s has none of
// that name.
func (s *Source) importConnection() *Connection {
	if s.Connections == nil {
		s.Connections = map[string]*Connection{}
	}
	c := s.Connections[ImportConnection]
	if c == nil {
		c = &Connection{}
		s.Connections[ImportConnection] = c
	}
	return c
}

// URLPassword reports whether the URL raw holds a password in its user
// information, and gives raw without it and the Authorization header's
// value an HTTP client sends for it ("Basic ..."). A URL that does not
// parse holds none.
func URLPassword(raw string) (clean, basic string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw, "", false
	}
	pass, has := u.User.Password()
	if !has {
		return raw, "", false
	}
	basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
	u.User = nil
	return u.String(), basic, true
}

// URLQuerySecrets gives the parameters of the URL raw's query that look
// like secrets (by name, or a value like a token), by name, and raw
// without them, the rest of its query as written. A name given twice
// keeps its first value. A URL that does not parse holds none.
func URLQuerySecrets(raw string) (found map[string]string, clean string) {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return nil, raw
	}
	var kept []string
	for _, part := range strings.Split(u.RawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		name, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || name == "" || !(secrets.LooksSecretName(name) || secrets.LooksLikeToken(val)) {
			kept = append(kept, part)
			continue
		}
		if found == nil {
			found = map[string]string{}
		}
		if _, dup := found[name]; !dup {
			found[name] = val
		}
	}
	if found == nil {
		return nil, raw
	}
	u.RawQuery = strings.Join(kept, "&")
	u.ForceQuery = false
	return found, u.String()
}

// URLPathSecrets gives the segments of the URL raw's path that look like
// secrets (a value like a token), by the reference that stands for each
// (url_path, then url_path_2, ...), and raw with the references in their
// place. A URL that does not parse holds none.
func URLPathSecrets(raw string) (found map[string]string, template string) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return nil, raw
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil || strings.Contains(v, "${") || !secrets.LooksLikeToken(v) {
			continue
		}
		ref := "url_path"
		if len(found) > 0 {
			ref = fmt.Sprintf("url_path_%d", len(found)+1)
		}
		if found == nil {
			found = map[string]string{}
		}
		found[ref] = v
		segs[i] = "${secret:" + ref + "}"
	}
	if found == nil {
		return nil, raw
	}
	base := *u
	base.Path, base.RawPath, base.RawQuery, base.ForceQuery, base.Fragment, base.RawFragment = "", "", "", false, "", ""
	template = base.String() + strings.Join(segs, "/")
	if u.RawQuery != "" || u.ForceQuery {
		template += "?" + u.RawQuery
	}
	return found, template
}

// secretRefName is the ${secret:NAME} a value named k is stored under: k,
// with what a reference cannot hold made "_".
func secretRefName(k string) string {
	return notRefChar.ReplaceAllString(k, "_")
}

// URLPasswordProblem names the key of s ("url", "baseUrl", "openapi")
// whose URL holds a password, with its URL without it, and says why a
// source may not keep it: the URL of an MCP server or of an API, whose
// password a connection's Authorization header carries instead, or the
// URL of an OpenAPI document, which the hub fetches with no credential.
// "" when none holds one.
func URLPasswordProblem(s *Source) (key, clean, problem string) {
	for _, u := range []struct{ key, raw, instead string }{
		{"url", s.URL, "give it to a connection as its Authorization header (Basic)"},
		{"baseUrl", s.BaseURL, "give it to a connection as its Authorization header (Basic)"},
		{"openapi", s.OpenAPI, "the document is fetched with no credential: save it and give its file"},
	} {
		if clean, _, ok := URLPassword(u.raw); ok {
			return u.key, clean, "the URL holds a password, and secrets never go into config.json; " + u.instead
		}
	}
	return "", "", ""
}

// hasHeader reports whether connection c sets header name.
func hasHeader(c *Connection, name string) bool {
	return c != nil && c.Headers[name] != ""
}

// AddSource adds (or with replace, replaces) a source after validating it.
// A source replaced by one without connections that reaches the same place
// (SameReach) keeps the connections it had where they still fit (env for a
// program, headers for an HTTP server), as an edit of config.json keeps
// them, their secrets still in use; ones that do not fit are left out, and
// so are all when it reaches another place. The caller removes the secrets
// left behind (Source.LeftBehind) before it saves.
func (c *Config) AddSource(file, name string, s *Source, replace bool) error {
	old, exists := c.Sources[name]
	if exists && !replace {
		return &Error{File: file, Key: "sources." + name, Problem: "a source with this name exists; remove it first or pick another name"}
	}
	validate := func() (errs Errors) {
		validateSource(name, s, "sources."+name, func(key, format string, args ...any) {
			errs = append(errs, &Error{File: file, Key: key, Problem: fmt.Sprintf(format, args...)})
		})
		return errs
	}
	if old != nil && len(s.Connections) == 0 && len(old.Connections) > 0 && SameReach(old, s) {
		if s.Connections = old.Connections; len(validate()) > 0 {
			s.Connections = nil
		}
	}
	withURLConnection(s)
	errs := validate()
	// Checked for a source being added, not in a config.json read: one
	// written before keeps loading, and says why it is down.
	if problem := commandProblem(s.Command); s.Command != "" && problem != "" {
		errs = append(errs, &Error{File: file, Key: "sources." + name + ".command", Problem: fmt.Sprintf("%q %s", s.Command, problem)})
	}
	if key, _, problem := URLPasswordProblem(s); problem != "" {
		errs = append(errs, &Error{File: file, Key: "sources." + name + "." + key, Problem: problem})
	}
	if len(errs) > 0 {
		return errs
	}
	c.Sources[name] = s
	return nil
}

// withURLConnection gives s, whose URL (or its API's base URL) references
// a secret and which has no connection yet (added so, or written so by
// hand), the connection that will hold it: "default", empty until
// 'capabilities connection add' fills it.
func withURLConnection(s *Source) {
	if len(s.Connections) == 0 && (secretRefRE.MatchString(s.URL) || secretRefRE.MatchString(s.BaseURL)) {
		s.Connections = map[string]*Connection{ImportConnection: {Default: true}}
	}
}

// Validate checks the whole config again, after an edit.
func (c *Config) Validate(file string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = Parse(file, b)
	return err
}

// SetEnabled enables or disables the source; false when it already was.
// A disabled source stays in config.json, its sessions end and its tools
// leave the catalog.
func (s *Source) SetEnabled(enabled bool) bool {
	changed := s.Disabled == enabled
	s.Disabled = !enabled
	return changed
}

// ArgSecretProblem says why source name, whose command's arguments hold
// what looks like a secret (ArgSecret), may not keep it, and what to do
// instead; "" when they hold none.
func (s *Source) ArgSecretProblem(name string) string {
	where := ArgSecret(s.Args)
	if where == "" {
		return ""
	}
	return fmt.Sprintf("its command's %s looks like a secret; secrets never go into config.json, and every user of this machine can read a program's arguments (ps): "+
		"give the program the secret in its environment instead ('capabilities connection add %s default --env VAR' keeps it in the keychain), "+
		"or for a server over HTTP add its URL ('--url') with a header connection", where, name)
}

// varNameRE matches an environment variable's name as written in capitals,
// a value that names where a secret is rather than holding it
// (--token-env GITHUB_TOKEN).
var varNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// ArgSecret says which of a program's arguments looks like a secret, never
// quoting it: one shaped like a token ("argument 3"), the value of a flag,
// NAME=value or "Header: value" whose name says secret ("argument 4 (the
// value of --api-key)"), or a URL holding a password or key. A secret
// there would sit in config.json and on the program's command line, which
// every user of this machine can read (ps). "" when none does.
func ArgSecret(args []string) string {
	for i, a := range args {
		at := fmt.Sprintf("argument %d", i+1)
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			q, _ := URLQuerySecrets(a)
			p, _ := URLPathSecrets(a)
			if _, _, pw := URLPassword(a); pw || len(q)+len(p) > 0 {
				return at + " (a URL with a secret in it)"
			}
			continue
		}
		name, value, cut := strings.Cut(a, "=")
		if !cut || strings.Contains(name, " ") {
			if h, v, ok := strings.Cut(a, ":"); ok && !strings.ContainsAny(h, " /") {
				name, value, cut = h, strings.TrimSpace(v), true // Authorization: Bearer ...
			}
		}
		switch {
		case cut && (secretName(name) && argHoldsValue(value) || secrets.LooksLikeToken(value)):
			return fmt.Sprintf("%s (the value of %s)", at, name)
		case strings.HasPrefix(a, "-") && !cut && secretName(a) && i+1 < len(args) && argHoldsValue(args[i+1]):
			return fmt.Sprintf("argument %d (the value of %s)", i+2, a)
		case secrets.LooksLikeToken(a):
			return at
		}
	}
	return ""
}

// placeNameRE matches the name of a flag or variable that says where a
// secret is kept (--token-file, --secret-name, GITHUB_TOKEN_ENV) rather
// than holding it.
var placeNameRE = regexp.MustCompile(`(?i)[-_](file|path|env|var|dir|name|id|url)$`)

// secretName reports whether a flag's or variable's name says its value is
// a secret, and not where one is kept.
func secretName(name string) bool {
	return secrets.LooksSecretName(name) && !placeNameRE.MatchString(name)
}

// argHoldsValue reports whether v, given to a flag or a name whose name
// says secret, may be the secret itself: not empty, another flag, a path,
// a reference to a variable (${TOKEN}, $TOKEN), a number, a yes or no, or
// a variable's name.
func argHoldsValue(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "-~.") || strings.Contains(v, "$") || varNameRE.MatchString(v) {
		return false
	}
	if strings.Contains(v, "/") && !secrets.LooksLikeToken(v) {
		return false // a path or a name with parts
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	return v != "true" && v != "false"
}
