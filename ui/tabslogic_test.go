//go:build !headless

package ui

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"npx -y @modelcontextprotocol/server-memory", []string{"npx", "-y", "@modelcontextprotocol/server-memory"}, ""},
		{"  uvx   mcp-server-git  ", []string{"uvx", "mcp-server-git"}, ""},
		{`node "/home/ana/My Servers/index.js" --port 3`, []string{"node", "/home/ana/My Servers/index.js", "--port", "3"}, ""},
		{`sh -c 'echo "hi"; exit 0'`, []string{"sh", "-c", `echo "hi"; exit 0`}, ""},
		{`a\ b c`, []string{"a b", "c"}, ""},
		{`x ""`, []string{"x", ""}, ""},
		{"", nil, ""},
		{`node "unclosed`, nil, `unclosed " quote`},
		{`node x\`, nil, "ends with a backslash"},
	} {
		got, err := splitCommand(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("splitCommand(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSourceSpec(t *testing.T) {
	for _, tc := range []struct {
		name, kind, target, base, extra string
		want                            SourceSpec
		wantErr                         string
	}{
		{"memory", addCommand, "npx -y @modelcontextprotocol/server-memory", "", "", SourceSpec{Name: "memory", Command: []string{"npx", "-y", "@modelcontextprotocol/server-memory"}}, ""},
		{" docs ", addURL, " https://mcp.example.com/mcp ", "", "", SourceSpec{Name: "docs", URL: "https://mcp.example.com/mcp"}, ""},
		{"petstore", addOpenAPI, "~/apis/petstore.json", "", "", SourceSpec{Name: "petstore", OpenAPI: "~/apis/petstore.json"}, ""},
		{"petstore", addOpenAPI, "/srv/apis/petstore.yaml", "", "", SourceSpec{Name: "petstore", OpenAPI: "/srv/apis/petstore.yaml"}, ""},
		{"petstore", addOpenAPI, "./petstore.json", "", "", SourceSpec{}, "whole path"},
		{"petstore", addOpenAPI, "https://api.example.com/openapi.json", "", "", SourceSpec{Name: "petstore", OpenAPI: "https://api.example.com/openapi.json"}, ""},
		{"", addCommand, "x", "", "", SourceSpec{}, "name the source"},
		{"my files", addCommand, "x", "", "", SourceSpec{}, "no blanks or slashes"},
		{"memory", addCommand, "  ", "", "", SourceSpec{}, "enter the command"},
		{"memory", addCommand, `node "x`, "", "", SourceSpec{}, "unclosed"},
		{"mine", addCommand, "./bin/server --stdio", "", "", SourceSpec{}, "the program's whole path"},
		{"mine", addCommand, "~/bin/server", "", "", SourceSpec{}, "the program's whole path"},
		{"mine", addCommand, "/opt/mine/server --stdio", "", "", SourceSpec{Name: "mine", Command: []string{"/opt/mine/server", "--stdio"}}, ""},
		{"docs", addURL, "mcp.example.com", "", "", SourceSpec{}, "http:// or https://"},
		{"petstore", addOpenAPI, "", "", "", SourceSpec{}, "OpenAPI document"},
		{"x", "", "y", "", "", SourceSpec{}, "pick what the source is"},
		{"jira", addOpenAPI, "~/apis/jira.json", " https://acme.atlassian.net ", "", SourceSpec{Name: "jira", OpenAPI: "~/apis/jira.json", BaseURL: "https://acme.atlassian.net"}, ""},
		{"jira", addOpenAPI, "~/apis/jira.json", "acme.atlassian.net", "", SourceSpec{}, "base URL starts with http:// or https://"},
		{"docs", addURL, "https://mcp.example.com/mcp", "https://ignored.example.com", "", SourceSpec{Name: "docs", URL: "https://mcp.example.com/mcp"}, ""},
		{"docs", addURL, "https://mcp.example.com/mcp", "", `X-Region=eu Authorization="Bearer a b"`, SourceSpec{Name: "docs", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"X-Region": "eu", "Authorization": "Bearer a b"}}, ""},
		{"docs", addURL, "https://mcp.example.com/mcp", "", "X Region=eu", SourceSpec{}, `"X": write each header as NAME=value`},
		{"memory", addCommand, "npx -y @modelcontextprotocol/server-memory", "", "MEMORY_FILE_PATH=/tmp/m.json", SourceSpec{Name: "memory", Command: []string{"npx", "-y", "@modelcontextprotocol/server-memory"}, Env: map[string]string{"MEMORY_FILE_PATH": "/tmp/m.json"}}, ""},
		{"memory", addCommand, "npx", "", "MEMORY-PATH=x", SourceSpec{}, `"MEMORY-PATH=x": write each environment variable as NAME=value`},
		// A secret in the arguments: what to do, in the window's words.
		{"gh", addCommand, "npx -y server-github --token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "", "", SourceSpec{}, "the command's argument 4 (the value of --token) looks like a secret"},
		{"gh", addCommand, "npx -y server-github --token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "", "", SourceSpec{}, "in its environment instead, in the field below (GITHUB_TOKEN=…), which the hub keeps in the keychain"},
		{"gh", addCommand, "npx -y server-github --token-file /home/you/.gh-token", "", "", SourceSpec{Name: "gh", Command: []string{"npx", "-y", "server-github", "--token-file", "/home/you/.gh-token"}}, ""},
	} {
		got, err := sourceSpec(tc.name, tc.kind, tc.target, tc.base, tc.extra)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "ghp_") {
				t.Errorf("sourceSpec(%q, %q, %q) error = %v, want %q (and no secret)", tc.name, tc.kind, tc.target, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got.Name != tc.want.Name || got.URL != tc.want.URL || got.OpenAPI != tc.want.OpenAPI || got.BaseURL != tc.want.BaseURL || !maps.Equal(got.Env, tc.want.Env) || !maps.Equal(got.Headers, tc.want.Headers) || !slices.Equal(got.Command, tc.want.Command) {
			t.Errorf("sourceSpec(%q, %q, %q) = %+v, %v; want %+v", tc.name, tc.kind, tc.target, got, err, tc.want)
		}
	}
	for _, k := range addKinds {
		if addPlaceholder(k) == "" {
			t.Errorf("no placeholder for %s", k)
		}
	}
}

func TestSourceButtonsAndSummary(t *testing.T) {
	for _, tc := range []struct {
		s          SourceStatus
		toggle     string
		canRestart bool
		summary    string
	}{
		{SourceStatus{State: SourceUp, Tools: 9}, "Disable", true, ""},
		{SourceStatus{State: SourceDown, Tools: 0, Error: "exit status 1"}, "Disable", true, "Last error: exit status 1"},
		{SourceStatus{State: SourceDisabled, Disabled: true, Error: "disabled in the config"}, "Enable", false, "Disabled in config.json: its tools are out of the catalog until it is enabled."},
		{SourceStatus{State: SourceDisabled}, "Enable", false, ""},
		{SourceStatus{State: SourceIdle, Tools: 1}, "Disable", true, ""},
		{SourceStatus{State: SourceUp, Tools: 20, Waiting: 8, Need: "an API key in header api_key (api_key): capabilities connection add pets default --header api_key"}, "Disable", true,
			"8 of 20 operations wait for credentials; they need an API key in header api_key (api_key): capabilities connection add pets default --header api_key"},
	} {
		toggle, canRestart := sourceButtons(tc.s)
		if toggle != tc.toggle || canRestart != tc.canRestart {
			t.Errorf("sourceButtons(%+v) = %q, %v; want %q, %v", tc.s, toggle, canRestart, tc.toggle, tc.canRestart)
		}
		if got := sourceSummary(tc.s); got != tc.summary {
			t.Errorf("sourceSummary(%+v) = %q, want %q", tc.s, got, tc.summary)
		}
	}
	if got := stderrText(nil); got != "(nothing on stderr)" {
		t.Errorf("stderrText(nil) = %q", got)
	}
	if got := stderrText([]string{"a", "b"}); got != "a\nb" {
		t.Errorf("stderrText = %q", got)
	}
}

func TestToolAction(t *testing.T) {
	for _, tc := range []struct {
		tool    SourceTool
		label   string
		turnOff bool
		line    string
	}{
		{SourceTool{Address: "github.createIssue", Title: "Create an issue", Mode: PolicyAsk}, "Turn off", true, "github.createIssue — Create an issue"},
		{SourceTool{Address: "github.listIssues", Mode: PolicyAllow}, "Turn off", true, "github.listIssues"},
		{SourceTool{Address: "github.deleteRepository", Mode: PolicyDeny}, "Turn on", false, "github.deleteRepository"},
		{SourceTool{Address: "gh.teamsAddMemberLegacy", Title: "Add team member (Legacy)", Mode: PolicyAsk, Deprecated: true}, "Turn off", true, "gh.teamsAddMemberLegacy — Add team member (Legacy) (deprecated)"},
	} {
		label, off := toolAction(tc.tool)
		if label != tc.label || off != tc.turnOff || toolLine(tc.tool) != tc.line {
			t.Errorf("toolAction(%+v) = %q, %v, line %q", tc.tool, label, off, toolLine(tc.tool))
		}
	}
}

func TestCallDecisionText(t *testing.T) {
	for _, tc := range []struct {
		c    CallSummary
		want string
	}{
		{CallSummary{State: "ok"}, "no approval asked (policy allowed it)"},
		{CallSummary{State: "pending"}, "waiting for a decision"},
		{CallSummary{State: "planned"}, "waiting for a decision on the run's plan"},
		{CallSummary{State: "ok", Decision: "allow", Channel: "dialog", Actor: "dialog", Reason: "policy ask"}, "allowed once in the approval dialog"},
		{CallSummary{State: "ok", Decision: "allow", Always: true, Channel: "cli", Actor: "ana"}, "always allowed by ana in the terminal"},
		{CallSummary{State: "error", Decision: "deny", Channel: "client"}, "denied in the client's form"},
		{CallSummary{State: "error", Decision: "deny", Channel: "expired"}, "denied when the approval expired"},
	} {
		if got := callDecisionText(tc.c); got != tc.want {
			t.Errorf("callDecisionText(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestCallBlock(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tc := range []struct {
		name string
		c    CallSummary
		want []string // lines, in order
		not  []string
	}{
		{"asked and allowed", CallSummary{Seq: 2, Address: "github.createIssue", Connection: "work", State: "ok", OK: true, Duration: 412 * time.Millisecond,
			Args: `{"owner":"ana","title":"` + long + `"}`, Result: `{"number":7}`, Decision: "allow", Channel: "dialog", Actor: "dialog", Reason: "policy ask"},
			[]string{"#2  github.createIssue  ok  (412ms)  on connection work", "  decision: allowed once in the approval dialog\n  asked because: policy ask", "  arguments:", `      "owner": "ana",`, "  result:", `      "number": 7`},
			[]string{"error:"}},
		{"failed", CallSummary{Seq: 1, Address: "slack.postMessage", State: "error", Duration: 30 * time.Second, Result: `{"code":"upstream_timeout"}`},
			[]string{"#1  slack.postMessage  failed  (30s)", "  decision: no approval asked (policy allowed it)", "  arguments not recorded", "  error:", `      "code": "upstream_timeout"`},
			[]string{"arguments:"}},
		{"an old record without the journal", CallSummary{Seq: 3, Address: "x.y", OK: false, Error: "waiting for approval"},
			[]string{"#3  x.y  failed  (0s)", "  error:", "    waiting for approval"}, nil},
		{"a handle", CallSummary{Seq: 4, Address: "x.big", State: "read", OK: true, Result: `{"handle":"h_1"}`, Cut: true},
			[]string{"#4  x.big  ok (a handle's page)", "  handle:", "… (cut here"}, nil},
	} {
		got := callBlock(tc.c)
		at := 0
		for _, w := range tc.want {
			i := strings.Index(got[at:], w)
			if i < 0 {
				t.Errorf("%s: %q not found (in order) in\n%s", tc.name, w, got)
				break
			}
			at += i + len(w)
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q in\n%s", tc.name, n, got)
			}
		}
		if tc.c.Args != "" && !strings.Contains(got, strings.TrimSpace(long)) {
			t.Errorf("%s: the long argument was cut:\n%s", tc.name, got)
		}
	}
	if got := callsText(nil); got != "(no tool calls)" {
		t.Errorf("callsText(nil) = %q", got)
	}
	two := callsText([]CallSummary{{Seq: 1, Address: "a.b", OK: true}, {Seq: 2, Address: "a.c", OK: true}})
	if !strings.Contains(two, "\n\n#2  a.c") {
		t.Errorf("callsText does not separate the calls:\n%s", two)
	}
}

func TestArgsText(t *testing.T) {
	cutArgs := `{"owner":"ana","labels":["bug","ci"],"body":"Fails one run in \"five\" on arm`
	for _, tc := range []struct {
		name string
		args string
		cut  bool
		want string
	}{
		{"not recorded", "", false, "  arguments not recorded\n"},
		{"short, on the label's line", `{"repo":"acme/widgets","state":"open"}`, false, `  arguments: {"repo":"acme/widgets","state":"open"}` + "\n"},
		{"an approval's indented preview, compacted", "{\n  \"text\": \"hi\"\n}", false, `  arguments: {"text":"hi"}` + "\n"},
		{"none", "{}", false, "  arguments: {}\n"},
		{"long, indented below", `{"title":"` + strings.Repeat("x", 100) + `","n":1}`, false,
			"  arguments:\n    {\n      \"title\": \"" + strings.Repeat("x", 100) + "\",\n      \"n\": 1\n    }\n"},
		{"cut by the hub", cutArgs, true,
			"  arguments:\n    {\n      \"owner\": \"ana\",\n      \"labels\": [\n        \"bug\",\n        \"ci\"\n      ],\n      \"body\": \"Fails one run in \\\"five\\\" on arm\n" +
				"    … (cut here; the journal keeps the first 4 KB of a call's arguments)\n"},
		{"not JSON", "(arguments are not valid JSON)", false, "  arguments:\n    (arguments are not valid JSON)\n"},
	} {
		if got := argsText(tc.args, tc.cut); got != tc.want {
			t.Errorf("%s: argsText =\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	// A whole JSON text indents as json.Indent does.
	whole := `{"a":[1,{"b":"x,y:{z}"}],"c":{},"d":[]}`
	if got, want := indentJSONPrefix(whole), wholeJSON(whole); got != want {
		t.Errorf("indentJSONPrefix = \n%s\nwant\n%s", got, want)
	}
}

func TestRunIndexAndLines(t *testing.T) {
	runs := []RunSummary{{ID: "run_b"}, {ID: "run_a"}}
	for _, tc := range []struct {
		id   string
		want int
	}{{"run_a", 1}, {"run_b", 0}, {"run_gone", -1}, {"", -1}} {
		if got := runIndex(runs, tc.id); got != tc.want {
			t.Errorf("runIndex(%q) = %d, want %d", tc.id, got, tc.want)
		}
	}
	r := RunSummary{ID: "run_7f3a", Status: "waiting", Client: "claude-code 1.2", Started: t0, Calls: make([]CallSummary, 3)}
	if got, want := runTitle(r, t0), "09:26:53  waiting  run_7f3a"; got != want {
		t.Errorf("runTitle = %q, want %q", got, want)
	}
	if got, want := runSubtitle(r), "claude-code 1.2, 3 calls"; got != want {
		t.Errorf("runSubtitle = %q, want %q", got, want)
	}
	if got, want := runSubtitle(RunSummary{}), "unknown client, 0 calls"; got != want {
		t.Errorf("runSubtitle = %q, want %q", got, want)
	}
}

func TestProfilesAndConnectedClients(t *testing.T) {
	choices := profileChoices([]string{"personal", "work"})
	if !slices.Equal(choices, []string{wholeHub, "personal", "work"}) {
		t.Errorf("profileChoices = %q", choices)
	}
	for choice, want := range map[string]string{wholeHub: "", "work": "work"} {
		if got := profileOf(choice); got != want {
			t.Errorf("profileOf(%q) = %q, want %q", choice, got, want)
		}
	}
	if got, want := installCommand("cursor", "work"), "capabilities install cursor --profile work"; got != want {
		t.Errorf("installCommand = %q, want %q", got, want)
	}
	if got, want := installCommand("cursor", ""), "capabilities install cursor"; got != want {
		t.Errorf("installCommand = %q, want %q", got, want)
	}
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		cs    []ConnectedClient
		known bool
		want  string
	}{
		{nil, false, "This window cannot see the hub's clients."},
		{nil, true, "No MCP client is connected now."},
		{[]ConnectedClient{{Name: "claude-code", Version: "2.1.0", Mode: "code", Since: t0}, {Name: "cursor", Profile: "work", Mode: "direct", Since: t0.Add(time.Minute)}, {}},
			true, "claude-code 2.1.0 — every source, code mode, since 09:26:53\ncursor — profile work, direct mode, since 09:27:53\nunknown client — every source, code mode, since --:--"},
	} {
		if got := connectedText(tc.cs, tc.known, now); got != tc.want {
			t.Errorf("connectedText = %q, want %q", got, tc.want)
		}
	}
}

func TestCallState(t *testing.T) {
	for _, tc := range []struct {
		c    CallSummary
		want string
	}{
		{CallSummary{State: "ok"}, "ok"},
		{CallSummary{State: "read"}, "ok (a handle's page)"},
		{CallSummary{State: "error"}, "failed"},
		{CallSummary{State: "issued"}, "sent, no answer kept"},
		{CallSummary{State: "pending"}, "waiting"},
		{CallSummary{State: "planned"}, "planned, not sent yet"},
	} {
		if got := callState(tc.c); got != tc.want {
			t.Errorf("callState(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// The changes' words say what each kind holds back: a tool's calls ask, a
// skill's change is told to the model.
func TestChangesWords(t *testing.T) {
	tool := func(a string) ToolChange { return ToolChange{Address: a} }
	for _, tc := range []struct {
		changes     []ToolChange
		hint, label string
	}{
		{nil, "No tool or skill changed since it was accepted.", ""},
		{[]ToolChange{tool("a.b")}, "1 tool changed since it was accepted: its calls ask until you accept the new definition. What changed is below.", "1 tool definition changed…"},
		{[]ToolChange{tool("a.b"), tool("a.c")}, "2 tools changed since they were accepted: their calls ask until you accept the new definitions. Pick one to see what changed.", "2 tool definitions changed…"},
		{[]ToolChange{tool("skill:d.x")}, "1 skill changed since it was accepted: the model is told so until you accept its new entry. What changed is below.", "1 skill changed…"},
		{[]ToolChange{tool("skill:d.x"), tool("skill:d.y")}, "2 skills changed since they were accepted: the model is told so until you accept the new definitions. Pick one to see what changed.", "2 skills changed…"},
		{[]ToolChange{tool("a.b"), tool("skill:d.x")}, "1 tool and 1 skill changed since they were accepted: the tools' calls ask and the model is told of the skills until you accept the new definitions. Pick one to see what changed.", "1 tool and 1 skill changed…"},
	} {
		if got := changesHint(tc.changes); got != tc.hint {
			t.Errorf("changesHint(%v) = %q, want %q", tc.changes, got, tc.hint)
		}
		if got := changesMenuLabel(tc.changes); tc.label != "" && got != tc.label {
			t.Errorf("changesMenuLabel(%v) = %q, want %q", tc.changes, got, tc.label)
		}
	}
}

// TestFilterToolsDeprecated: the tools filter finds the operations their
// API deprecates by the word the list shows them with.
func TestFilterToolsDeprecated(t *testing.T) {
	tools := []SourceTool{
		{Address: "gh.teamsAddMemberLegacy", Title: "Add team member (Legacy)", Mode: PolicyAsk, Deprecated: true},
		{Address: "gh.teamsAddOrUpdateMembershipForUserInOrg", Title: "Add or update team membership for a user", Mode: PolicyAsk},
	}
	if got := filterTools(tools, "deprecated"); len(got) != 1 || got[0].Address != "gh.teamsAddMemberLegacy" {
		t.Errorf("filter deprecated: %+v", got)
	}
	if got := filterTools(tools, "team ask"); len(got) != 2 {
		t.Errorf("filter team ask: %+v", got)
	}
}
