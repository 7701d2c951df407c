package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

type result struct {
	code           int
	stdout, stderr string
}

// cli runs the command line in-process against home, with stdin.
func cli(t *testing.T, home, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		Args:       args,
		Stdin:      strings.NewReader(stdin),
		Stdout:     &out,
		Stderr:     &errb,
		Getenv:     func(k string) string { return map[string]string{"CAPABILITIES_HOME": home}[k] },
		UserHome:   t.TempDir(),
		UserConfig: t.TempDir(),
	}
	code := run(context.Background(), e)
	return result{code, out.String(), errb.String()}
}

func TestUsageErrors(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, exitUsage, "Usage: capabilities COMMAND"},
		{[]string{"sorce"}, exitUsage, `unknown command "sorce" (did you mean "source"?)`},
		{[]string{"source"}, exitUsage, "Usage: capabilities source COMMAND"},
		{[]string{"source", "add"}, exitUsage, "capabilities source add: needs a source NAME\nhint: usage:"},
		{[]string{"source", "add", "x"}, exitUsage, "needs a COMMAND after -- (stdio) or --url URL"},
		{[]string{"source", "add", "x", "--url", "http://h", "--", "cmd"}, exitUsage, "takes a COMMAND or --url, not both"},
		{[]string{"source", "add", "x", "--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{[]string{"source", "add", "https://mcp.example.com/mcp"}, exitUsage, `"https://mcp.example.com/mcp" is a URL, not a name: name the source first, then --url https://mcp.example.com/mcp for an MCP server`},
		{[]string{"profile", "add", "ro", "--sources", "memory"}, exitUsage, "flag provided but not defined: -sources (did you mean --source?)"},
		{[]string{"source", "add", "x", "-open-api", "x.json"}, exitUsage, "flag provided but not defined: -open-api (did you mean --openapi?)"},
		{[]string{"source", "add", "x", "--env", "NOEQUALS", "--", "cmd"}, exitUsage, `--env "NOEQUALS": write KEY=VALUE`},
		{[]string{"source", "add", "x", "--url", "https://h/mcp", "--header", "X Region=eu"}, exitUsage, `--header "X Region=eu": "X Region" is not a header name`},
		{[]string{"source", "remove"}, exitUsage, "needs exactly one source NAME"},
		{[]string{"source", "remove", "ghost"}, exitFailure, `no source named "ghost"` + "\nhint: there are no sources yet"},
		{[]string{"source", "import"}, exitUsage, "needs exactly one FILE"},
		{[]string{"source", "import", "/nonexistent.json"}, exitFailure, "reading /nonexistent.json"},
		{[]string{"connection", "add", "x"}, exitUsage, "needs SOURCE and connection NAME"},
		{[]string{"connection", "add", "x", "y", "--env", "A", "--header", "B"}, exitUsage, "takes one of --env, --header, --query and --cookie"},
		{[]string{"policy", "set", "a.b"}, exitUsage, "needs a target and a mode"},
		{[]string{"policy", "set", "a.b", "sometimes"}, exitUsage, `mode "sometimes": must be allow, ask or deny`},
		{[]string{"version", "extra"}, exitUsage, "takes no arguments"},
		{[]string{"hub", "approve", "", "--yes"}, exitUsage, "RUNID is empty; 'capabilities hub runs --pending' lists the runs waiting"},
		{[]string{"hub", "approve", " ", "--deny"}, exitUsage, "RUNID is empty"},
		{[]string{"execute", "return await memory.readGraph({})"}, exitUsage, `no file named "return await memory.readGraph({})"; to run code given on the command line, pass it with --code`},
		{[]string{"execute", "--code", "return 1", "run.js"}, exitUsage, "takes a FILE or --code, not both"},
		{[]string{"execute", "--code", "return 1", "--resume", "r_1"}, exitUsage, "takes a FILE, --code or --resume, one of them"},
		{[]string{"execute", "--code", " "}, exitUsage, "no code: pass a FILE, pipe the code in, give it with --code, or --resume RUNID"},
		{[]string{"execute", "/nonexistent.js"}, exitFailure, "reading the code: open /nonexistent.js"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := cli(t, home, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code = %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", r.stderr, tc.stderr)
			}
			if r.code != exitOK && r.stdout != "" {
				t.Errorf("a failing command printed to stdout: %q", r.stdout)
			}
		})
	}
}

