package config

import (
	"slices"
	"testing"
)

// TestSameReach: a replacing source reaches what the replaced one did only
// at the same origin, the same document and base URL, or the same program
// but for a package's version.
func TestSameReach(t *testing.T) {
	prog := func(cmd string, args ...string) *Source { return &Source{Command: cmd, Args: args} }
	for _, tc := range []struct {
		name     string
		old, s   *Source
		wantSame bool
	}{
		{"same origin, another path", &Source{URL: "https://mcp.example.com/mcp"}, &Source{URL: "https://mcp.example.com/v2/mcp"}, true},
		{"same origin, default port written", &Source{URL: "https://mcp.example.com/mcp"}, &Source{URL: "https://mcp.example.com:443/mcp"}, true},
		{"another host", &Source{URL: "http://127.0.0.1:9/mcp"}, &Source{URL: "http://127.0.0.2:9/mcp"}, false},
		{"another port", &Source{URL: "http://127.0.0.1:9/mcp"}, &Source{URL: "http://127.0.0.1:10/mcp"}, false},
		{"another scheme", &Source{URL: "https://mcp.example.com/mcp"}, &Source{URL: "http://mcp.example.com/mcp"}, false},
		{"userinfo naming the old host", &Source{URL: "https://good.example/mcp"}, &Source{URL: "https://good.example@other.example/mcp"}, false},
		{"server to program", &Source{URL: "https://mcp.example.com/mcp"}, prog("npx", "-y", "x"), false},
		{"program to server", prog("npx", "-y", "x"), &Source{URL: "https://mcp.example.com/mcp"}, false},
		{"same document", &Source{OpenAPI: "/d/api.json"}, &Source{OpenAPI: "/d/api.json"}, true},
		{"same document, base URL's path", &Source{OpenAPI: "/d/api.json", BaseURL: "https://api.example.com/v1"}, &Source{OpenAPI: "/d/api.json", BaseURL: "https://api.example.com/v2"}, true},
		{"another document", &Source{OpenAPI: "/d/api.json"}, &Source{OpenAPI: "https://other.example/api.json"}, false},
		{"another base URL", &Source{OpenAPI: "/d/api.json"}, &Source{OpenAPI: "/d/api.json", BaseURL: "http://127.0.0.2:4010"}, false},
		{"npm version", prog("npx", "-y", "server-github"), prog("npx", "-y", "server-github@2"), true},
		{"scoped npm version", prog("npx", "-y", "@scope/server@1.2.3"), prog("npx", "-y", "@scope/server@latest"), true},
		{"python version", prog("uvx", "mcp-server-fetch==1.0"), prog("uvx", "mcp-server-fetch==2.1"), true},
		{"image tag", prog("docker", "run", "-i", "ghcr.io/github/github-mcp-server:v1"), prog("docker", "run", "-i", "ghcr.io/github/github-mcp-server:v2.0"), true},
		{"another package", prog("npx", "-y", "server-github"), prog("npx", "-y", "server-gitlab"), false},
		{"another scope", prog("npx", "-y", "@scope/server"), prog("npx", "-y", "@other/server"), false},
		{"another user at a host", prog("ssh", "me@good.example", "mcp"), prog("ssh", "me@other.example", "mcp"), false},
		{"URL arguments whole", prog("npx", "mcp-remote", "https://good.example"), prog("npx", "mcp-remote", "https://good.example@1"), false},
		{"URL port", prog("npx", "mcp-remote", "http://localhost:8080"), prog("npx", "mcp-remote", "http://localhost:9090"), false},
		{"another argument", prog("npx", "-y", "x"), prog("npx", "-y", "x", "--api", "https://other.example"), false},
		{"another command", prog("npx", "x"), prog("bunx", "x"), false},
		{"another folder", &Source{Command: "node", Args: []string{"server.js"}, Cwd: "/a"}, &Source{Command: "node", Args: []string{"server.js"}, Cwd: "/b"}, false},
		{"no environment, written or not", &Source{Command: "npx", Args: []string{"x"}}, &Source{Command: "npx", Args: []string{"x"}, Env: map[string]string{}}, true},
		{"another environment", &Source{Command: "npx", Args: []string{"x"}, Env: map[string]string{"API_URL": "https://api.example.com"}},
			&Source{Command: "npx", Args: []string{"x"}, Env: map[string]string{"API_URL": "https://other.example"}}, false},
	} {
		if got := SameReach(tc.old, tc.s); got != tc.wantSame {
			t.Errorf("%s: SameReach = %v, want %v", tc.name, got, tc.wantSame)
		}
	}
}

