package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// hangSource is a server that never answers the MCP handshake.
var hangSource = &config.Source{Command: "node", Args: []string{"-e", "setInterval(() => {}, 1000)"}}

// normalizeEnvelope drops what differs between two runs of the same code:
// the run id and the call times.
func normalizeEnvelope(t *testing.T, text string) string {
	t.Helper()
	var env hub.Envelope
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("not an envelope: %v\n%s", err, text)
	}
	id := env.RunID
	env.RunID = "r"
	for i := range env.Calls {
		env.Calls[i].Ms = 0
	}
	for i := range env.Pending {
		env.Pending[i].ID = "p"
		env.Pending[i].Message = strings.ReplaceAll(env.Pending[i].Message, id, "r")
	}
	return env.Line()
}

// coldRound is what a client sends first on a fresh home.
type coldRound struct{ search, searchBroken, describe, describeBroken, execute string }

func coldExchange(t *testing.T, cs *mcp.ClientSession) coldRound {
	t.Helper()
	var r coldRound
	r.search, _ = callText(t, cs, "search", map[string]any{"query": "create entities in the knowledge graph"})
	r.searchBroken, _ = callText(t, cs, "search", map[string]any{"query": "", "namespace": "broken"})
	r.describe, _ = callText(t, cs, "describe", map[string]any{"targets": []string{"memory.createEntities"}})
	r.describeBroken, _ = callText(t, cs, "describe", map[string]any{"targets": []string{"broken.query"}})
	code := `const out = { n: (await memory.readGraph({})).entities.length };
for (const [name, f] of [["broken", () => broken.query({})], ["gone", () => gone.anything({})], ["off", () => off.echo({})]]) {
	try { await f(); out[name] = "called"; } catch (e) { out[name] = [e.name, e.code, e.retryable, e.message]; }
}
return out;`
	text, _ := callText(t, cs, "execute", map[string]any{"code": code})
	r.execute = normalizeEnvelope(t, text)
	return r
}

// TestColdStartAnswersAsWhenSettled: on a home whose catalog never listed
// its sources, the first search, describe and execute, sent at once, wait
// for the sources still starting and answer as they do once the catalog
// has settled; sources that are down or disabled are named with why, in
// every answer.
func TestColdStartAnswersAsWhenSettled(t *testing.T) {
	bothVersions(t, testColdStartAnswersAsWhenSettled)
}

func testColdStartAnswersAsWhenSettled(t *testing.T, version string) {
	h := stateHub(t)
	cs := connect(t, h, version, nil)
	start := time.Now()
	first := coldExchange(t, cs)
	t.Logf("first round took %v", time.Since(start).Round(time.Millisecond))
	second := coldExchange(t, cs)
	if first != second {
		t.Errorf("the first answers differ from the settled ones:\nfirst:  %+v\nsecond: %+v", first, second)
	}

	if !strings.Contains(first.search, "memory.createEntities(") {
		t.Errorf("the first search does not find memory.createEntities:\n%s", first.search)
	}
	for _, want := range []string{"broken is down, so its tools are not listed", "boom: cannot open the database", "gone is down", "locked needs a secret", "capabilities connection add locked work"} {
		if !strings.Contains(first.search, want) {
			t.Errorf("the search does not say %q:\n%s", want, first.search)
		}
	}
	if strings.Contains(first.search, "off") {
		t.Errorf("the search names the disabled source:\n%s", first.search)
	}
	if !strings.Contains(first.searchBroken, "broken is down") || !strings.Contains(first.searchBroken, "boom: cannot open the database") {
		t.Errorf("search in namespace broken does not say it is down and why:\n%s", first.searchBroken)
	}
	if !strings.Contains(first.describe, "createEntities(input:") {
		t.Errorf("the first describe:\n%s", first.describe)
	}
	if !strings.Contains(first.describeBroken, "broken is down") {
		t.Errorf("describe of a tool of a down source:\n%s", first.describeBroken)
	}
	var env hub.Envelope
	json.Unmarshal([]byte(first.execute), &env)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(env.Result, &out); env.Status != hub.StatusCompleted || err != nil {
		t.Fatalf("the first execute: %s", first.execute)
	}
	if string(out["n"]) != "0" {
		t.Errorf("memory.readGraph: %s", out["n"])
	}
	for name, re := range map[string]string{
		"broken": `^\["ToolError","source_unavailable",true,"source broken is down: starting the server: it exited \(exit status 3\); its last output: boom: cannot open the database"\]$`,
		"gone":   `^\["ToolError","source_unavailable",false,"source gone is down: starting .*no-such-server.*"\]$`,
		"off":    `^\["ToolError","source_unavailable",false,"source off is disabled in the config"\]$`,
	} {
		if !regexp.MustCompile(re).Match(out[name]) {
			t.Errorf("calling %s: %s; want %s", name, out[name], re)
		}
	}
}

