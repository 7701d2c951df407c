package config

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/sandbox"
)

// Config is the person's hand-editable config.json.
//
// Sources sit under "sources" keyed by name; each entry takes the keys MCP
// clients use under "mcpServers" plus "connections". A file with a top-level
// "mcpServers" (a client's own config) is read as sources too. Keys this
// version does not know are kept when the hub rewrites the file.
type Config struct {
	Sources map[string]*Source `json:"-"`
	// Policy maps an address ("github.createIssue"), a glob
	// ("github.create*") or a namespace ("github") to allow, ask or deny.
	Policy map[string]Mode `json:"-"`
	// Retention bounds the finished runs the hub keeps ("retention").
	Retention Retention `json:"-"`
	// Catalog bounds each source's tool listing; zero fields keep the
	// defaults (DefaultCatalogLimits).
	Catalog CatalogLimits `json:"-"`
	// Skills names folders of skills besides the home's ("skills").
	Skills SkillsConfig `json:"-"`
	// Profiles are named views of the hub a client selects ("profiles").
	Profiles map[string]*Profile `json:"-"`

	extra map[string]json.RawMessage // unknown top-level keys, kept on save

	// refused are sources whose names cannot be namespaces, as written in
	// the file: they are not served, and kept on save. refusals say why.
	refused  map[string]json.RawMessage
	refusals Errors

	// base is the file this Config was read from (Load) as it was then:
	// Save refuses to write over it once it changed, which would lose the
	// other edit. A Config made in memory has none.
	base *fileBase
}

// fileBase is a config file as a Config read it.
type fileBase struct {
	path    string
	sum     [sha256.Size]byte
	missing bool // there was no file
}

// ErrChanged is a Save over a config file that changed since the Config was
// read from it: another command or the hub wrote it meanwhile. Nothing was
// written; reading it again and redoing the edit is safe.
var ErrChanged = errors.New("changed since it was read")

// changedError is ErrChanged, saying which file and what to do.
type changedError string

func (e changedError) Error() string { return string(e) }
func (e changedError) Unwrap() error { return ErrChanged }

// saveMu makes a process's check that the file is unchanged and its write
// one step.
var saveMu sync.Mutex

// Source is one upstream MCP server.
type Source struct {
	// Stdio transport.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// Streamable HTTP transport.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is what clients write beside the transport keys: "stdio",
	// "http" or "streamable-http". Optional; the keys decide.
	Type string `json:"type,omitempty"`
	// OpenAPI makes the source a REST API: the file path or http(s) URL of
	// its OpenAPI document. BaseURL overrides the document's server.
	OpenAPI string `json:"openapi,omitempty"`
	BaseURL string `json:"baseUrl,omitempty"`
	// AllowInsecureHTTP lets the source's credentials go over plain http://
	// to another machine. Without it they go over http only to this
	// machine (localhost and loopback addresses), and https elsewhere.
	AllowInsecureHTTP bool `json:"allowInsecureHttp,omitempty"`
	// Origins are other origins ("https://uploads.github.com") that an
	// OpenAPI source's operations may name as their own server: such an
	// operation is served, and its calls carry the connection's
	// credentials there. Without it, an operation whose own server is
	// not on the API's origin is left out, since a source's credentials
	// go to that origin only.
	Origins []string `json:"origins,omitempty"`
	// Disabled keeps the source in the file without connecting to it.
	Disabled bool `json:"disabled,omitempty"`
	// ConcurrentWrites says the source's tools that are not read-only may
	// run at the same time: without it, the hub sends them to each
	// connection one at a time, in the order a run issued them.
	ConcurrentWrites bool `json:"concurrentWrites,omitempty"`
	// Connections are named credential sets. Their env and headers values
	// may reference secrets in the keychain as ${secret:NAME}.
	Connections map[string]*Connection `json:"connections,omitempty"`

	extra map[string]json.RawMessage
}

