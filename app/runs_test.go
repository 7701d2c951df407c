package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// hub runs RUNID shows the run's calls with the arguments the journal kept
// and who let each through; --json has them too; an unknown run fails.
func TestHubRunsShowsOneRun(t *testing.T) {
	home := t.TempDir()
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	cfg := &config.Config{Sources: map[string]*config.Source{"svc": {URL: url}}, Policy: map[string]config.Mode{"svc.echo": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	// The run is made by a hub of the test's own, as a client's execute
	// would; the CLI then opens the home.
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, Keychain: &hubtest.MemKeychain{}, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	env, err := h.Execute(ctx, hub.ExecuteRequest{Code: `return await svc.echo({ text: "from the terminal" });`, Client: "test"})
	h.Close()
	if err != nil || env.Status != hub.StatusCompleted {
		t.Fatalf("execute: %v %+v", err, env)
	}
	r := cli(t, home, "", "hub", "runs", env.RunID)
	for _, want := range []string{env.RunID + "  completed", "code:\n  return await svc.echo(", "#1  svc.echo  ok  (",
		"  decision: no approval asked (policy allowed it)\n  arguments: {\"text\":\"from the terminal\"}\n  result: "} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("hub runs %s: %q not in\n%s%s", env.RunID, want, r.stdout, r.stderr)
		}
	}
	r = cli(t, home, "", "hub", "runs", env.RunID, "--json")
	var d localapi.RunDetail
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || len(d.Calls) != 1 || d.Calls[0].Args != `{"text":"from the terminal"}` {
		t.Errorf("hub runs --json: %v %+v", err, r)
	}
	if r := cli(t, home, "", "hub", "runs", "run_none"); r.code != exitFailure || !strings.Contains(r.stderr, "no run run_none") || !strings.Contains(r.stderr, "hub runs") {
		t.Errorf("an unknown run: %+v", r)
	}
	if r := cli(t, home, "", "hub", "runs", "a", "b"); r.code == 0 || !strings.Contains(r.stderr, "at most one RUNID") {
		t.Errorf("two runs: %+v", r)
	}
}

// A call's arguments in hub runs RUNID are on one line: JSON compacted,
// and a preview cut at its size (indented JSON and the line that says
// where) with its indents dropped; it read "{;   \"text\": ...".
func TestArgsLine(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"to\": \"me\"\n}": `{"to":"me"}`,
		"{\n  \"text\": \"word  word…\n… (cut here: the arguments are 2.9 MB; the first 64 KB are shown)": `{ "text": "word  word… … (cut here: the arguments are 2.9 MB; the first 64 KB are shown)`,
	} {
		if got := argsLine(in); got != want {
			t.Errorf("argsLine(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// The runs list cuts code at 50 bytes at a character: it cut one in half.
func TestShortenKeepsCharacters(t *testing.T) {
	code := `return await notes.add({ text: "日本語のメモ" });`
	got := shorten(code, 50)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 50+len("…") {
		t.Errorf("shorten(%q, 50) = %q", code, got)
	}
}

// The runs list names a direct-mode call's tool where it showed the line
// that marks such a run.
func TestRunCodeLine(t *testing.T) {
	for code, want := range map[string]string{
		sandbox.CallShown(sandbox.CallCode("notes", "sendNote", json.RawMessage(`{"to":"me"}`), "")): `(direct) notes["sendNote"](JSON.parse(/* the call…`,
		"const a = 1;\nreturn a;": "const a = 1;; return a;",
	} {
		if got := runCodeLine(code); got != want {
			t.Errorf("runCodeLine(%q) = %q, want %q", code, got, want)
		}
	}
}
