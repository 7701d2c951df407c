package config

import (
	"strings"
	"testing"
)

// Every suggestion is a name the config accepts.
func TestSuggestedSourceNamesAreAccepted(t *testing.T) {
	for _, name := range []string{"eval", "hub", "parseInt", "1password", "my files", "café", "", "-", "ToolError",
		"let", strings.Repeat("x", 100), "globalThis", "__proto__", "arguments"} {
		s := suggestSourceName(name)
		if p := sourceNameProblem(s); p != "" {
			t.Errorf("suggestion %q for %q is refused: %s", s, name, p)
		}
	}
}

// A client config's server whose name cannot be a namespace is not
// imported, and the import says so.
func TestImportSkipsRefusedNames(t *testing.T) {
	imp, err := ParseImport("claude.json", []byte(`{"mcpServers": {"eval": {"command": "x"}, "files": {"command": "y"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Sources["files"] == nil || imp.Sources["eval"] != nil || len(imp.Refused) != 1 ||
		!strings.Contains(imp.Refused.Error(), `claude.json: mcpServers.eval: source name "eval"`) {
		t.Errorf("sources %v, refused %v", sortedKeys(imp.Sources), imp.Refused)
	}
}

// A server whose command's arguments hold a secret is not imported (it
// would sit in config.json, and the arguments are every local user's to
// read), and the import says which argument without quoting it; one whose
// arguments only name a variable is.
func TestImportSkipsSecretArguments(t *testing.T) {
	imp, err := ParseImport("claude.json", []byte(`{"mcpServers": {
		"gh": {"command": "npx", "args": ["-y", "server-github", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]},
		"remote": {"command": "npx", "args": ["mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer ${AUTH_TOKEN}"]}},
		"sources": {"slack": {"command": "slack-mcp", "args": ["xoxb-1234567890-abcdefghij"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := imp.Refused.Error()
	if imp.Sources["remote"] == nil || imp.Sources["gh"] != nil || imp.Sources["slack"] != nil || len(imp.Refused) != 2 ||
		!strings.Contains(got, "claude.json: mcpServers.gh.args: its command's argument 4 (the value of --token) looks like a secret") ||
		!strings.Contains(got, "claude.json: sources.slack.args: its command's argument 1 looks like a secret") ||
		!strings.Contains(got, "it is not imported") || strings.Contains(got, "ghp_") || strings.Contains(got, "xoxb") {
		t.Errorf("sources %v, refused:\n%v", sortedKeys(imp.Sources), got)
	}
}
