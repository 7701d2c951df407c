package config

import (
	"strings"
	"testing"
)

func TestConfigTyposAreErrors(t *testing.T) {
	const file = "/home/p/.config/capabilities/config.json"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"argz", `{"sources": {"a": {"command": "x", "argz": ["y"]}}}`, file + `: sources.a.argz: unknown key; did you mean "args"?`},
		{"comand", `{"sources": {"a": {"comand": "x", "url": "http://h"}}}`, `sources.a.comand: unknown key; did you mean "command"?`},
		{"polcy", `{"polcy": {"a.b": "deny"}}`, file + `: polcy: unknown key; did you mean "policy"?`},
		{"case", `{"Sources": {}}`, `Sources: unknown key; did you mean "sources"?`},
		{"mcpservers", `{"mcpservers": {}}`, `mcpservers: unknown key; did you mean "mcpServers"?`},
		{"transposed env", `{"sources": {"a": {"command": "x", "evn": {"A": "b"}}}}`, `sources.a.evn: unknown key; did you mean "env"?`},
		{"header", `{"sources": {"a": {"url": "http://h", "header": {"A": "b"}}}}`, `sources.a.header: unknown key; did you mean "headers"?`},
		{"connection key", `{"sources": {"a": {"command": "x", "connections": {"p": {"defualt": true}}}}}`, `sources.a.connections.p.defualt: unknown key; did you mean "default"?`},
		{"conections", `{"sources": {"a": {"command": "x", "conections": {}}}}`, `sources.a.conections: unknown key; did you mean "connections"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(file, []byte(tc.in))
			if err == nil {
				t.Fatalf("Parse accepted %s", tc.in)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestConfigKeepsClientKeys(t *testing.T) {
	in := `{
  "sources": {
    "a": {"command": "x", "type": "stdio", "disabled": false, "autoApprove": ["t"], "alwaysAllow": ["t"],
          "timeout": 60, "description": "d", "envFile": ".env", "dev": {"watch": "x"}, "enabled": true,
          "connections": {"p": {"default": true, "note": "mine"}}},
    "b": {"url": "http://h", "transport": "http", "trust": true, "name": "b", "futureKey": 1}
  },
  "theme": "dark",
  "globalShortcut": "x"
}`
	c, err := Parse("config.json", []byte(in))
	if err != nil {
		t.Fatalf("keys MCP clients write were refused: %v", err)
	}
	b, _ := c.MarshalJSON()
	for _, kept := range []string{"autoApprove", "alwaysAllow", "timeout", "description", "envFile", "dev", "enabled", "transport", "trust", "futureKey", "theme", "globalShortcut", "note"} {
		if !strings.Contains(string(b), `"`+kept+`"`) {
			t.Errorf("key %q was not kept: %s", kept, b)
		}
	}
}

func TestNearKey(t *testing.T) {
	for _, tc := range []struct{ k, want string }{
		{"argz", "args"}, {"arg", "args"}, {"args", ""}, {"url", ""}, {"uri", ""}, {"rul", "url"}, {"cwd", ""}, {"CWD", "cwd"},
		{"comand", "command"}, {"commmand", "command"}, {"cmd", ""}, {"x", ""}, {"envs", "env"},
		{"theme", ""}, {"connection", "connections"}, {"Command", "command"},
	} {
		if got := nearKey(tc.k, sourceKeys); got != tc.want {
			t.Errorf("nearKey(%q) = %q, want %q", tc.k, got, tc.want)
		}
	}
}