// TestUnlistedSourceAwaitsItsConnection: a source never listed because its
// default connection has no secret is a namespace; a call to it waits for
// the connection, and once the secret is stored, the resumed run lists the
// source and makes the call.
func TestUnlistedSourceAwaitsItsConnection(t *testing.T) {
	bothVersions(t, testUnlistedSourceAwaitsItsConnection)
}

func testUnlistedSourceAwaitsItsConnection(t *testing.T, version string) {
	h := stateHub(t)
	h.Refresh(context.Background(), "locked")
	cs := connect(t, h, version, nil)
	text, _ := callText(t, cs, "execute", map[string]any{"code": `return await locked.echo({ message: "hi" });`})
	var env hub.Envelope
	json.Unmarshal([]byte(text), &env)
	if env.Status != hub.StatusAwaitingConnection || len(env.Pending) != 1 || env.Pending[0].Kind != hub.KindConnection ||
		!strings.Contains(env.Pending[0].Message, "capabilities connection add locked work") {
		t.Fatalf("%s", text)
	}
	text, _ = callText(t, cs, "execute", map[string]any{"resume": env.RunID})
	if again := normalizeEnvelope(t, text); again != normalizeEnvelope(t, env.Line()) {
		t.Fatalf("resume without the secret: %s", text)
	}
	if err := h.SetSecret(context.Background(), "locked", "work", "s3cret-value"); err != nil {
		t.Fatal(err)
	}
	text, _ = callText(t, cs, "execute", map[string]any{"resume": env.RunID})
	json.Unmarshal([]byte(text), &env)
	if env.Status != hub.StatusCompleted || !strings.Contains(string(env.Result), "hi") {
		t.Fatalf("resume with the secret: %s", text)
	}
}

// TestStartupWaitIsBounded: a source that never finishes starting holds
// the first search and execute for the start-up bound only; they answer
// from what is known and say it is still starting.
func TestStartupWaitIsBounded(t *testing.T) {
	// Long enough that an answer that does not wait never takes as long.
	const startupBound = 3 * time.Second
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"memory": memorySource(t), "hang": hangSource}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(home + "/config.json"); err != nil {
		t.Fatal(err)
	}
	h, err := hub.New(context.Background(), hub.Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{}, StartupWait: startupBound})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background(), "memory"); len(errs) > 0 {
		t.Fatal(errs)
	}
	cs := connect(t, h, "2026-07-28", nil)
	out, _ := callText(t, cs, "search", map[string]any{"query": "read the knowledge graph"})
	if !strings.Contains(out, "memory.readGraph(") || !strings.Contains(out, "hang is still starting: its tools are not listed yet") {
		t.Errorf("search with a source that never starts:\n%s", out)
	}
	// Once a wait gave up on it, the next requests answer at once, the
	// same way, while its listing goes on.
	start := time.Now()
	if again, _ := callText(t, cs, "search", map[string]any{"query": "read the knowledge graph"}); again != out {
		t.Errorf("the second search:\n%s\nthe first:\n%s", again, out)
	}
	if took := time.Since(start); took >= startupBound {
		t.Errorf("the second search took %v; it waited again", took)
	}
	text, _ := callText(t, cs, "execute", map[string]any{"code": `try { await hang.anything({}); } catch (e) { return [e.code, e.retryable, e.message]; }`})
	var env hub.Envelope
	json.Unmarshal([]byte(text), &env)
	if want := `["source_unavailable",true,"source hang is still starting: its tools are not listed yet"]`; string(env.Result) != want {
		t.Errorf("a call to a source still starting: %s; want result %s", text, want)
	}
}