// Connection is one named credential set of a source.
type Connection struct {
	Default bool              `json:"default,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth, when set, signs the connection in with OAuth (see
	// [OAuthConfig]); an HTTP source's connection also signs in when its
	// server asks for it.
	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// Query is sent as query parameters, to an OpenAPI source's API or on
	// every request to an HTTP source's URL (a key such a server takes as
	// ?api_key=...); Cookies go to an OpenAPI source's API as cookies.
	Query   map[string]string `json:"query,omitempty"`
	Cookies map[string]string `json:"cookies,omitempty"`

	extra map[string]json.RawMessage
}

// Mode is a policy decision.
type Mode string

// The three policy modes.
const (
	Allow Mode = "allow"
	Ask   Mode = "ask"
	Deny  Mode = "deny"
)

// ParseMode parses allow, ask or deny.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Allow, Ask, Deny:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: must be allow, ask or deny", s)
}

// Error is a problem in a config file: which file, which key, what.
type Error struct {
	File    string
	Key     string // dotted path, e.g. "sources.github.args"
	Problem string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Problem)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Problem)
}

// Errors collects every problem found in one file.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// refChars are the characters of a secret's name in ${secret:NAME}.
const refChars = `A-Za-z0-9_.-`

var (
	sourceNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	connNameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	secretRefRE  = regexp.MustCompile(`\$\{secret:([` + refChars + `]+)\}`)
	notRefChar   = regexp.MustCompile(`[^` + refChars + `]`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	policyKeyRE  = regexp.MustCompile(`^[A-Za-z_$*?][A-Za-z0-9_$*?\[\]-]*(\.[A-Za-z0-9_$*?\[\]-]+)?$`)
)

// IsPolicyKey reports whether k can be a key of the config's "policy": an
// address (github.createIssue), a glob (github.create*) or a namespace
// (github).
func IsPolicyKey(k string) bool { return policyKeyRE.MatchString(k) }

// ReplaceSecretRefs returns s with each ${secret:NAME} in it replaced by
// repl(NAME).
func ReplaceSecretRefs(s string, repl func(name string) string) string {
	return secretRefRE.ReplaceAllStringFunc(s, func(ref string) string {
		return repl(secretRefRE.FindStringSubmatch(ref)[1])
	})
}

// Load reads and validates path. A missing file is an empty config.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}, base: &fileBase{path: path, missing: true}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.base = &fileBase{path: path, sum: sha256.Sum256(data)}
	return c, nil
}

// Parse parses and validates data read from file (named in errors).
func Parse(file string, data []byte) (*Config, error) {
	c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, &Error{File: file, Problem: "not valid JSON: " + JSONProblem(data, err)}
	}
	var errs Errors
	add := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: file, Key: key, Problem: fmt.Sprintf(format, args...)})
	}
	for _, key := range []string{"sources", "mcpServers"} {
		raw, ok := top[key]
		if !ok {
			continue
		}
		delete(top, key)
		var srcs map[string]json.RawMessage
		if err := json.Unmarshal(raw, &srcs); err != nil {
			add(key, "must be an object of sources keyed by name")
			continue
		}
		for _, name := range sortedKeys(srcs) {
			at := key + "." + name
			if _, dup := c.Sources[name]; dup || c.refused[name] != nil {
				add(at, "source %q is defined under both \"sources\" and \"mcpServers\"", name)
				continue
			}
			if problem := sourceNameProblem(name); problem != "" {
				// Refused alone: the other sources keep serving.
				if c.refused == nil {
					c.refused = map[string]json.RawMessage{}
				}
				c.refused[name] = srcs[name]
				c.refusals = append(c.refusals, &Error{File: file, Key: at, Problem: problem + "; the source is not served until it is renamed"})
				continue
			}
			s, err := parseSource(srcs[name], at, add)
			if err != nil {
				continue
			}
			c.Sources[name] = s
			withURLConnection(s)
			validateSource(name, s, at, add)
		}
	}
	if raw, ok := top["policy"]; ok {
		delete(top, "policy")
		var pol map[string]string
		if err := json.Unmarshal(raw, &pol); err != nil {
			add("policy", "must be an object mapping an address, glob or namespace to \"allow\", \"ask\" or \"deny\"")
		}
		for _, k := range sortedKeys(pol) {
			m, err := ParseMode(pol[k])
			if err != nil {
				add("policy."+k, "%v", err)
				continue
			}
			if !policyKeyRE.MatchString(k) {
				add("policy."+k, "not an address (github.createIssue), a glob (github.create*) or a namespace (github)")
				continue
			}
			c.Policy[k] = m
		}
	}
	if raw, ok := top["retention"]; ok {
		delete(top, "retention")
		c.Retention = parseRetention(raw, add)
	}
	if raw, ok := top["catalog"]; ok {
		delete(top, "catalog")
		c.Catalog = parseCatalogLimits(raw, add)
	}
	if raw, ok := top["skills"]; ok {
		delete(top, "skills")
		c.Skills = parseSkillsConfig(raw, add)
	}
	if raw, ok := top["profiles"]; ok {
		delete(top, "profiles")
		c.Profiles = parseProfiles(c, raw, add)
	}
	checkKeys("", top, configKeys, add)
	if len(top) > 0 {
		c.extra = top
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

func parseSource(raw json.RawMessage, at string, add func(string, string, ...any)) (*Source, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		add(at, "must be an object with \"command\" (stdio) or \"url\" (streamable HTTP)")
		return nil, err
	}
	s := &Source{}
	ok := true
	str := func(k string, dst *string) {
		if v, has := fields[k]; has {
			delete(fields, k)
			if err := json.Unmarshal(v, dst); err != nil {
				add(at+"."+k, "must be a string")
				ok = false
			}
		}
	}
	strMap := func(prefix, k string, f map[string]json.RawMessage, dst *map[string]string) {
		if v, has := f[k]; has {
			delete(f, k)
			if err := json.Unmarshal(v, dst); err != nil {
				add(prefix+"."+k, "must be an object of string values")
				ok = false
			}
		}
	}
	str("command", &s.Command)
	str("cwd", &s.Cwd)
	str("url", &s.URL)
	str("type", &s.Type)
	str("openapi", &s.OpenAPI)
	str("baseUrl", &s.BaseURL)
	if v, has := fields["args"]; has {
		delete(fields, "args")
		if err := json.Unmarshal(v, &s.Args); err != nil {
			add(at+".args", "must be an array of strings")
			ok = false
		}
	}
	if v, has := fields["disabled"]; has {
		delete(fields, "disabled")
		if err := json.Unmarshal(v, &s.Disabled); err != nil {
			add(at+".disabled", "must be true or false")
			ok = false
		}
	}
	if v, has := fields["concurrentWrites"]; has {
		delete(fields, "concurrentWrites")
		if err := json.Unmarshal(v, &s.ConcurrentWrites); err != nil {
			add(at+".concurrentWrites", "must be true or false")
			ok = false
		}
	}
	if v, has := fields["allowInsecureHttp"]; has {
		delete(fields, "allowInsecureHttp")
		if err := json.Unmarshal(v, &s.AllowInsecureHTTP); err != nil {
			add(at+".allowInsecureHttp", "must be true or false")
			ok = false
		}
	}
	if v, has := fields["origins"]; has {
		delete(fields, "origins")
		if err := json.Unmarshal(v, &s.Origins); err != nil {
			add(at+".origins", "must be an array of origins, such as [\"https://uploads.example.com\"]")
			ok = false
		}
	}
	strMap(at, "env", fields, &s.Env)
	strMap(at, "headers", fields, &s.Headers)
	if v, has := fields["connections"]; has {
		delete(fields, "connections")
		var conns map[string]json.RawMessage
		if err := json.Unmarshal(v, &conns); err != nil {
			add(at+".connections", "must be an object of connections keyed by name")
			ok = false
		}
		s.Connections = map[string]*Connection{}
		for _, name := range sortedKeys(conns) {
			cat := at + ".connections." + name
			var cf map[string]json.RawMessage
			if err := json.Unmarshal(conns[name], &cf); err != nil {
				add(cat, "must be an object with \"env\", \"headers\" and \"default\"")
				ok = false
				continue
			}
			cn := &Connection{}
			if d, has := cf["default"]; has {
				delete(cf, "default")
				if err := json.Unmarshal(d, &cn.Default); err != nil {
					add(cat+".default", "must be true or false")
					ok = false
				}
			}
			strMap(cat, "env", cf, &cn.Env)
			strMap(cat, "headers", cf, &cn.Headers)
			if v, has := cf["oauth"]; has {
				delete(cf, "oauth")
				cn.OAuth = parseOAuthConfig(cat+".oauth", v, add)
			}
			strMap(cat, "query", cf, &cn.Query)
			strMap(cat, "cookies", cf, &cn.Cookies)
			checkKeys(cat, cf, connectionKeys, add)
			if len(cf) > 0 {
				cn.extra = cf
			}
			s.Connections[name] = cn
		}
	}
	checkKeys(at, fields, sourceKeys, add)
	if len(fields) > 0 {
		s.extra = fields
	}
	if !ok {
		return nil, errors.New("invalid source")
	}
	return s, nil
}

// Refused returns the sources of the file that are not served because
// their names cannot be namespaces, each with the file, the key and a
// suggested name. Nil when every source is served.
func (c *Config) Refused() Errors { return c.refusals }

// DropRefused removes a refused source from the config (it is then gone
// from the file on the next save) and reports whether there was one.
func (c *Config) DropRefused(name string) bool {
	if _, ok := c.refused[name]; !ok {
		return false
	}
	delete(c.refused, name)
	kept := c.refusals[:0:0]
	for _, e := range c.refusals {
		if e.Key != "sources."+name && e.Key != "mcpServers."+name {
			kept = append(kept, e)
		}
	}
	c.refusals = kept
	return true
}

// sourceNameProblem says why name cannot be a source's name, with a name
// that can, or "" when it can. A source's namespace is a global of the
// sandbox, so the sandbox's own check decides.
func sourceNameProblem(name string) string {
	if !sourceNameRE.MatchString(name) {
		return fmt.Sprintf("source name must start with a letter or _ and hold only letters, digits, _ and - (at most 64); rename it, for example to %q", suggestSourceName(name))
	}
	if err := sandbox.CheckNamespace(naming.Namespace(name)); err != nil {
		return fmt.Sprintf("source name %q is the global %s in code, and %v; rename it, for example to %q", name, naming.Namespace(name), err, suggestSourceName(name))
	}
	return ""
}

// suggestSourceName turns name into one sourceNameProblem accepts.
func suggestSourceName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 0x80 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "source-" + s
	}
	s = strings.TrimRight(s[:min(len(s), 52)], "-")
	for _, suffix := range []string{"", "-mcp", "-source", "-tools"} {
		if c := s + suffix; sourceNameRE.MatchString(c) && sandbox.CheckNamespace(naming.Namespace(c)) == nil {
			return c
		}
	}
	return "my-source"
}

func validateSource(name string, s *Source, at string, add func(string, string, ...any)) {
	if problem := sourceNameProblem(name); problem != "" {
		add(at, "%s", problem)
	}
	switch {
	case s.OpenAPI != "" || s.BaseURL != "":
		validateOpenAPISource(s, at, add)
	case s.Command == "" && s.URL == "":
		add(at, "needs \"command\" (stdio) or \"url\" (streamable HTTP), or \"openapi\" (a REST API)")
	case s.Command != "" && s.URL != "":
		add(at, "has both \"command\" and \"url\"; a source is stdio or streamable HTTP, not both")
	}
	if len(s.Origins) > 0 && s.OpenAPI == "" && s.BaseURL == "" {
		add(at+".origins", "belongs to OpenAPI sources: the other origins their operations may call")
	}
	switch strings.ToLower(s.Type) {
	case "", "stdio", "http", "streamable-http", "streamablehttp":
	case "sse":
		add(at+".type", "\"sse\" is the retired HTTP+SSE transport; use the server's streamable HTTP endpoint")
	default:
		add(at+".type", "unknown transport %q: use \"stdio\" or \"http\"", s.Type)
	}
	if s.URL != "" {
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
			add(at+".url", "must be an http:// or https:// URL")
		}
		if problem := urlRefProblem(s); problem != "" {
			add(at+".url", "%s", problem)
		}
		if len(s.Args) > 0 || s.Cwd != "" {
			add(at, "\"args\" and \"cwd\" belong to stdio sources; this one has a \"url\"")
		}
	}
	if s.Command != "" && len(s.Headers) > 0 {
		add(at+".headers", "headers belong to HTTP sources; stdio sources take \"env\"")
	}
	if s.AllowInsecureHTTP && s.Command != "" {
		add(at+".allowInsecureHttp", "belongs to HTTP and OpenAPI sources; a stdio source sends nothing over the network")
	}
	for k := range s.Env {
		if !envNameRE.MatchString(k) {
			add(at+".env."+k, "not a valid environment variable name")
		}
	}
	checkRefs := func(where string, m map[string]string, conn string) {
		for _, k := range sortedKeys(m) {
			if strings.Contains(m[k], "${secret") && !secretRefRE.MatchString(m[k]) {
				add(where+"."+k, "malformed secret reference; write ${secret:NAME}")
			}
			if conn == "" && secretRefRE.MatchString(m[k]) && len(s.Connections) == 0 {
				add(where+"."+k, "references a secret but the source has no connections; add one with `capabilities connection add %s NAME`", name)
			}
		}
	}
	checkRefs(at+".env", s.Env, "")
	checkRefs(at+".headers", s.Headers, "")
	checkRefs(at, map[string]string{"url": s.URL, "baseUrl": s.BaseURL}, "")
	defaults := 0
	for _, cname := range sortedKeys(s.Connections) {
		cn := s.Connections[cname]
		cat := at + ".connections." + cname
		if !connNameRE.MatchString(cname) {
			add(cat, "connection name must hold only letters, digits, _, . and - (at most 64)")
		}
		if cn.Default {
			defaults++
		}
		if s.URL != "" && len(cn.Env) > 0 {
			add(cat+".env", "env belongs to stdio sources; HTTP connections take \"headers\"")
		}
		if s.OpenAPI == "" && len(cn.Cookies) > 0 {
			add(cat+".cookies", "\"cookies\" belong to OpenAPI sources")
		}
		if s.OpenAPI == "" && s.URL == "" && len(cn.Query) > 0 {
			add(cat+".query", "\"query\" belongs to HTTP and OpenAPI sources")
		}
		if s.Command != "" && len(cn.Headers) > 0 {
			add(cat+".headers", "headers belong to HTTP sources; stdio connections take \"env\"")
		}
		if s.Command != "" && cn.OAuth != nil {
			add(cat+".oauth", "only an HTTP source (\"url\") or a REST API (\"openapi\") signs in with OAuth")
		}
		for k := range cn.Env {
			if !envNameRE.MatchString(k) {
				add(cat+".env."+k, "not a valid environment variable name")
			}
		}
		checkRefs(cat+".env", cn.Env, cname)
		checkRefs(cat+".headers", cn.Headers, cname)
		checkRefs(cat+".query", cn.Query, cname)
		checkRefs(cat+".cookies", cn.Cookies, cname)
	}
	if defaults > 1 {
		add(at+".connections", "%d connections are marked default; mark exactly one", defaults)
	}
	if len(s.Connections) > 1 && defaults == 0 {
		add(at+".connections", "several connections and none marked default; set \"default\": true on one")
	}
}

// DefaultConnection returns the name of the source's default connection, or
// "" when it has none.
func (s *Source) DefaultConnection() string {
	names := sortedKeys(s.Connections)
	for _, n := range names {
		if s.Connections[n].Default {
			return n
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return ""
}

// PutConnection sets connection name of s to c, new or replacing one of
// that name. With makeDefault, or as the source's only connection, it
// becomes the default. Otherwise the default stays where it was: the
// connection marked default keeps its mark, and one that was the default
// only by being the only connection is marked explicitly, so a second
// connection never takes over silently. It reports the default afterwards.
func (s *Source) PutConnection(name string, c *Connection, makeDefault bool) string {
	prev := s.DefaultConnection()
	if s.Connections == nil {
		s.Connections = map[string]*Connection{}
	}
	s.Connections[name] = c
	def := prev
	if makeDefault || len(s.Connections) == 1 {
		def = name
	}
	if def == "" {
		// Several connections and none marked before: left for Validate
		// to name.
		return ""
	}
	for n, cn := range s.Connections {
		cn.Default = n == def
	}
	return def
}

// ConnectionNames returns the connection names, default first.
func (s *Source) ConnectionNames() []string {
	names := sortedKeys(s.Connections)
	def := s.DefaultConnection()
	sort.SliceStable(names, func(i, j int) bool { return names[i] == def && names[j] != def })
	return names
}

// RefPlace says what ${secret:ref} fills in connection conn of s, in
// words for a person: "header X-API-Key", "environment variable
// GITHUB_TOKEN" (the connection's values first, as Expand overlays them),
// "URL part url_path", or "secret REF" when nothing references it.
func (s *Source) RefPlace(conn, ref string) string {
	want := "${secret:" + ref + "}"
	type place struct {
		words string
		m     map[string]string
	}
	places := []place{}
	if c := s.Connections[conn]; c != nil {
		places = append(places, place{"environment variable", c.Env}, place{"header", c.Headers}, place{"query parameter", c.Query}, place{"cookie", c.Cookies})
	}
	places = append(places, place{"environment variable", s.Env}, place{"header", s.Headers})
	for _, p := range places {
		for _, k := range sortedKeys(p.m) {
			if strings.Contains(p.m[k], want) {
				return p.words + " " + k
			}
		}
	}
	if strings.Contains(s.URL, want) || strings.Contains(s.BaseURL, want) {
		return "URL part " + ref
	}
	return "secret " + ref
}

// SecretProblem says why source name (s), being added, may not keep a
// value that looks like a secret (one of its command's arguments,
// SecretInConfig's, a key in its document's URL, a segment of its URL's
// path), and how a connection takes it instead; "" when it keeps none.
func (s *Source) SecretProblem(name string) string {
	if problem := s.ArgSecretProblem(name); problem != "" {
		return problem
	}
	if field, k := s.SecretInConfig(); field != "" {
		return fmt.Sprintf("%s %s looks like a secret; secrets never go into config.json: add the source without it, then store it with 'capabilities connection add %s default --%s %s'", field, k, name, field, k)
	}
	if found, _ := URLQuerySecrets(s.OpenAPI); len(found) > 0 {
		return fmt.Sprintf("the document's URL has %s in its query, which looks like a secret; secrets never go into config.json, and the hub fetches the document with no credential: save it and give its file", sortedKeys(found)[0])
	}
	key, found, template := "URL", map[string]string(nil), ""
	for _, u := range []struct{ key, raw string }{{"URL", s.URL}, {"base URL", s.BaseURL}} {
		if found, template = URLPathSecrets(u.raw); len(found) > 0 {
			key = u.key
			break
		}
	}
	if len(found) == 0 {
		return ""
	}
	store := fmt.Sprintf("'capabilities connection add %s default'", name)
	if len(found) > 1 {
		store = fmt.Sprintf("'capabilities connection add %s default --secret REF' for each of %s", name, strings.Join(sortedKeys(found), ", "))
	}
	return fmt.Sprintf("the %s's path holds what looks like a secret; secrets never go into config.json: add the source with the %s %s, then store it with %s", key, key, template, store)
}

// SecretInConfig names a value of the source's env or headers, or a
// parameter of its URL's or API's query, that looks like a secret (by its name or
// its shape), which belongs in a connection, in the keychain, and never in
// config.json: field is "env", "header" or "query" and key its name, in
// that order; "" when none does.
func (s *Source) SecretInConfig() (field, key string) {
	for k, v := range s.Env {
		if secrets.LooksSecretName(k) || secrets.LooksLikeToken(v) {
			return "env", k
		}
	}
	for k, v := range s.Headers {
		if secrets.LooksSecretName(k) || secrets.LooksLikeToken(v) {
			return "header", k
		}
	}
	for _, raw := range []string{s.URL, s.BaseURL} {
		if found, _ := URLQuerySecrets(raw); len(found) > 0 {
			return "query", sortedKeys(found)[0]
		}
	}
	return "", ""
}

// DeleteSecrets deletes from kc the secrets of every connection of the
// source, named name, and returns the deletions that failed; a secret
// that was never stored is not a failure.
func (s *Source) DeleteSecrets(kc keychain.Keychain, name string) []error {
	var errs []error
	for _, conn := range s.ConnectionNames() {
		for _, ref := range s.SecretRefs(conn) {
			if err := kc.Delete(SecretKey(name, conn, ref)); err != nil && !errors.Is(err, keychain.ErrNotFound) {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// SecretRefs returns the secret names connection conn needs, sorted.
func (s *Source) SecretRefs(conn string) []string {
	seen := map[string]bool{}
	scan := func(m map[string]string) {
		for _, v := range m {
			for _, sm := range secretRefRE.FindAllStringSubmatch(v, -1) {
				seen[sm[1]] = true
			}
		}
	}
	scan(s.Env)
	scan(s.Headers)
	scan(map[string]string{"url": s.URL, "baseUrl": s.BaseURL})
	if c := s.Connections[conn]; c != nil {
		scan(c.Env)
		scan(c.Headers)
		scan(c.Query)
		scan(c.Cookies)
	}
	return sortedKeys(seen)
}

// SecretKey is the keychain key of one secret of a source's connection.
func SecretKey(source, conn, name string) string {
	return "source/" + source + "/" + conn + "/" + name
}

// Expanded is what a connection of a source sends, its secrets filled in.
type Expanded struct {
	Env, Headers, Query map[string]string
	// URL is the source's URL with the secrets it references, escaped
	// for where they stand (path or query).
	URL string
}

// Expand returns what connection conn of s sends (source values
// overlaid by the connection's; only a connection has query parameters),
// with ${secret:NAME} replaced by lookup(NAME). A missing secret is
// reported by name, never by value.
func (s *Source) Expand(conn string, lookup func(name string) (string, error)) (Expanded, error) {
	merge := func(base, over map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range over {
			out[k] = v
		}
		return out
	}
	var cenv, chead, cquery map[string]string
	if c := s.Connections[conn]; c != nil {
		cenv, chead, cquery = c.Env, c.Headers, c.Query
	}
	x := Expanded{Env: merge(s.Env, cenv), Headers: merge(s.Headers, chead), Query: merge(nil, cquery)}
	var firstErr error
	value := func(name string) string {
		val, err := lookup(name)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("secret %q of connection %q: %w", name, conn, err)
		}
		return val
	}
	for _, m := range []map[string]string{x.Env, x.Headers, x.Query} {
		for k, v := range m {
			m[k] = ReplaceSecretRefs(v, value)
		}
	}
	x.URL = FillURL(s.URL, value)
	if firstErr != nil {
		return Expanded{}, firstErr
	}
	return x, nil
}

// urlRefProblem says why s's URL may not hold the secrets it references,
// or "": a reference stands in its path or query, never in its scheme,
// host or fragment, so a secret cannot choose where it is sent; and such
// a source does not sign in with OAuth, whose authorization server would
// be told the URL.
func urlRefProblem(s *Source) string {
	if problem := refPlaceProblem(s.URL); problem != "" || !strings.Contains(s.URL, "${secret") {
		return problem
	}
	for _, name := range sortedKeys(s.Connections) {
		if s.Connections[name].OAuth != nil {
			return fmt.Sprintf("a URL that holds a secret does not sign in with OAuth (connection %s): the authorization server would be told the URL", name)
		}
	}
	return ""
}

// refPlaceProblem says why the URL raw may not hold the secret references
// it holds, or "": they stand in its path or query, not in its scheme,
// host or fragment.
func refPlaceProblem(raw string) string {
	if !strings.Contains(raw, "${secret") {
		return ""
	}
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(rest, "/?"); i < 0 || strings.Contains(rest[:i], "${secret") || strings.Contains(rest, "#") {
		return "a secret may stand in the URL's path or query, not in its host or fragment"
	}
	return ""
}

// FillURL is the URL raw with each ${secret:NAME} replaced by value(NAME),
// escaped for where it stands: in the path as a path segment's text, in
// the query as a parameter's.
func FillURL(raw string, value func(name string) string) string {
	path, query, hasQuery := strings.Cut(raw, "?")
	out := ReplaceSecretRefs(path, func(name string) string { return url.PathEscape(value(name)) })
	if hasQuery {
		out += "?" + ReplaceSecretRefs(query, func(name string) string { return url.QueryEscape(value(name)) })
	}
	return out
}

// MarshalJSON writes the config with the canonical "sources" key, keeping
// keys this version does not know.
func (c *Config) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range c.extra {
		out[k] = v
	}
	if len(c.Sources)+len(c.refused) > 0 {
		srcs := make(map[string]any, len(c.Sources)+len(c.refused))
		for k, v := range c.refused {
			srcs[k] = v
		}
		for k, v := range c.Sources {
			srcs[k] = v
		}
		out["sources"] = srcs
	}
	if len(c.Policy) > 0 {
		out["policy"] = c.Policy
	}
	if !c.Retention.IsZero() {
		out["retention"] = c.Retention
	}
	if c.Catalog != (CatalogLimits{}) {
		out["catalog"] = c.Catalog
	}
	if c.Skills.raw != nil {
		out["skills"] = c.Skills.raw
	}
	if len(c.Profiles) > 0 {
		out["profiles"] = c.Profiles
	}
	return json.Marshal(out)
}

// MarshalJSON keeps unknown keys of a source.
func (s *Source) MarshalJSON() ([]byte, error) {
	type plain Source
	return withExtra((*plain)(s), s.extra)
}

// MarshalJSON keeps unknown keys of a connection.
func (c *Connection) MarshalJSON() ([]byte, error) {
	type plain Connection
	return withExtra((*plain)(c), c.extra)
}

func withExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, known := m[k]; !known {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// Save writes the config to path atomically (0600), indented. A Config
// read from path (Load) is written only while the file is as it was read:
// otherwise Save fails with ErrChanged and writes nothing, so an edit made
// meanwhile by the hub or another command is not lost.
func (c *Config) Save(path string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encoding config: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return fmt.Errorf("encoding config: %w", err)
	}
	buf.WriteByte('\n')
	saveMu.Lock()
	defer saveMu.Unlock()
	if c.base != nil && c.base.path == path {
		cur, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if !c.base.missing {
				return changedError(path + " was removed since it was read: nothing was written; run the command again")
			}
		case err != nil:
			return fmt.Errorf("reading config: %w", err)
		case c.base.missing || sha256.Sum256(cur) != c.base.sum:
			return changedError(path + " changed since it was read (the hub or another command wrote it meanwhile): nothing was written; run the command again")
		}
	}
	if err := WriteFileAtomic(path, buf.Bytes(), 0o600); err != nil {
		return err
	}
	c.base = &fileBase{path: path, sum: sha256.Sum256(buf.Bytes())}
	return nil
}

// WriteFileAtomic writes data to path with mode perm so that a reader sees
// the old file or the new one whole, never a part: it writes a temporary
// file beside path, syncs it and renames it into place, creating the
// folder (0700) first. A path that is a symbolic link (a config kept with
// a person's dotfiles) is written where it links to, so the link stays.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// JSONProblem turns a JSON syntax error into "line L, column C: message".
func JSONProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, b := range data[:min(int(se.Offset), len(data))] {
			if b == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d, column %d: %v%s", line, col, err, jsonSlip(data, int(se.Offset), se.Error()))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the top level must be an object"
	}
	return err.Error()
}

// jsonSlip names the usual slip of hand-edited JSON behind a syntax error
// found after reading offset bytes of data: a comma left before a closing
// bracket, or one missing between two members or items; "" otherwise.
func jsonSlip(data []byte, offset int, msg string) string {
	if offset < 1 || offset > len(data) {
		return ""
	}
	at := data[offset-1]
	before := bytes.TrimRight(data[:offset-1], " \t\r\n")
	switch {
	case (at == '}' || at == ']') && len(before) > 0 && before[len(before)-1] == ',':
		return fmt.Sprintf(" (the comma before this %q has nothing after it: remove it)", at)
	case strings.Contains(msg, "after object key:value pair") || strings.Contains(msg, "after array element"):
		return " (a comma is missing before it)"
	}
	return ""
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
