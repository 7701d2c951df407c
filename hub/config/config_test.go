package config

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/keychain"
	"github.com/google/go-cmp/cmp"
)

func TestConfigRoundTrip(t *testing.T) {
	in := `{
  "sources": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"LOG_LEVEL": "debug"},
      "cwd": "/tmp",
      "futureKey": {"kept": true},
      "connections": {
        "personal": {"default": true, "env": {"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}},
        "work": {"env": {"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}, "note": "kept too"}
      }
    },
    "docs": {"url": "https://mcp.example.com/mcp", "headers": {"X-Team": "core"}}
  },
  "policy": {"github.createIssue": "ask", "github.list*": "allow", "docs": "deny"},
  "theme": "dark"
}`
	path := filepath.Join(t.TempDir(), "config.json")
	c, err := Parse(path, []byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := c.Sources["github"].DefaultConnection(); got != "personal" {
		t.Errorf("DefaultConnection = %q", got)
	}
	if got := c.Sources["github"].ConnectionNames(); !cmp.Equal(got, []string{"personal", "work"}) {
		t.Errorf("ConnectionNames = %v", got)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode = %v, want 0600", fi.Mode().Perm())
	}
	c2, err := Load(path)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	// Unknown keys are kept as raw JSON, so compare the encoded forms.
	before, _ := json.Marshal(c)
	after, _ := json.Marshal(c2)
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("round trip changed the config (-want +got):\n%s", diff)
	}
	raw, _ := os.ReadFile(path)
	for _, kept := range []string{`"futureKey"`, `"note": "kept too"`, `"theme": "dark"`} {
		if !strings.Contains(string(raw), kept) {
			t.Errorf("saved file lost unknown key %s:\n%s", kept, raw)
		}
	}
}