// TestExecuteCodeFlag: --code runs the code given on the command line, as
// a FILE with the same code does.
func TestExecuteCodeFlag(t *testing.T) {
	// The built binary on a home with no source: the run's sandbox is a
	// process of its own.
	w := &world{t: t, bin: binary(t), home: t.TempDir(), userHome: t.TempDir()}
	file := filepath.Join(t.TempDir(), "run.js")
	if err := os.WriteFile(file, []byte("return [1, 2].map((x) => x * 21);"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"execute", "--code", "return [1, 2].map((x) => x * 21);"}, {"execute", file}} {
		stdout, stderr, code := w.cli("", args...)
		if code != exitOK || !strings.Contains(stdout, `"status":"completed","result":[21,42]`) {
			t.Errorf("%v: code %d stdout %q stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestHelpEverywhere(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"source", "--help"}, {"source", "add", "--help"}, {"source", "import", "-h"},
		{"connection", "add", "--help"}, {"policy", "set", "--help"}, {"version", "--help"}, {"help", "source"},
	} {
		r := cli(t, home, "", args...)
		if r.code != exitOK || !strings.Contains(r.stdout, "Usage: capabilities") {
			t.Errorf("%v: code %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestSourceLifecycle(t *testing.T) {
	home := t.TempDir()
	if r := cli(t, home, "", "source", "list"); r.code != 0 || !strings.Contains(r.stdout, "No sources yet") {
		t.Fatalf("empty list: %+v", r)
	}
	r := cli(t, home, "", "source", "add", "memory", "--env", "LOG=debug", "--", "npx", "-y", "@modelcontextprotocol/server-memory")
	if r.code != 0 || r.stdout != "Added source memory (namespace memory).\n" {
		t.Fatalf("add: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "memory", "--", "other"); r.code != exitFailure || !strings.Contains(r.stderr, "sources.memory: a source with this name exists") {
		t.Fatalf("duplicate add: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "my-docs", "--url", "http://127.0.0.1:9/mcp"); r.code != 0 || !strings.Contains(r.stdout, "namespace myDocs") {
		t.Fatalf("add http: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "gh", "--env", "GITHUB_TOKEN=ghp_x", "--", "npx"); r.code != exitFailure || !strings.Contains(r.stderr, "looks like a secret") || !strings.Contains(r.stderr, "hint: add the source without it") {
		t.Fatalf("secret in --env: %+v", r)
	}
	// A token on the program's command line would be in config.json and in
	// every local user's ps.
	if r := cli(t, home, "", "source", "add", "gh", "--", "npx", "-y", "server-github", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"); r.code != exitFailure ||
		!strings.Contains(r.stderr, "its command's argument 4 (the value of --token) looks like a secret; secrets never go into config.json, and every user of this machine can read a program's arguments (ps)") ||
		strings.Contains(r.stderr, "ghp_") {
		t.Fatalf("secret in the arguments: %+v", r)
	}
	r = cli(t, home, "", "source", "list")
	for _, want := range []string{"NAME", "memory", "stdio", "npx -y @modelcontextprotocol/server-memory", "my-docs", "myDocs", "http://127.0.0.1:9/mcp"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || cfg.Sources["memory"].Env["LOG"] != "debug" || len(cfg.Sources["memory"].Args) != 2 {
		t.Fatalf("config after add: %v %+v", err, cfg)
	}
	if r := cli(t, home, "", "source", "remove", "memory"); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if r := cli(t, home, "", "source", "remove", "memory"); r.code != exitFailure || !strings.Contains(r.stderr, "hint: sources: my-docs") {
		t.Fatalf("remove twice: %+v", r)
	}
}

func TestBrokenConfigIsNamed(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {"a": {"command": 1}}}`), 0o600)
	r := cli(t, home, "", "source", "list")
	want := filepath.Join(home, "config.json") + ": sources.a.command: must be a string"
	if r.code != exitFailure || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "hint:") {
		t.Fatalf("got %+v, want stderr with %q", r, want)
	}
	// The file is left as it was.
	if b, _ := os.ReadFile(filepath.Join(home, "config.json")); string(b) != `{"sources": {"a": {"command": 1}}}` {
		t.Fatalf("broken config was rewritten: %s", b)
	}
}

func TestPolicy(t *testing.T) {
	home := t.TempDir()
	// A source that never comes up: its rules are kept, with a warning.
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"sources": {"my-notes": {"command": "/nonexistent/notes-server"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, home, "", "policy", "list"); r.code != 0 || !strings.Contains(r.stdout, "No rules") {
		t.Fatalf("%+v", r)
	}
	// An allow or ask that matches nothing is refused, unless forced.
	r := cli(t, home, "", "policy", "set", "github.createIssue", "ASK")
	if r.code != exitFailure || !strings.Contains(r.stderr, "matches no tool and no source") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("unmatched ask: %+v", r)
	}
	if r := cli(t, home, "", "policy", "set", "github.createIssue", "ask", "--force"); r.code != 0 || !strings.Contains(r.stderr, "warning:") {
		t.Fatalf("forced ask: %+v", r)
	}
	// A deny is always kept, with the warning.
	if r := cli(t, home, "", "policy", "set", "filesystem", "deny"); r.code != 0 || !strings.Contains(r.stderr, "matches no tool and no source") {
		t.Fatalf("unmatched deny: %+v", r)
	}
	// A rule for a source that is not up yet names it; the source's config
	// name becomes its namespace.
	r = cli(t, home, "", "policy", "set", "my-notes.send_note", "allow")
	if r.code != 0 || !strings.Contains(r.stderr, "source my-notes has not listed its tools") || !strings.Contains(r.stdout, "myNotes.send_note allow (written my-notes.send_note)") {
		t.Fatalf("rule for a source not up yet: %+v", r)
	}
	if r := cli(t, home, "", "policy", "set", "bad key", "allow"); r.code != exitFailure || !strings.Contains(r.stderr, "not an address") {
		t.Fatalf("bad key: %+v", r)
	}
	// Every deny first, then the most specific; each with its origin.
	r = cli(t, home, "", "policy", "list")
	lines := strings.Split(r.stdout, "\n")
	if r.code != 0 || len(lines) < 4 {
		t.Fatalf("policy list: %+v", r)
	}
	for i, want := range [][]string{{"1", "filesystem", "deny", "cli", "every", "connection"}, {"2", "github.createIssue", "ask", "cli"}, {"3", "myNotes.send_note", "allow", "cli"}} {
		if got := strings.Fields(lines[i+1]); len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("policy list line %d = %q, want %q\n%s", i+1, lines[i+1], want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "warning: rule 1: filesystem matches no tool") {
		t.Errorf("policy list does not flag the rule that matches nothing:\n%s", r.stdout)
	}
	// policy remove, in the other naming form.
	if r := cli(t, home, "", "policy", "remove", "my-notes.send_note"); r.code != 0 || !strings.Contains(r.stdout, "Removed 1 rule for myNotes.send_note") {
		t.Fatalf("remove: %+v", r)
	}
	if r := cli(t, home, "", "policy", "remove", "github.createIsue"); r.code != exitFailure || !strings.Contains(r.stderr, "did you mean github.createIssue") {
		t.Fatalf("remove of no rule: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if strings.Contains(string(b), "send_note") || !strings.Contains(string(b), "github.createIssue") {
		t.Errorf("config.json after remove:\n%s", b)
	}
	if r := cli(t, home, "", "hub", "accept", "github.createIssue"); r.code != exitFailure || !strings.Contains(r.stderr, "no such tool or namespace") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("hub accept of an unknown tool: %+v", r)
	}
}

// requireKeychain skips without a Secret Service, except under CI.
func requireKeychain(t *testing.T) {
	t.Helper()
	if _, err := keychain.New().Get("probe/app-test"); errors.Is(err, keychain.ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("keychain must be reachable under CI: %v", err)
		}
		t.Skipf("no keychain (run through make test): %v", err)
	}
}

// homeKeychain is the keychain of the home (under the test service), as the
// CLI run by cli sees it; its entries are removed when the test ends.
func homeKeychain(t *testing.T, home string) *keychain.Home {
	t.Helper()
	kc, err := config.HomeKeychain(config.Paths{Home: home}, keychain.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kc.DeleteAll() })
	return kc
}

// assertNoSecretUnder fails when secret appears in any file under dir.
func assertNoSecretUnder(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("secret found in %s", p)
		}
		return nil
	})
}

func TestConnectionSecretGoesToTheKeychainOnly(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	src := fmt.Sprintf("gh%d", time.Now().UnixNano()%1e9)
	if r := cli(t, home, "", "source", "add", src, "--", "npx", "-y", "server-github"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	secret := "ghp_TestSecret" + fmt.Sprint(time.Now().UnixNano())
	r := cli(t, home, secret+"\n", "connection", "add", src, "work", "--env", "GITHUB_TOKEN")
	if r.code != 0 || !strings.Contains(r.stdout, "Added connection work of "+src) || strings.Contains(r.stdout, "It goes to") {
		t.Fatalf("connection add: %+v", r)
	}
	t.Cleanup(func() { kc.Delete(config.SecretKey(src, "work", "GITHUB_TOKEN")) })
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatal("the CLI printed the secret")
	}
	got, err := kc.Get(config.SecretKey(src, "work", "GITHUB_TOKEN"))
	if err != nil || got != secret {
		t.Fatalf("keychain holds %q, %v", got, err)
	}
	cfg, _ := config.Load(filepath.Join(home, "config.json"))
	if c := cfg.Sources[src].Connections["work"]; c == nil || !c.Default || c.Env["GITHUB_TOKEN"] != "${secret:GITHUB_TOKEN}" {
		t.Fatalf("connection in config: %+v", c)
	}
	// A second connection; --default moves the marker.
	if r := cli(t, home, "other-secret-value", "connection", "add", src, "personal", "--env", "GITHUB_TOKEN", "--default"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	t.Cleanup(func() { kc.Delete(config.SecretKey(src, "personal", "GITHUB_TOKEN")) })
	r = cli(t, home, "", "connection", "list", src)
	for _, want := range []string{"personal", "yes", "GITHUB_TOKEN (stored)", "work"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("connection list lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, secret) {
		t.Fatal("connection list printed the secret")
	}
	assertNoSecretUnder(t, home, secret)

	if r := cli(t, home, "", "connection", "add", src, "empty", "--env", "X"); r.code != exitFailure || !strings.Contains(r.stderr, "no secret on standard input") {
		t.Fatalf("empty stdin: %+v", r)
	}
	if r := cli(t, home, "", "connection", "remove", src, "work"); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if _, err := kc.Get(config.SecretKey(src, "work", "GITHUB_TOKEN")); !errors.Is(err, keychain.ErrNotFound) {
		t.Fatalf("secret still in the keychain after remove: %v", err)
	}
}

func TestImportClientConfig(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	token := fmt.Sprintf("ghp_Import%030d", time.Now().UnixNano())
	src := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	os.WriteFile(src, []byte(`{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "`+token+`"}},
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
	}}`), 0o600)
	r := cli(t, home, "", "source", "import", src)
	t.Cleanup(func() { kc.Delete(config.SecretKey("github", "default", "GITHUB_PERSONAL_ACCESS_TOKEN")) })
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"Imported github", "Imported memory", "Moved github.env.GITHUB_PERSONAL_ACCESS_TOKEN into the keychain"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got, _ := kc.Get(config.SecretKey("github", "default", "GITHUB_PERSONAL_ACCESS_TOKEN")); got != token {
		t.Errorf("keychain holds %q", got)
	}
	assertNoSecretUnder(t, home, token)
	r = cli(t, home, "", "source", "import", src)
	if !strings.Contains(r.stdout, "Skipped github") || !strings.Contains(r.stdout, "Nothing imported") {
		t.Errorf("second import: %+v", r)
	}
	if r := cli(t, home, "", "source", "import", src, "--only", "nope"); r.code != exitFailure || !strings.Contains(r.stderr, "it has: github, memory") {
		t.Errorf("--only unknown: %+v", r)
	}
}

// TestSourceAddChecksTheProgram: what is given as a stdio source's command
// is checked as the hub will start it, and a folder its relative paths
// name is kept whole, since the hub runs from a folder of its own.
func TestSourceAddChecksTheProgram(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "server"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "script.js"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	refused := []struct {
		args []string
		want string
	}{
		{[]string{"petstore", filepath.Join(dir, "petstore.json")}, "names a document, not a program to run: a REST API described by an OpenAPI document is added with \"openapi\" (source add NAME --openapi FILE)"},
		{[]string{"docs", "--", "https://mcp.example.com/mcp"}, "is a URL, not a program to run"},
		{[]string{"js", "--", filepath.Join(dir, "script.js")}, "has no execute permission): chmod +x it"},
		{[]string{"gone", "--", "./gone"}, `"./gone": no such program at ` + filepath.Join(dir, "gone")},
		{[]string{"lib", "--cwd", "nowhere", "--", "./server"}, "--cwd nowhere: no such folder"},
	}
	for _, tc := range refused {
		r := cli(t, home, "", append([]string{"source", "add"}, tc.args...)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("source add %v: %+v, want %q", tc.args, r, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused source was saved: %v", err)
	}

	r := cli(t, home, "", "source", "add", "mine", "--", "./server", "--root", "./data")
	if r.code != 0 || !strings.Contains(r.stdout, "It runs in "+dir+", the folder its command's relative paths name") {
		t.Fatalf("a program named by a relative path: %+v", r)
	}
	r = cli(t, home, "", "source", "add", "there", "--cwd", "data", "--", "../server")
	if r.code != 0 || strings.Contains(r.stdout, "It runs in") {
		t.Fatalf("a relative --cwd: %+v", r)
	}
	r = cli(t, home, "", "source", "add", "later", "--", "no-such-program-here", "--stdio")
	if r.code != 0 || !strings.Contains(r.stdout, `Note: command "no-such-program-here": no such program on PATH; the hub cannot start it until it finds the program.`) {
		t.Fatalf("a program this shell cannot find: %+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Sources["mine"]; s.Cwd != dir || s.Command != "./server" {
		t.Errorf("mine: %+v, want it to run ./server in %s", s, dir)
	}
	if s := cfg.Sources["there"]; s.Cwd != filepath.Join(dir, "data") {
		t.Errorf("there: cwd %q, want %s", s.Cwd, filepath.Join(dir, "data"))
	}
	if s := cfg.Sources["later"]; s.Cwd != "" {
		t.Errorf("later: cwd %q, want none", s.Cwd)
	}
}

// With no hub running, hub status says so with how to start one, and
// exits non-zero; hub stop has nothing to do.
func TestHubStatusWithoutAHub(t *testing.T) {
	home := t.TempDir()
	r := cli(t, home, "", "hub", "status")
	if r.code != exitFailure || r.stdout != "No hub is running for "+home+". Start it with 'capabilities hub' (an MCP client starts it through 'capabilities mcp').\n" {
		t.Errorf("hub status: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := cli(t, home, "", "hub", "stop"); r.code != 0 || r.stdout != "No hub is running for "+home+".\n" {
		t.Errorf("hub stop: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestErrorHintOnce: an error whose text carries its hint (the keychain's)
// prints the hint once, on the hint line.
func TestErrorHintOnce(t *testing.T) {
	var b bytes.Buffer
	printError(&b, "capabilities connection add", &keychain.UnavailableError{Op: "writing", Key: "source/gh/work/Authorization", Cause: "no session bus"})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != `capabilities connection add: keychain unavailable while writing "source/gh/work/Authorization": no session bus` ||
		!strings.HasPrefix(lines[1], "hint: start a Secret Service") || strings.Count(b.String(), "start a Secret Service") != 1 {
		t.Errorf("printed:\n%s", b.String())
	}
	b.Reset()
	printError(&b, "capabilities source remove", withHint(errors.New(`no source named "ghost"`), "there are no sources yet"))
	if b.String() != "capabilities source remove: no source named \"ghost\"\nhint: there are no sources yet\n" {
		t.Errorf("printed:\n%s", b.String())
	}
}

// TestSourceReplaceKeepsConnections: a source replaced with --replace by
// another version of its program keeps its connections, and says so; a
// program replaced by an HTTP server leaves them out, and their secrets go
// from the keychain, said too.
func TestSourceReplaceKeepsConnections(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	if err := kc.Set(config.SecretKey("gh", "work", "GITHUB_TOKEN"), "ghp_replaced"); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Sources: map[string]*config.Source{"gh": {Command: "npx", Args: []string{"-y", "server-github"},
		Connections: map[string]*config.Connection{"work": {Default: true, Env: map[string]string{"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}}}}}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	r := cli(t, home, "", "source", "add", "gh", "--replace", "--", "npx", "-y", "server-github@2")
	if r.code != 0 || !strings.Contains(r.stdout, "It keeps the connections of the source it replaces (work): their secrets go to it now.") {
		t.Fatalf("replaced by a program: %+v", r)
	}
	got, err := config.Load(filepath.Join(home, "config.json"))
	if c := got.Sources["gh"].Connections["work"]; err != nil || c == nil || !c.Default || c.Env["GITHUB_TOKEN"] != "${secret:GITHUB_TOKEN}" || got.Sources["gh"].Args[1] != "server-github@2" {
		t.Fatalf("config.json: %+v %v", got.Sources["gh"], err)
	}
	r = cli(t, home, "", "source", "add", "gh", "--replace", "--url", "https://mcp.example.com/mcp")
	if r.code != 0 || !strings.Contains(r.stdout, "Note: it reaches another program, folder or environment than the source it replaces, so that source's connections (work) are left out") {
		t.Fatalf("replaced by an HTTP server: %+v", r)
	}
	if got, err = config.Load(filepath.Join(home, "config.json")); err != nil || len(got.Sources["gh"].Connections) != 0 {
		t.Errorf("config.json: %+v %v", got.Sources["gh"], err)
	}
	if v, err := kc.Get(config.SecretKey("gh", "work", "GITHUB_TOKEN")); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("the secret of a connection left out stays in the keychain: %q %v", v, err)
	}
}

// TestImportReplaceElsewhere: a file imported with --replace that names a
// source holding a secret, at another origin, and reads the secret by its
// reference, gets neither the connection nor the secret: the keychain no
// longer holds it, and the output says why. At the same origin the
// connection and its secret stay.
func TestImportReplaceElsewhere(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	key := config.SecretKey("bank", "default", "BANK_KEY")
	secret := fmt.Sprintf("bank-key-%d", time.Now().UnixNano())
	put := func() {
		cfg := &config.Config{Sources: map[string]*config.Source{"bank": {URL: "http://127.0.0.1:9/mcp",
			Connections: map[string]*config.Connection{"default": {Default: true, Headers: map[string]string{"Authorization": "Bearer ${secret:BANK_KEY}"}}}}}}
		if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
			t.Fatal(err)
		}
		if err := kc.Set(key, secret); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	put()
	os.WriteFile(file, []byte(`{"sources": {"bank": {"url": "http://127.0.0.2:9/mcp",
		"connections": {"default": {"default": true, "headers": {"Authorization": "Bearer ${secret:BANK_KEY}"}}}}}}`), 0o600)
	r := cli(t, home, "", "source", "import", file, "--replace")
	if r.code != 0 || !strings.Contains(r.stdout, "Imported bank (namespace bank).\nNote: it reaches another origin than the source it replaces, so that source's connections (default) are left out and their secrets and sign-ins removed from the keychain") {
		t.Fatalf("import at another origin: %+v", r)
	}
	if v, err := kc.Get(key); !errors.Is(err, keychain.ErrNotFound) {
		t.Errorf("the keychain still holds the secret for the new origin to read: %q %v", v, err)
	}
	got, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || got.Sources["bank"].URL != "http://127.0.0.2:9/mcp" {
		t.Fatalf("config.json: %+v %v", got, err)
	}

	put()
	os.WriteFile(file, []byte(`{"mcpServers": {"bank": {"url": "http://127.0.0.1:9/v2/mcp"}}}`), 0o600)
	r = cli(t, home, "", "source", "import", file, "--replace")
	if r.code != 0 || !strings.Contains(r.stdout, "It keeps the connections of the source it replaces (default): their secrets go to it now.") {
		t.Fatalf("import at the same origin: %+v", r)
	}
	if v, err := kc.Get(key); err != nil || v != secret {
		t.Errorf("the secret of a connection kept: %q %v", v, err)
	}
	if got, err = config.Load(filepath.Join(home, "config.json")); err != nil || got.Sources["bank"].Connections["default"] == nil {
		t.Errorf("config.json: %+v %v", got.Sources["bank"], err)
	}
}

// TestReplaceWithoutAKeychain: without a keychain (the binary run with a
// session bus that does not connect), a source replaced at another origin
// whose connection holds a secret is refused, config.json unchanged, since
// the secret could not be removed and the new server would be sent it; one
// with no connection is replaced, the sign-ins the keychain may hold being
// bound to the old server, and a warning says so.
func TestReplaceWithoutAKeychain(t *testing.T) {
	bin, home := binary(t), t.TempDir()
	path := filepath.Join(home, "config.json")
	replace := func() (string, error) {
		cmd := exec.Command(bin, "source", "add", "x", "--replace", "--url", "http://127.0.0.2:9/mcp")
		cmd.Env = append(os.Environ(), "CAPABILITIES_HOME="+home, "DBUS_SESSION_BUS_ADDRESS=disabled:")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	keyed := &config.Config{Sources: map[string]*config.Source{"x": {URL: "http://127.0.0.1:9/mcp",
		Connections: map[string]*config.Connection{"default": {Default: true, Headers: map[string]string{"Authorization": "${secret:Authorization}"}}}}}}
	if err := keyed.Save(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if out, err := replace(); err == nil || !strings.Contains(out, "removing the secrets of the source x replaces, which it must not send: keychain unavailable") {
		t.Errorf("a replace that would leave a secret for another origin: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("config.json changed:\n%s", after)
	}
	bare := &config.Config{Sources: map[string]*config.Source{"x": {URL: "http://127.0.0.1:9/mcp"}}}
	if err := bare.Save(path); err != nil {
		t.Fatal(err)
	}
	if out, err := replace(); err != nil || !strings.Contains(out, "warning: the keychain is unavailable: the sign-ins of the source x replaces stay in it, bound to its server\n") {
		t.Errorf("a replace with nothing to send elsewhere: %v\n%s", err, out)
	}
	if got, err := config.Load(path); err != nil || got.Sources["x"].URL != "http://127.0.0.2:9/mcp" {
		t.Errorf("config.json: %+v %v", got, err)
	}
}

// TestConnectionAddSaysWhereTheSecretGoes: a secret added to an MCP
// server's connection is said to go to the server's origin only.
func TestConnectionAddSaysWhereTheSecretGoes(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	homeKeychain(t, home)
	if r := cli(t, home, "", "source", "add", "docs", "--url", "https://mcp.example.com/v1/mcp"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	r := cli(t, home, "Bearer t0ken-value\n", "connection", "add", "docs", "default", "--header", "Authorization")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "secret Authorization stored in the keychain.\nIt goes to https://mcp.example.com only.\n") {
		t.Errorf("connection add: %+v", r)
	}
}

// TestConnectionAddRefusesABadHeader: a header name HTTP does not allow is
// refused before the secret is read or anything written.
func TestConnectionAddRefusesABadHeader(t *testing.T) {
	home := t.TempDir()
	if r := cli(t, home, "", "source", "add", "docs", "--url", "https://mcp.example.com/mcp"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	r := cli(t, home, "s3cret", "connection", "add", "docs", "work", "--header", "X Api Key")
	if r.code != exitUsage || !strings.Contains(r.stderr, `--header "X Api Key" is not a header name`) {
		t.Errorf("%+v", r)
	}
	if cfg, err := config.Load(filepath.Join(home, "config.json")); err != nil || len(cfg.Sources["docs"].Connections) != 0 {
		t.Errorf("config.json: %+v %v", cfg.Sources["docs"], err)
	}
}
