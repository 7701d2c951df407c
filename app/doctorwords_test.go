package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/openapi"
)

func TestDoctorSummary(t *testing.T) {
	for _, tc := range []struct {
		failed, warned int
		want           string
	}{
		{0, 0, "All good."},
		{0, 1, "Nothing stops the hub; 1 warning to look at."},
		{0, 3, "Nothing stops the hub; 3 warnings to look at."},
		{1, 0, "1 problem to fix."},
		{2, 0, "2 problems to fix."},
		{1, 2, "1 problem to fix, and 2 warnings to look at."},
	} {
		if got := doctorSummary(tc.failed, tc.warned); got != tc.want {
			t.Errorf("doctorSummary(%d, %d) = %q, want %q", tc.failed, tc.warned, got, tc.want)
		}
	}
}

// TestDoctorSummaryMatchesItsLines: the last line counts the [FAIL] and
// [warn] lines above it, and says "All good." only when there are none.
func TestDoctorSummaryMatchesItsLines(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{}`), 0o600)
	r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	failed, warned := strings.Count(r.stdout, "\n[FAIL] "), strings.Count(r.stdout, "\n[warn] ")
	if strings.HasPrefix(r.stdout, "[FAIL] ") {
		failed++
	}
	if strings.HasPrefix(r.stdout, "[warn] ") {
		warned++
	}
	if warned == 0 {
		t.Fatalf("no [warn] line (the hub is not running, no client is connected):\n%s", r.stdout)
	}
	if last, want := lines[len(lines)-1], doctorSummary(failed, warned); last != want {
		t.Errorf("doctor ends with %q after %d [FAIL] and %d [warn] lines, want %q:\n%s", last, failed, warned, want, r.stdout)
	}
	if strings.Contains(r.stdout, "All good.") {
		t.Errorf("All good. after a [warn]:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "config.json: 0 sources\n") {
		t.Errorf("the config line does not count the sources:\n%s", r.stdout)
	}
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {"memory": {"command": "memory-server"}}}`), 0o600)
	if r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources"); !strings.Contains(r.stdout, "config.json: 1 source\n") {
		t.Errorf("one source:\n%s", r.stdout)
	}
	if wantCode := map[bool]int{true: exitFailure, false: exitOK}[failed > 0]; r.code != wantCode {
		t.Errorf("exit %d with %d [FAIL] lines, want %d", r.code, failed, wantCode)
	}
}

// TestDoctorSaysAURLHoldsAPassword: a config.json written by hand with a
// password in a source's URL, or a token in a program's arguments, loads,
// and doctor warns, with the fix.
func TestDoctorSaysAURLHoldsAPassword(t *testing.T) {
	home, userHome, userConfig := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {
		"docs": {"url": "https://alice:pw-123@mcp.example.com/mcp"},
		"keyed": {"url": "https://mcp.example.com/mcp?region=eu&apiKey=k-456"},
		"zap": {"url": "https://mcp.zapier.com/api/mcp/s/NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U/mcp"},
		"api": {"openapi": "https://api.example.com/openapi.json?token=k-456", "baseUrl": "https://api.example.com/v1?apiKey=k-456"},
		"plain": {"url": "https://mcp.example.com/mcp?region=eu"},
		"slack": {"command": "slack-mcp", "args": ["--bot-token", "xoxb-1234567890-abcdefghij"]}}}`), 0o600)
	r := cliIn(t, home, userHome, userConfig, "doctor", "--no-sources")
	for _, want := range []string{
		"config.json: 6 sources\n",
		"[warn] source slack: its command's argument 2 (the value of --bot-token) looks like a secret, kept in config.json where secrets never go, and readable by every user of this machine while it runs (ps)\n",
		"fix: take it out of sources.slack.args in " + filepath.Join(home, "config.json") + " and give it to the program in its environment: 'capabilities connection add slack default --env VAR'",
		"[warn] source api: its baseUrl's query parameter apiKey looks like a secret, kept in config.json where secrets never go\n",
		"fix: set sources.api.baseUrl in " + filepath.Join(home, "config.json") + " to https://api.example.com/v1, then: capabilities connection add api default --query apiKey",
		"[warn] source api: its openapi's query parameter token looks like a secret, kept in config.json where secrets never go\n",
		"fix: save the document and set sources.api.openapi in " + filepath.Join(home, "config.json") + " to its file",
		"[warn] source zap: its url's path holds what looks like a secret, kept in config.json where secrets never go\n",
		"fix: set sources.zap.url in " + filepath.Join(home, "config.json") + " to https://mcp.zapier.com/api/mcp/s/${secret:url_path}/mcp, then: capabilities connection add zap default  (reads",
		"[warn] source keyed: its url's query parameter apiKey looks like a secret, kept in config.json where secrets never go\n",
		"fix: set sources.keyed.url in " + filepath.Join(home, "config.json") + " to https://mcp.example.com/mcp?region=eu, then: capabilities connection add keyed default --query apiKey  (reads",
		"[warn] source docs: its url holds a password, kept in config.json where secrets never go\n",
		"fix: set sources.docs.url in " + filepath.Join(home, "config.json") + " to https://mcp.example.com/mcp, then: printf 'Basic %s'",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "source plain:") || strings.Contains(r.stdout, "pw-123") || strings.Contains(r.stdout, "k-456") || strings.Contains(r.stdout, "NjA5ZmQ0") || strings.Contains(r.stdout, "xoxb-") {
		t.Errorf("doctor names a source without a password, or shows the password:\n%s", r.stdout)
	}
}

// TestOpenAPICheckFix: an OpenAPI source whose document puts operations on
// another origin is told how to serve them (the origin, as a person
// writes it, in "origins"); other skipped operations are fixed in the
// document.
func TestOpenAPICheckFix(t *testing.T) {
	def := &config.Source{OpenAPI: "/api.json"}
	for _, tc := range []struct {
		status hub.SourceStatus
		want   string
	}{
		{hub.SourceStatus{Name: "gh", Warnings: []string{"skipped GET /x: its path does not start with \"/\""}},
			"the operations named are left out and the rest are served; fix them in the document to serve them too"},
		{hub.SourceStatus{Name: "gh", Warnings: []string{"skipped POST /assets: its own server ..."}, SourceStatus: openapi.SourceStatus{Elsewhere: []string{"https://uploads.github.com:443", "http://127.0.0.2:8080"}}},
			`the operations named are left out and the rest are served; to serve those on another origin, add "origins": ["https://uploads.github.com", "http://127.0.0.2:8080"] to gh in config.json, which sends its credentials there too; fix any other in the document`},
	} {
		if c := openapiCheck(tc.status, def); !c.warn || c.fix != tc.want {
			t.Errorf("%v: %+v, want fix %q", tc.status.Elsewhere, c, tc.want)
		}
	}
	if c := openapiCheck(hub.SourceStatus{Name: "gh"}, def); !c.ok {
		t.Errorf("no warnings: %+v", c)
	}
}