func TestClientConfigIsReadAsSources(t *testing.T) {
	c, err := Parse("claude_desktop_config.json", []byte(`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}, "globalShortcut": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sources["memory"] == nil || c.Sources["memory"].Command != "npx" {
		t.Fatalf("sources = %+v", c.Sources)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // each "key: problem fragment"
	}{
		{"not json", `{"sources": `, []string{"not valid JSON: line 1, column 13"}},
		{"trailing comma", "{\"sources\": {\"a\": {\"command\": \"x\"},\n}}", []string{`not valid JSON: line 2, column 2: invalid character '}' looking for beginning of object key string (the comma before this '}' has nothing after it: remove it)`}},
		{"trailing comma in array", `{"sources": {"a": {"command": "x", "args": ["y",]}}}`, []string{`(the comma before this ']' has nothing after it: remove it)`}},
		{"missing comma", "{\"sources\": {\"a\": {\"command\": \"x\"}\n\"b\": {}}}", []string{`not valid JSON: line 2, column 2: invalid character '"' after object key:value pair (a comma is missing before it)`}},
		{"top not object", `[1]`, []string{"the top level must be an object"}},
		{"sources not object", `{"sources": []}`, []string{"sources: must be an object"}},
		{"no transport", `{"sources": {"a": {}}}`, []string{`sources.a: needs "command" (stdio) or "url"`}},
		{"both transports", `{"sources": {"a": {"command": "x", "url": "http://h"}}}`, []string{"sources.a: has both"}},
		{"args type", `{"sources": {"a": {"command": "x", "args": "y"}}}`, []string{"sources.a.args: must be an array of strings"}},
		{"env type", `{"sources": {"a": {"command": "x", "env": {"A": 1}}}}`, []string{"sources.a.env: must be an object of string values"}},
		{"command type", `{"sources": {"a": {"command": 3}}}`, []string{"sources.a.command: must be a string"}},
		{"sse", `{"sources": {"a": {"url": "http://h/sse", "type": "sse"}}}`, []string{"sources.a.type: \"sse\" is the retired"}},
		{"unknown type", `{"sources": {"a": {"command": "x", "type": "pipe"}}}`, []string{`sources.a.type: unknown transport "pipe"`}},
		{"bad url", `{"sources": {"a": {"url": "ftp://h"}}}`, []string{"sources.a.url: must be an http:// or https:// URL"}},
		{"headers on stdio", `{"sources": {"a": {"command": "x", "headers": {"A": "b"}}}}`, []string{"sources.a.headers: headers belong to HTTP sources"}},
		{"args on http", `{"sources": {"a": {"url": "http://h", "args": ["x"]}}}`, []string{`sources.a: "args" and "cwd" belong to stdio`}},
		{"env name", `{"sources": {"a": {"command": "x", "env": {"A-B": "1"}}}}`, []string{"sources.a.env.A-B: not a valid environment variable name"}},
		{"two defaults", `{"sources": {"a": {"command": "x", "connections": {"p": {"default": true}, "q": {"default": true}}}}}`, []string{"sources.a.connections: 2 connections are marked default"}},
		{"no default", `{"sources": {"a": {"command": "x", "connections": {"p": {}, "q": {}}}}}`, []string{"sources.a.connections: several connections and none marked default"}},
		{"default type", `{"sources": {"a": {"command": "x", "connections": {"p": {"default": "yes"}}}}}`, []string{"sources.a.connections.p.default: must be true or false"}},
		{"conn name", `{"sources": {"a": {"command": "x", "connections": {"a b": {}}}}}`, []string{"sources.a.connections.a b: connection name must"}},
		{"malformed ref", `{"sources": {"a": {"command": "x", "connections": {"p": {"env": {"T": "${secret}"}}}}}}`, []string{"sources.a.connections.p.env.T: malformed secret reference"}},
		{"ref without connection", `{"sources": {"a": {"command": "x", "env": {"T": "${secret:T}"}}}}`, []string{"sources.a.env.T: references a secret but the source has no connections"}},
		{"http conn env", `{"sources": {"a": {"url": "http://h", "connections": {"p": {"env": {"T": "x"}}}}}}`, []string{"sources.a.connections.p.env: env belongs to stdio"}},
		{"duplicate", `{"sources": {"a": {"command": "x"}}, "mcpServers": {"a": {"command": "y"}}}`, []string{`mcpServers.a: source "a" is defined under both`}},
		{"policy mode", `{"policy": {"github.createIssue": "maybe"}}`, []string{`policy.github.createIssue: mode "maybe": must be allow, ask or deny`}},
		{"policy key", `{"policy": {"a b": "allow"}}`, []string{"policy.a b: not an address"}},
		{"policy type", `{"policy": ["x"]}`, []string{"policy: must be an object"}},
		{"several problems", `{"sources": {"a": {}, "b": {"command": "x", "args": 1}}}`, []string{"sources.a: needs", "sources.b.args: must be"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/home/p/.config/capabilities/config.json", []byte(tc.in))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if !strings.HasPrefix(msg, "/home/p/.config/capabilities/config.json: ") {
				t.Errorf("error %q does not start with the file name", msg)
			}
			var ce *Error
			var ces Errors
			if !errors.As(err, &ce) && !errors.As(err, &ces) {
				t.Errorf("error %T is not an *Error", err)
			}
		})
	}
}

// A source whose name cannot be a namespace is refused alone: the rest
// of the file is served.
func TestConfigRefusesSourceNames(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"9lives", `sources.9lives: source name must start with a letter or _ and hold only letters, digits, _ and - (at most 64); rename it, for example to "source-9lives"`},
		{"console", `sources.console: source name "console" is the global console in code, and "console" would shadow the sandbox global console; rename it, for example to "console-mcp"`},
		{"eval", `sources.eval: source name "eval" is the global eval in code, and "eval" is a reserved word in JavaScript; rename it, for example to "eval-mcp"`},
		{"parse-int", `sources.parse-int: source name "parse-int" is the global parseInt in code`},
		{"is_nan", ""},
		{"my files", `rename it, for example to "my-files"`},
	} {
		in := `{"sources": {"ok": {"command": "x"}, "` + tc.name + `": {"command": "y"}}}`
		cfg, err := Parse("/home/p/config.json", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.want == "" {
			if len(cfg.Refused()) != 0 || cfg.Sources[tc.name] == nil {
				t.Errorf("%s: refused %v", tc.name, cfg.Refused())
			}
			continue
		}
		if cfg.Sources["ok"] == nil || cfg.Sources[tc.name] != nil {
			t.Errorf("%s: sources %v", tc.name, sortedKeys(cfg.Sources))
		}
		if msg := cfg.Refused().Error(); !strings.HasPrefix(msg, "/home/p/config.json: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: refused %q, want %q", tc.name, msg, tc.want)
		}
		b, _ := json.Marshal(cfg)
		if !strings.Contains(string(b), `"`+tc.name+`":{"command":"y"}`) {
			t.Errorf("%s: not kept on save: %s", tc.name, b)
		}
	}
}

func TestExpandSecrets(t *testing.T) {
	s := &Source{
		Command: "x",
		Env:     map[string]string{"BASE": "1", "TOKEN": "${secret:TOKEN}"},
		Connections: map[string]*Connection{
			"work": {Env: map[string]string{"TOKEN": "pre-${secret:TOKEN}", "EXTRA": "${secret:OTHER}"}},
		},
	}
	secrets := map[string]string{"TOKEN": "t0k", "OTHER": "o"}
	lookup := func(n string) (string, error) {
		v, ok := secrets[n]
		if !ok {
			return "", errors.New("missing")
		}
		return v, nil
	}
	x, err := s.Expand("work", lookup)
	if err != nil {
		t.Fatal(err)
	}
	env := x.Env
	want := map[string]string{"BASE": "1", "TOKEN": "pre-t0k", "EXTRA": "o"}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if got := s.SecretRefs("work"); !cmp.Equal(got, []string{"OTHER", "TOKEN"}) {
		t.Errorf("SecretRefs = %v", got)
	}
	delete(secrets, "OTHER")
	_, err = s.Expand("work", lookup)
	if err == nil || !strings.Contains(err.Error(), `secret "OTHER" of connection "work"`) {
		t.Fatalf("Expand with a missing secret = %v", err)
	}
}

func TestParseImportMovesSecrets(t *testing.T) {
	in := `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "LOG": "info"}},
		"api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer abc.def.ghi-123456789", "X-Org": "acme"}},
		"plain": {"command": "uvx", "args": ["mcp-server-time"]},
		"remote": {"command": "npx", "args": ["mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization:${AUTH}"], "env": {"AUTH": "9f8e7d6c5b4a3928170655"}},
		"db": {"command": "db-mcp", "env": {"DB_HOST": "localhost", "DB_PASS": "hunter2"}}
	}}`
	imp, err := ParseImport("claude_desktop_config.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	gh := imp.Sources["github"]
	if gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "" || gh.Env["LOG"] != "info" {
		t.Errorf("github env = %v; the token must leave, LOG must stay", gh.Env)
	}
	if got := gh.Connections["default"].Env["GITHUB_PERSONAL_ACCESS_TOKEN"]; got != "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}" {
		t.Errorf("github default connection env = %q", got)
	}
	if gh.DefaultConnection() != "default" {
		t.Errorf("imported connection is not default")
	}
	wantSecrets := map[string]string{
		"source/github/default/GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"source/api/default/Authorization":                   "Bearer abc.def.ghi-123456789",
		// Too short, or too plain, to look like a token: moved by the
		// variable's name.
		"source/remote/default/AUTH": "9f8e7d6c5b4a3928170655",
		"source/db/default/DB_PASS":  "hunter2",
	}
	if diff := cmp.Diff(wantSecrets, imp.Secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if imp.Sources["api"].Headers["X-Org"] != "acme" || imp.Sources["plain"].Connections != nil {
		t.Errorf("non-secret values moved: %+v %+v", imp.Sources["api"], imp.Sources["plain"])
	}
	c := &Config{Sources: imp.Sources, Policy: map[string]Mode{}}
	if err := c.Validate("x"); err != nil {
		t.Errorf("imported config does not validate: %v", err)
	}
}

// TestParseImportMovesURLPassword: a server URL with a password in it is
// imported without it, the password moving into the keychain as the Basic
// Authorization header an HTTP client sends for it; a URL with a user and
// no password stays; beside an Authorization header, which is sent over
// it, the password goes.
func TestParseImportMovesURLPassword(t *testing.T) {
	in := `{"mcpServers": {
		"docs": {"type": "http", "url": "https://alice:pw-123@mcp.example.com/mcp?x=1"},
		"user": {"type": "http", "url": "https://alice@mcp.example.com/mcp"},
		"both": {"type": "http", "url": "https://bob:pw@mcp.example.com/mcp", "headers": {"Authorization": "Bearer abc.def.ghi-123456789"}}
	}}`
	imp, err := ParseImport("claude_desktop_config.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	docs := imp.Sources["docs"]
	if docs.URL != "https://mcp.example.com/mcp?x=1" || docs.Connections["default"].Headers["Authorization"] != "${secret:Authorization}" || docs.DefaultConnection() != "default" {
		t.Errorf("docs: %+v %+v", docs, docs.Connections["default"])
	}
	if got, want := imp.Secrets["source/docs/default/Authorization"], "Basic YWxpY2U6cHctMTIz"; got != want {
		t.Errorf("docs' secret = %q, want %q (alice:pw-123)", got, want)
	}
	if !slices.Contains(imp.Moved, "docs.url.Authorization") {
		t.Errorf("moved = %v", imp.Moved)
	}
	if imp.Sources["user"].URL != "https://alice@mcp.example.com/mcp" || imp.Sources["user"].Connections != nil {
		t.Errorf("a URL with a user and no password: %+v", imp.Sources["user"])
	}
	if both := imp.Sources["both"]; both.URL != "https://mcp.example.com/mcp" || imp.Secrets["source/both/default/Authorization"] != "Bearer abc.def.ghi-123456789" {
		t.Errorf("a URL with a password beside an Authorization header: %+v %v", both, imp.Secrets)
	}
}

// TestParseImportMovesURLQuerySecrets: a key in an HTTP server's URL
// query moves into the keychain, and the connection sends it as the same
// query parameter; one in its path moves there too, and the URL names it.
func TestParseImportMovesURLQuerySecrets(t *testing.T) {
	in := `{"mcpServers": {
		"docs": {"type": "http", "url": "https://mcp.example.com/mcp?profile=work&api_key=k-123&x%5Btoken%5D=t-456"},
		"plain": {"type": "http", "url": "https://mcp.example.com/mcp?region=eu"},
		"zap": {"type": "http", "url": "https://mcp.zapier.com/api/mcp/s/NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U/mcp"}
	}}`
	imp, err := ParseImport("claude_desktop_config.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	zap := imp.Sources["zap"]
	if zap.URL != "https://mcp.zapier.com/api/mcp/s/${secret:url_path}/mcp" || zap.DefaultConnection() != "default" ||
		imp.Secrets["source/zap/default/url_path"] != "NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U" || !slices.Contains(imp.Moved, "zap.url.url_path") {
		t.Errorf("zap: %+v %v %v", zap, imp.Secrets, imp.Moved)
	}
	if err := (&Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}).AddSource("config.json", "zap", zap, false); err != nil {
		t.Errorf("zap does not validate: %v", err)
	}
	docs := imp.Sources["docs"]
	if docs.URL != "https://mcp.example.com/mcp?profile=work" || docs.DefaultConnection() != "default" {
		t.Errorf("docs: %+v", docs)
	}
	wantQuery := map[string]string{"api_key": "${secret:api_key}", "x[token]": "${secret:x_token_}"}
	if got := docs.Connections["default"].Query; !maps.Equal(got, wantQuery) {
		t.Errorf("docs' query = %v, want %v", got, wantQuery)
	}
	if imp.Secrets["source/docs/default/api_key"] != "k-123" || imp.Secrets["source/docs/default/x_token_"] != "t-456" {
		t.Errorf("secrets = %v", imp.Secrets)
	}
	if !slices.Equal(slices.DeleteFunc(slices.Clone(imp.Moved), func(m string) bool { return strings.HasPrefix(m, "zap.") }), []string{"docs.url.api_key", "docs.url.x[token]"}) {
		t.Errorf("moved = %v", imp.Moved)
	}
	if imp.Sources["plain"].URL != "https://mcp.example.com/mcp?region=eu" || imp.Sources["plain"].Connections != nil {
		t.Errorf("plain: %+v", imp.Sources["plain"])
	}
	// What was imported is a valid config, and the connection expands.
	c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
	if err := c.AddSource("config.json", "docs", docs, false); err != nil {
		t.Fatal(err)
	}
	x, err := docs.Expand("default", func(n string) (string, error) { return imp.Secrets["source/docs/default/"+n], nil })
	if err != nil || !maps.Equal(x.Query, map[string]string{"api_key": "k-123", "x[token]": "t-456"}) {
		t.Errorf("Expand: %v %v", x.Query, err)
	}
}

// TestConnectionQueryBelongsToHTTP: a connection's query parameters go
// with an HTTP or OpenAPI source, cookies with an OpenAPI source only.
func TestConnectionQueryBelongsToHTTP(t *testing.T) {
	conn := func(c *Connection) map[string]*Connection { return map[string]*Connection{"default": c} }
	for _, tc := range []struct {
		s    *Source
		want string // the key refused, or ""
	}{
		{&Source{URL: "https://mcp.example.com/mcp", Connections: conn(&Connection{Query: map[string]string{"api_key": "${secret:api_key}"}})}, ""},
		{&Source{OpenAPI: "/tmp/doc.json", Connections: conn(&Connection{Query: map[string]string{"k": "${secret:k}"}, Cookies: map[string]string{"c": "${secret:c}"}})}, ""},
		{&Source{URL: "https://mcp.example.com/mcp", Connections: conn(&Connection{Cookies: map[string]string{"c": "${secret:c}"}})}, "sources.x.connections.default.cookies"},
		{&Source{Command: "npx", Connections: conn(&Connection{Query: map[string]string{"k": "${secret:k}"}})}, "sources.x.connections.default.query"},
	} {
		c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
		err := c.AddSource("config.json", "x", tc.s, false)
		var errs Errors
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.want != "" && (!errors.As(err, &errs) || len(errs) != 1 || errs[0].Key != tc.want):
			t.Errorf("%+v: %v, want a refusal at %s", tc.s, err, tc.want)
		}
	}
}

// TestAddSourceRefusesURLPassword: a source being added may not keep a
// password in its URL, its API's base URL or its document's URL.
func TestAddSourceRefusesURLPassword(t *testing.T) {
	for _, tc := range []struct {
		s   *Source
		key string
	}{
		{&Source{URL: "https://alice:pw@mcp.example.com/mcp"}, "sources.x.url"},
		{&Source{OpenAPI: "/tmp/doc.json", BaseURL: "https://alice:pw@api.example.com"}, "sources.x.baseUrl"},
		{&Source{OpenAPI: "https://alice:pw@api.example.com/openapi.json"}, "sources.x.openapi"},
	} {
		c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
		err := c.AddSource("config.json", "x", tc.s, false)
		var errs Errors
		if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Key != tc.key || !strings.Contains(errs[0].Problem, "holds a password") || c.Sources["x"] != nil {
			t.Errorf("%+v: %v", tc.s, err)
		}
	}
	c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
	if err := c.AddSource("config.json", "x", &Source{URL: "https://alice@mcp.example.com/mcp"}, false); err != nil {
		t.Errorf("a URL with a user and no password: %v", err)
	}
}

func TestParseImportVSCodeShapes(t *testing.T) {
	for name, in := range map[string]string{
		"mcp.json":      `{"servers": {"mem": {"type": "stdio", "command": "npx", "args": ["m"]}}}`,
		"settings.json": `{"editor.fontSize": 12, "mcp": {"servers": {"mem": {"command": "npx"}}}}`,
	} {
		imp, err := ParseImport(name, []byte(in))
		if err != nil || imp.Sources["mem"] == nil {
			t.Errorf("%s: %v %+v", name, err, imp)
		}
	}
	if _, err := ParseImport("x.json", []byte(`{"other": 1}`)); err == nil || !strings.Contains(err.Error(), "no \"mcpServers\"") {
		t.Errorf("a file without servers: %v", err)
	}
}

func TestParseImportReadsJSONC(t *testing.T) {
	imp, err := ParseImport("mcp.json", []byte(`{
  // VS Code
  "servers": {
    "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],}, /* done */
  },
}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := imp.Sources["memory"]; s == nil || s.Command != "npx" || len(s.Args) != 2 {
		t.Fatalf("sources %+v", imp.Sources)
	}
	_, err = ParseImport("mcp.json", []byte("{\n  // c\n  \"servers\": {,}\n}"))
	if err == nil || !strings.Contains(err.Error(), "mcp.json: not valid JSON: line 3") {
		t.Fatalf("a broken JSONC file: %v", err)
	}
}