// TestLeftBehind: the keys a replace removes are those the new source
// does not read, and, where it reaches another place, all but those just
// stored for it, its own references too.
func TestLeftBehind(t *testing.T) {
	bearer := func(ref string) map[string]*Connection {
		return map[string]*Connection{"default": {Default: true, Headers: map[string]string{"Authorization": "Bearer ${secret:" + ref + "}"}}}
	}
	old := &Source{URL: "https://bank.example/mcp", Connections: map[string]*Connection{
		"default": {Default: true, Headers: map[string]string{"Authorization": "Bearer ${secret:BANK_KEY}"}},
		"audit":   {Headers: map[string]string{"X-Audit": "${secret:AUDIT}"}},
	}}
	key := func(conn, ref string) string { return SecretKey("bank", conn, ref) }
	for _, tc := range []struct {
		name  string
		s     *Source
		fresh map[string]string
		want  []string
	}{
		{"same origin, same connections", &Source{URL: "https://bank.example/v2", Connections: old.Connections}, nil, nil},
		{"same origin, one connection", &Source{URL: "https://bank.example/v2", Connections: bearer("BANK_KEY")}, nil,
			[]string{key("audit", "AUDIT")}},
		{"same origin, another reference", &Source{URL: "https://bank.example/v2", Connections: bearer("TOKEN")}, nil,
			[]string{key("default", "BANK_KEY"), key("audit", "AUDIT")}},
		{"another origin reading the old key", &Source{URL: "http://127.0.0.2:9/mcp", Connections: bearer("BANK_KEY")}, nil,
			[]string{key("default", "BANK_KEY"), key("audit", "AUDIT")}},
		{"another origin reading a key never the old's", &Source{URL: "http://127.0.0.2:9/mcp", Connections: bearer("STALE")}, nil,
			[]string{key("default", "BANK_KEY"), key("audit", "AUDIT"), key("default", "STALE")}},
		{"another origin with its own secret", &Source{URL: "http://127.0.0.2:9/mcp", Connections: bearer("BANK_KEY")},
			map[string]string{key("default", "BANK_KEY"): "its own"}, []string{key("audit", "AUDIT")}},
		{"another origin, no connections", &Source{URL: "http://127.0.0.2:9/mcp"}, nil,
			[]string{key("default", "BANK_KEY"), key("audit", "AUDIT")}},
	} {
		got := old.LeftBehind("bank", tc.s, tc.fresh)
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: LeftBehind = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestAddSourceKeepsConnectionsOnlyWithinReach: a source replaced by one
// without connections keeps them at the same origin and loses them at
// another.
func TestAddSourceKeepsConnectionsOnlyWithinReach(t *testing.T) {
	conns := map[string]*Connection{"default": {Default: true, Headers: map[string]string{"Authorization": "Bearer ${secret:BANK_KEY}"}}}
	for _, tc := range []struct {
		url  string
		keep bool
	}{{"https://bank.example/v2/mcp", true}, {"http://127.0.0.2:9/mcp", false}} {
		c := &Config{Sources: map[string]*Source{"bank": {URL: "https://bank.example/mcp", Connections: conns}}}
		s := &Source{URL: tc.url}
		if err := c.AddSource("config.json", "bank", s, true); err != nil {
			t.Fatal(err)
		}
		if kept := c.Sources["bank"].Connections["default"] != nil; kept != tc.keep {
			t.Errorf("replaced by %s: connections kept %v, want %v", tc.url, kept, tc.keep)
		}
	}
}

// TestArgSecret: the arguments of real client configs that hold a secret,
// and the ones that only say where a secret is, or hold none.
func TestArgSecret(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-y", "server-github", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, "argument 4 (the value of --token)"},
		{[]string{"mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer 9f8e7d6c5b4a39281706"}, "argument 4 (the value of Authorization)"},
		{[]string{"-y", "tavily-mcp", "--api-key=tvly-Xq81bZ0kLmN2pR7s"}, "argument 3 (the value of --api-key)"},
		{[]string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=hunter2hunter2", "ghcr.io/github/github-mcp-server"}, "argument 5 (the value of GITHUB_PERSONAL_ACCESS_TOKEN)"},
		{[]string{"slack-mcp", "xoxb-1234567890-abcdefghij"}, "argument 2"},
		{[]string{"mcp-remote", "https://me:pa55word@mcp.example.com/mcp"}, "argument 2 (a URL with a secret in it)"},
		{[]string{"mcp-remote", "https://mcp.example.com/mcp?api_key=abc123"}, "argument 2 (a URL with a secret in it)"},
		{[]string{"server", "--password", "correct-horse"}, "argument 3 (the value of --password)"},
		{[]string{"server", "--auth=github_pat_11ABCDEFG0123456789_abcdefghijklmnop"}, "argument 2 (the value of --auth)"},

		{[]string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/me/projects"}, ""},
		{[]string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"}, ""},
		{[]string{"mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer ${AUTH_TOKEN}"}, ""},
		{[]string{"mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization:$AUTH_HEADER"}, ""},
		{[]string{"server", "--token-env", "GITHUB_TOKEN", "--api-key-file", "/run/secrets/key", "--secret-name", "prod/db"}, ""},
		{[]string{"server", "--session-timeout", "30", "--token-file", "token.txt", "--access-token", "$TOKEN"}, ""},
		{[]string{"server", "--pat", "--verbose"}, ""},
		{nil, ""},
	} {
		if got := ArgSecret(tc.args); got != tc.want {
			t.Errorf("ArgSecret(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