func TestPutConnectionKeepsTheDefault(t *testing.T) {
	conns := func(defs ...string) map[string]*Connection {
		m := map[string]*Connection{}
		for _, d := range defs {
			name := strings.TrimSuffix(d, "*") // "personal*" is marked default
			m[name] = &Connection{Default: name != d}
		}
		return m
	}
	tests := []struct {
		name        string
		before      map[string]*Connection
		put         string
		makeDefault bool
		want        string // the connection marked default afterwards
	}{
		{"first connection", nil, "work", false, "work"},
		{"second after an explicit default", conns("personal*"), "work", false, "personal"},
		{"second after an implied default", conns("personal"), "work", false, "personal"},
		{"third, sorting first", conns("personal*", "work"), "ci", false, "personal"},
		{"second with --default", conns("personal*"), "work", true, "work"},
		{"replacing the default", conns("personal*", "work"), "personal", false, "personal"},
		{"replacing another", conns("personal*", "work"), "work", false, "personal"},
		{"replacing another with --default", conns("personal*", "work"), "work", true, "work"},
		{"replacing the only one", conns("personal"), "personal", false, "personal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Source{Command: "npx", Connections: tt.before}
			got := s.PutConnection(tt.put, &Connection{}, tt.makeDefault)
			var marked []string
			for _, n := range sortedKeys(s.Connections) {
				if s.Connections[n].Default {
					marked = append(marked, n)
				}
			}
			if got != tt.want || len(marked) != 1 || marked[0] != tt.want || s.DefaultConnection() != tt.want {
				t.Errorf("PutConnection(%s, default %v) = %q, marked %v; want %q marked alone", tt.put, tt.makeDefault, got, marked, tt.want)
			}
			if s.Connections[tt.put] == nil {
				t.Errorf("connection %s not added", tt.put)
			}
			cfg := &Config{Sources: map[string]*Source{"github": s}}
			if err := cfg.Validate("config.json"); err != nil {
				t.Errorf("the result does not validate: %v", err)
			}
		})
	}
}

// A value of env or headers, or a URL's query parameter, that looks like a
// secret, by its name or its shape, is named with its field, env first;
// plain values are not.
func TestSecretInConfig(t *testing.T) {
	for _, tc := range []struct {
		s          Source
		field, key string
	}{
		{Source{Env: map[string]string{"LOG_LEVEL": "debug"}, Headers: map[string]string{"Accept": "application/json"}}, "", ""},
		{Source{Env: map[string]string{"GITHUB_TOKEN": "x"}}, "env", "GITHUB_TOKEN"},
		{Source{Headers: map[string]string{"X-Thing": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}}, "header", "X-Thing"},
		{Source{Env: map[string]string{"API_KEY": "x"}, Headers: map[string]string{"Authorization": "Bearer x"}}, "env", "API_KEY"},
		{Source{URL: "https://mcp.example.com/mcp?region=eu&token=t&api_key=k"}, "query", "api_key"},
		{Source{URL: "https://mcp.example.com/mcp?region=eu"}, "", ""},
	} {
		if field, key := tc.s.SecretInConfig(); field != tc.field || key != tc.key {
			t.Errorf("SecretInConfig(%+v) = %q %q, want %q %q", tc.s, field, key, tc.field, tc.key)
		}
	}
}

// SecretProblem says how a connection takes what looks like a secret,
// wherever the source being added keeps it.
func TestSecretProblem(t *testing.T) {
	const key = "NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U"
	for _, tc := range []struct {
		s    Source
		want string
	}{
		{Source{URL: "https://mcp.example.com/mcp"}, ""},
		{Source{URL: "https://mcp.example.com/mcp?api_key=k"}, "query api_key looks like a secret; secrets never go into config.json: add the source without it, then store it with 'capabilities connection add zap default --query api_key'"},
		{Source{URL: "https://mcp.zapier.com/api/mcp/s/" + key + "/mcp"}, "the URL's path holds what looks like a secret; secrets never go into config.json: add the source with the URL https://mcp.zapier.com/api/mcp/s/${secret:url_path}/mcp, then store it with 'capabilities connection add zap default'"},
		{Source{URL: "https://h.example.com/" + key + "/" + key + "x"}, "then store it with 'capabilities connection add zap default --secret REF' for each of url_path, url_path_2"},
		{Source{OpenAPI: "/tmp/api.json", BaseURL: "https://api.example.com/v1?api_key=k"}, "query api_key looks like a secret; secrets never go into config.json: add the source without it, then store it with 'capabilities connection add zap default --query api_key'"},
		{Source{OpenAPI: "/tmp/api.json", BaseURL: "https://api.example.com/" + key}, "the base URL's path holds what looks like a secret; secrets never go into config.json: add the source with the base URL https://api.example.com/${secret:url_path}, then store it with 'capabilities connection add zap default'"},
		{Source{OpenAPI: "https://api.example.com/openapi.json?token=k"}, "the document's URL has token in its query, which looks like a secret; secrets never go into config.json, and the hub fetches the document with no credential: save it and give its file"},
	} {
		if got := tc.s.SecretProblem("zap"); tc.want == "" && got != "" || !strings.Contains(got, tc.want) || strings.Contains(got, key) {
			t.Errorf("SecretProblem(%s) = %q, want %q", tc.s.URL, got, tc.want)
		}
	}
}

// deleteLog is a keychain that records deletions; a key in fail fails.
type deleteLog struct {
	deleted []string
	fail    map[string]error
}

func (k *deleteLog) Get(string) (string, error) { return "", keychain.ErrNotFound }
func (k *deleteLog) Set(string, string) error   { return nil }
func (k *deleteLog) Delete(key string) error {
	k.deleted = append(k.deleted, key)
	return k.fail[key]
}

// A source's secrets go with it, every connection's; one never stored is
// not a failure, one the keychain fails to delete is.
func TestDeleteSecrets(t *testing.T) {
	s := &Source{Headers: map[string]string{"Authorization": "Bearer ${secret:TOKEN}"}, Connections: map[string]*Connection{
		"work": {Env: map[string]string{"ORG": "${secret:ORG_ID}"}},
		"home": {},
	}}
	broken := errors.New("keychain locked")
	kc := &deleteLog{fail: map[string]error{
		SecretKey("gh", "home", "TOKEN"):  keychain.ErrNotFound,
		SecretKey("gh", "work", "ORG_ID"): broken,
	}}
	errs := s.DeleteSecrets(kc, "gh")
	want := []string{SecretKey("gh", "home", "TOKEN"), SecretKey("gh", "work", "ORG_ID"), SecretKey("gh", "work", "TOKEN")}
	slices.Sort(kc.deleted)
	if !slices.Equal(kc.deleted, want) {
		t.Errorf("deleted %q, want %q", kc.deleted, want)
	}
	if len(errs) != 1 || !errors.Is(errs[0], broken) {
		t.Errorf("failures %v, want only the locked keychain's", errs)
	}
}

// TestAddSourceRefusesWhatIsNoProgram: a URL or an API's document given
// as a stdio source's command is refused when the source is added, with
// the flag that adds it, while a config.json that has one still loads.
func TestAddSourceRefusesWhatIsNoProgram(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	for _, tc := range []struct{ command, want string }{
		{"https://mcp.example.com/mcp", "is a URL, not a program to run"},
		{"HTTP://127.0.0.1:8080/mcp", "--url URL"},
		{"/home/me/petstore.json", "--openapi FILE"},
		{"./api.YAML", "names a document"},
		{"openapi.yml", "names a document"},
	} {
		cfg := &Config{Sources: map[string]*Source{}}
		err := cfg.AddSource(file, "api", &Source{Command: tc.command}, false)
		if err == nil || !strings.Contains(err.Error(), "sources.api.command") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("command %q: %v, want %q", tc.command, err, tc.want)
		}
		if len(cfg.Sources) != 0 {
			t.Errorf("command %q was added", tc.command)
		}
	}
	cfg := &Config{Sources: map[string]*Source{}}
	if err := cfg.AddSource(file, "ok", &Source{Command: "npx", Args: []string{"-y", "server.json"}}, false); err != nil {
		t.Errorf("a program whose argument is a document: %v", err)
	}
	data := []byte(`{"sources":{"api":{"command":"/home/me/petstore.json"}}}`)
	if _, err := Parse(file, data); err != nil {
		t.Errorf("a config.json written with such a command no longer loads: %v", err)
	}
}

// TestFindCommand: a stdio source's program is looked for as the hub
// starts it, and what is wrong with it is said.
func TestFindCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("execute permission is a Unix file mode")
	}
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("server", 0o755)
	write("script.js", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, tc := range []struct {
		s    Source
		want string // "" when found
	}{
		{Source{Command: "server"}, ""},
		{Source{Command: filepath.Join(dir, "server")}, ""},
		{Source{Command: "./server", Cwd: dir}, ""},
		{Source{URL: "http://127.0.0.1/mcp"}, ""},
		{Source{Command: "no-such-server"}, `"no-such-server": no such program on PATH`},
		{Source{Command: "./gone", Cwd: dir}, "no such program at " + filepath.Join(dir, "gone")},
		{Source{Command: filepath.Join(dir, "lib")}, "is a folder, not a program"},
		{Source{Command: filepath.Join(dir, "script.js")}, "has no execute permission"},
		{Source{Command: "~/bin/server"}, "~ is not expanded"},
	} {
		err := tc.s.FindCommand()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.s, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	if err := (&Source{Command: "no-such-server"}).FindCommand(); !errors.Is(err, ErrCommandNotFound) {
		t.Errorf("a missing program is not ErrCommandNotFound: %v", err)
	}
}

// TestSkillFolders: folders of skills are added as written and removed by
// the folder they name, and what config.json would refuse is refused.
func TestSkillFolders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	cfg, err := Parse(file, []byte(`{"skills": {"paths": ["~/.claude/skills"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.AddSkillFolder(file, "/srv/team-skills"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.AddSkillFolder(file, "relative/skills"); err == nil || !strings.Contains(err.Error(), `"relative/skills" is relative`) {
		t.Errorf("a relative folder: %v", err)
	}
	if err := cfg.AddSkillFolder(file, "/srv/team-skills/"); err == nil || !strings.Contains(err.Error(), "/srv/team-skills is listed already") {
		t.Errorf("a folder listed twice: %v", err)
	}
	want := []string{filepath.Join(home, ".claude", "skills"), "/srv/team-skills"}
	if !slices.Equal(cfg.Skills.Paths, want) {
		t.Fatalf("paths %v, want %v", cfg.Skills.Paths, want)
	}
	if err := cfg.RemoveSkillFolder(file, filepath.Join(home, ".claude", "skills")); err != nil {
		t.Fatal(err)
	}
	if err := cfg.RemoveSkillFolder(file, "/elsewhere"); err == nil || !strings.Contains(err.Error(), "/elsewhere is not listed") {
		t.Errorf("removing a folder not listed: %v", err)
	}
	if err := cfg.Save(file); err != nil {
		t.Fatal(err)
	}
	again, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Skills.Paths, []string{"/srv/team-skills"}) {
		t.Errorf("after a save and a load: %v", again.Skills.Paths)
	}
}

// Two edits of one config.json: the second to save, read before the first
// saved, is refused with ErrChanged and writes nothing; read again, it
// saves. A config made in memory writes over the file as before.
func TestSaveRefusesAFileChangedSinceRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	first, err := Load(path) // no file yet
	if err != nil {
		t.Fatal(err)
	}
	second, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	first.Policy["a.x"] = Allow
	if err := first.Save(path); err != nil {
		t.Fatal(err)
	}
	first.Policy["a.y"] = Deny // the same Config saves again
	if err := first.Save(path); err != nil {
		t.Fatal(err)
	}
	second.Policy["b.z"] = Ask
	err = second.Save(path)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), path+" changed since it was read") {
		t.Fatalf("saving over an edit made meanwhile: %v", err)
	}
	if got, _ := Load(path); got.Policy["a.x"] != Allow || got.Policy["a.y"] != Deny || len(got.Policy) != 2 {
		t.Fatalf("the file after the refused save: %v", got.Policy)
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	again.Policy["b.z"] = Ask
	if err := again.Save(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(path); len(got.Policy) != 3 {
		t.Fatalf("the file after the second edit was made again: %v", got.Policy)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := again.Save(path); !errors.Is(err, ErrChanged) {
		t.Fatalf("saving over a file removed meanwhile: %v", err)
	}
	fresh := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{"c.w": Allow}}
	if err := fresh.Save(path); err != nil {
		t.Fatalf("a config made in memory: %v", err)
	}
}

// TestURLQuerySecrets: the query parameters of a URL that look like
// secrets, by name or by value, and no others; the URL without them keeps
// the rest of its query as written.
func TestURLQuerySecrets(t *testing.T) {
	for _, tc := range []struct {
		raw, clean string
		want       map[string]string
	}{
		{"https://mcp.example.com/mcp?api_key=abc&region=eu", "https://mcp.example.com/mcp?region=eu", map[string]string{"api_key": "abc"}},
		{"https://mcp.example.com/mcp?k=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "https://mcp.example.com/mcp", map[string]string{"k": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{"https://mcp.example.com/mcp?z=1&token=a%2Bb&access_token=b&a=%20", "https://mcp.example.com/mcp?z=1&a=%20", map[string]string{"access_token": "b", "token": "a+b"}},
		{"https://mcp.example.com/mcp?token=a&token=b", "https://mcp.example.com/mcp", map[string]string{"token": "a"}},
		{"https://mcp.example.com/mcp?region=eu&page=2", "https://mcp.example.com/mcp?region=eu&page=2", nil},
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", nil},
		{"::not a url", "::not a url", nil},
	} {
		found, clean := URLQuerySecrets(tc.raw)
		if !maps.Equal(found, tc.want) || clean != tc.clean {
			t.Errorf("URLQuerySecrets(%q) = %q, %q; want %q, %q", tc.raw, found, clean, tc.want, tc.clean)
		}
	}
}

// TestURLPathSecrets: the segments of a URL's path that look like secrets
// become references, the rest of the URL as written.
func TestURLPathSecrets(t *testing.T) {
	const key = "NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2UtMWYyYTNiNGM1ZDZl"
	for _, tc := range []struct {
		raw, template string
		want          map[string]string
	}{
		{"https://mcp.zapier.com/api/mcp/s/" + key + "/mcp", "https://mcp.zapier.com/api/mcp/s/${secret:url_path}/mcp", map[string]string{"url_path": key}},
		{"https://h.example.com/a/" + key + "/b/" + key + "x/mcp?region=eu", "https://h.example.com/a/${secret:url_path}/b/${secret:url_path_2}/mcp?region=eu", map[string]string{"url_path": key, "url_path_2": key + "x"}},
		{"https://h.example.com/k%2Bv/sk-abcdefghijklmnop12345678", "https://h.example.com/k%2Bv/${secret:url_path}", map[string]string{"url_path": "sk-abcdefghijklmnop12345678"}},
		{"https://h.example.com/repos/octo-org/hello-world/mcp", "https://h.example.com/repos/octo-org/hello-world/mcp", nil},
		{"https://h.example.com/s/${secret:url_path}/mcp", "https://h.example.com/s/${secret:url_path}/mcp", nil},
		{"::not a url", "::not a url", nil},
	} {
		found, template := URLPathSecrets(tc.raw)
		if !maps.Equal(found, tc.want) || template != tc.template {
			t.Errorf("URLPathSecrets(%q) = %q, %q; want %q, %q", tc.raw, found, template, tc.want, tc.template)
		}
	}
}

// TestURLSecretRefs: a secret in a source's URL stands in its path or
// query, each connection fills it in, escaped for where it stands, and
// it never names the host, the fragment or a URL an OAuth sign-in is told.
func TestURLSecretRefs(t *testing.T) {
	const file = "config.json"
	add := func(s *Source) error {
		c := &Config{Sources: map[string]*Source{}, Policy: map[string]Mode{}}
		return c.AddSource(file, "x", s, false)
	}
	s := &Source{URL: "https://mcp.example.com/s/${secret:url_path}/mcp?k=${secret:k}"}
	if err := add(s); err != nil {
		t.Fatal(err)
	}
	if s.DefaultConnection() != "default" || !slices.Equal(s.SecretRefs("default"), []string{"k", "url_path"}) {
		t.Errorf("the source added has connections %v and refs %v; want the default to fill both", s.Connections, s.SecretRefs("default"))
	}
	if got := s.RefPlace("default", "url_path"); got != "URL part url_path" {
		t.Errorf("RefPlace = %q", got)
	}
	vals := map[string]string{"url_path": "a/b c+d", "k": "e&f=g h"}
	x, err := s.Expand("default", func(n string) (string, error) { return vals[n], nil })
	if want := "https://mcp.example.com/s/a%2Fb%20c+d/mcp?k=e%26f%3Dg+h"; err != nil || x.URL != want {
		t.Errorf("Expand's URL = %q, %v; want %q", x.URL, err, want)
	}
	if _, err := s.Expand("default", func(n string) (string, error) { return "", errors.New("not stored") }); err == nil || !strings.Contains(err.Error(), `secret "url_path" of connection "default"`) {
		t.Errorf("a missing secret: %v", err)
	}
	for _, tc := range []struct {
		s    *Source
		want string
	}{
		{&Source{URL: "https://${secret:host}.example.com/mcp"}, "not in its host"},
		{&Source{URL: "https://mcp.example.com${secret:p}"}, "not in its host"},
		{&Source{URL: "https://mcp.example.com/mcp#${secret:f}"}, "not in its host or fragment"},
		{&Source{URL: "https://mcp.example.com/s/${secret:k}/mcp", Connections: map[string]*Connection{"me": {OAuth: &OAuthConfig{}}}}, "does not sign in with OAuth (connection me)"},
		{&Source{URL: "https://mcp.example.com/s/${secret:k/mcp"}, "malformed secret reference"},
	} {
		var errs Errors
		if err := add(tc.s); !errors.As(err, &errs) || errs[0].Key != "sources.x.url" || !strings.Contains(errs[0].Problem, tc.want) {
			t.Errorf("%s: %v, want %q at sources.x.url", tc.s.URL, err, tc.want)
		}
	}
	// An API's base URL, the same way.
	api := &Source{OpenAPI: "/tmp/api.json", BaseURL: "https://api.example.com/bot${secret:token}"}
	if err := add(api); err != nil || api.DefaultConnection() != "default" || api.RefPlace("default", "token") != "URL part token" {
		t.Errorf("an API whose base URL references a secret: %v, %+v", err, api)
	}
	var errs Errors
	if err := add(&Source{OpenAPI: "/tmp/api.json", BaseURL: "https://${secret:h}.example.com/v1"}); !errors.As(err, &errs) || errs[0].Key != "sources.x.baseUrl" || !strings.Contains(errs[0].Problem, "not in its host") {
		t.Errorf("a reference in the base URL's host: %v", err)
	}
	// A config.json written by hand with no connection gets the one that
	// holds the secret.
	cfg, err := Parse(file, []byte(`{"sources": {"x": {"url": "https://mcp.example.com/s/${secret:k}/mcp"}}}`))
	if err != nil || cfg.Sources["x"].DefaultConnection() != "default" || !slices.Equal(cfg.Sources["x"].SecretRefs("default"), []string{"k"}) {
		t.Errorf("a hand-written URL reference without a connection: %v", err)
	}
}

// A config.json that is a symbolic link (kept with a person's dotfiles) is
// saved where it links to: the link stays a link, its target holds the
// edit, and no file is left beside either.
func TestSaveKeepsASymlinkedConfig(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dotfiles, home := t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "capabilities.json")
	if err := os.WriteFile(target, []byte(`{"policy": {"a.x": "allow"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "config.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policy["a.y"] = Deny
	if err := cfg.Save(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("config.json after the save: %v, %v; want the link as it was", fi.Mode(), err)
	}
	if got, err := Load(target); err != nil || got.Policy["a.y"] != Deny || got.Policy["a.x"] != Allow {
		t.Fatalf("the link's target after the save: %v, %v", got.Policy, err)
	}
	for _, dir := range []string{dotfiles, home} {
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s holds %d files after the save, want 1", dir, len(ents))
		}
	}
	// A second edit, from the file as the first left it.
	cfg.Policy["a.z"] = Ask
	if err := cfg.Save(link); err != nil {
		t.Fatalf("a second save through the link: %v", err)
	}
}
