package hub

// Hostile names: upstream tool names and source names that are not
// JavaScript identifiers, or that collide, against real go-sdk servers
// written to misbehave, through execute.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/sandbox"
)

// maxJSName is the longest method name.
const maxJSName = naming.MaxLen

// nameHash is the tag a method name takes from the hash of its MCP name:
// the first four bytes of its SHA-256, in hex.
func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

// readOnlyTool adds a read-only tool that answers with its own MCP name,
// so a test sees which upstream tool an address reached.
func readOnlyTool(server *mcp.Server, name string) {
	server.AddTool(&mcp.Tool{Name: name, Description: "Answers with its name: " + name,
		InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
		})
}

// namedServer is a go-sdk server over HTTP with read-only tools of these
// names.
func namedServer(t *testing.T, names ...string) (*mcp.Server, string) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "named", Version: "1"}, nil)
	for _, n := range names {
		readOnlyTool(server, n)
	}
	return server, httpUpstream(t, server, "", "").URL
}

// execOK runs code and fails the test unless the run completes; it returns
// the result as JSON.
func execOK(t *testing.T, h *Hub, code string) string {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: code, Client: "test"})
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	if env.Status != StatusCompleted {
		t.Fatalf("Execute(%q): %s %+v", code, env.Status, env.Error)
	}
	return string(env.Result)
}

// A source whose name is not a usable namespace is refused with the file,
// the key and a suggestion; the other sources keep serving, the refused
// one stays in the file through an edit, and `source remove` can drop it.
func TestSourceNamesRefusedAloneByTheSandboxCheck(t *testing.T) {
	_, url := namedServer(t, "list_notes")
	home := t.TempDir()
	file := filepath.Join(home, "config.json")
	body := `{"sources": {
		"notes": {"url": "` + url + `"},
		"eval": {"url": "` + url + `"},
		"parseInt": {"url": "` + url + `"},
		"arguments": {"url": "` + url + `"},
		"console": {"url": "` + url + `"}
	}}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	logger, logs := debugLogger()
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Logger: logger})
	if err != nil {
		t.Fatalf("a config with one badly named source must still start the hub: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := slices.Sorted(maps.Keys(h.Config().Sources)); strings.Join(got, ",") != "notes" {
		t.Errorf("served sources = %v, want only notes", got)
	}
	if got := execOK(t, h, "return 1 + 1"); got != "2" {
		t.Errorf("return 1 + 1 = %s", got)
	}
	if got := execOK(t, h, "return await notes.listNotes()"); got != `"list_notes"` {
		t.Errorf("notes.listNotes() = %s", got)
	}
	if got := execOK(t, h, "return parseInt('42') + eval.length"); got == "" {
		t.Errorf("parseInt and eval are the sandbox's: %s", got)
	}

	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{file, "sources.eval", "reserved", `"eval-mcp"`, "sources.parseInt", "parseInt-mcp",
		"sources.arguments", "sources.console", "not served"} {
		if !strings.Contains(st.Refused, want) {
			t.Errorf("status refused lacks %q:\n%s", want, st.Refused)
		}
	}
	if !strings.Contains(logs.String(), "sources.eval") {
		t.Errorf("the log does not name the refused source:\n%s", logs.String())
	}

	// An edit through the hub keeps the refused sources in the file.
	if err := h.SetPolicy(context.Background(), "notes", config.Allow); err != nil {
		t.Fatalf("SetPolicy with a refused source in the file: %v", err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Refused()) != 4 || cfg.Policy["notes"] != config.Allow {
		t.Fatalf("after an edit: refused %v, policy %v", cfg.Refused(), cfg.Policy)
	}
	if !cfg.DropRefused("eval") || cfg.DropRefused("eval") || cfg.DropRefused("notes") {
		t.Fatal("DropRefused drops a refused source once, and only a refused one")
	}
	if err := cfg.Save(file); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Refused()) != 3 || strings.Contains(cfg.Refused().Error(), "sources.eval") {
		t.Errorf("after dropping eval: %v", cfg.Refused())
	}

	// Adding one by name is refused outright, with the suggestion.
	err = cfg.AddSource(file, "hub", &config.Source{URL: url}, false)
	if err == nil || !strings.Contains(err.Error(), "sources.hub") || !strings.Contains(err.Error(), `"hub-mcp"`) {
		t.Errorf("AddSource(hub) = %v", err)
	}
}

// hostileNames are upstream tool names a careless or hostile server
// sends.
var hostileNames = []string{
	"café", "naïve-search", "straße", "a.b/c", "", strings.Repeat("x", 5000), "__proto__", "constructor",
	"then", "toString", "工具", "🚀", "x\ny", "\u202eevil", "tools/list", "send note", "1st", "$", "ＡＢＣ",
}

// openHub opens a hub on home (its config already written), closed when
// the test ends, without listing its sources.
func openHub(t *testing.T, home string, logger *slog.Logger) *Hub {
	t.Helper()
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// One upstream with hostile tool names affects neither the other sources
// nor code that calls no tool; each of its tools with a name gets a safe
// address that reaches it, and the one without a name is skipped with a
// warning.
func TestHostileToolNames(t *testing.T) {
	_, hostileURL := namedServer(t, hostileNames...)
	_, notesURL := namedServer(t, "list_notes")
	home := t.TempDir()
	cfg := testConfig(map[string]*config.Source{"hostile": {URL: hostileURL}, "notes": {URL: notesURL}})
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	logger, logs := debugLogger()
	h := openHub(t, home, logger)
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, "return 1 + 1"); got != "2" {
		t.Errorf("return 1 + 1 = %s", got)
	}
	if got := execOK(t, h, "return await notes.listNotes()"); got != `"list_notes"` {
		t.Errorf("notes.listNotes() = %s", got)
	}

	snap := h.catalog.Snapshot()
	seen := map[string]bool{}
	for _, tool := range snap.BySource("hostile") {
		if err := sandbox.CheckTool(tool.JSName); err != nil || len(tool.JSName) > maxJSName || seen[tool.JSName] {
			t.Errorf("tool %q has the address %s: %v", naming.Truncate(tool.Name), tool.Address, err)
		}
		seen[tool.JSName] = true
		want, _ := json.Marshal(tool.Name)
		if got := execOK(t, h, "return await "+tool.Address+"()"); got != string(want) {
			t.Errorf("%s reached %s, want %s", tool.Address, naming.Truncate(got), naming.Truncate(string(want)))
		}
	}
	if got, want := len(snap.BySource("hostile")), len(hostileNames)-1; got != want {
		t.Errorf("hostile has %d tools, want %d (all but the empty name)", got, want)
	}
	for name, want := range map[string]string{"café": "cafe", "naïve-search": "naiveSearch", "straße": "strasse", "a.b/c": "aBC",
		"__proto__": "proto", "constructor": "constructor_", "then": "then_", "toString": "toString_", "1st": "_1st",
		"ＡＢＣ": "abc", "工具": "tool_" + nameHash("工具")} {
		if tool := toolNamed(snap, "hostile", name); tool == nil || tool.JSName != want {
			t.Errorf("tool %q: %+v, want the method %s", name, tool, want)
		}
	}
	if got := execOK(t, h, "return (await Promise.resolve(hostile)) === hostile && typeof hostile.then"); got != `"undefined"` {
		t.Errorf("the namespace is a thenable: %s", got)
	}
	if !strings.Contains(logs.String(), "skipping a tool without a name") {
		t.Errorf("no warning for the tool without a name:\n%s", logs.String())
	}
	st, err := h.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Sources {
		if got := strings.Join(s.Warnings, "\n"); (s.Name == "hostile") != strings.Contains(got, `skipped tool "": it has no name`) {
			t.Errorf("source %s warnings: %q", s.Name, got)
		}
	}
}

// name-shifting: a tool an upstream adds beside an approved one never takes
// its address, across list_changed, restarts, removal and a store that
// predates addresses.
func TestAddressesAreStable(t *testing.T) {
	ctx := context.Background()
	server, url := namedServer(t, "send_note")
	home := t.TempDir()
	if err := testConfig(map[string]*config.Source{"notes": {URL: url}}).Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	logger, logs := debugLogger()
	h := openHub(t, home, logger)
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, "return await notes.sendNote()"); got != `"send_note"` {
		t.Fatalf("notes.sendNote() = %s", got)
	}

	readOnlyTool(server, "send-note") // sorts before send_note
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := `{"sendNote":"send_note","sendNote2":"send-note"}`
	calls := `return {sendNote: await notes.sendNote(), sendNote2: await notes.sendNote2()}`
	if got := execOK(t, h, calls); got != want {
		t.Fatalf("after send-note was added: %s, want %s", got, want)
	}
	if !strings.Contains(logs.String(), "taken=notes.sendNote by=send_note") {
		t.Errorf("no warning that send-note's address was taken:\n%s", logs.String())
	}

	// A restart answers from the store, before and after listing again.
	h.Close()
	h = openHub(t, home, nil)
	if got := execOK(t, h, calls); got != want {
		t.Fatalf("after a restart: %s, want %s", got, want)
	}
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, calls); got != want {
		t.Fatalf("after a restart and a listing: %s, want %s", got, want)
	}

	// Removed, the address stays the tool's: added back, it has it again.
	server.RemoveTools("send_note")
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, ok := h.catalog.Snapshot().Lookup("notes.sendNote"); ok {
		t.Fatal("notes.sendNote is still listed after send_note was removed")
	}
	if got := execOK(t, h, "return await notes.sendNote2()"); got != `"send-note"` {
		t.Fatalf("notes.sendNote2() = %s", got)
	}
	readOnlyTool(server, "send_note")
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, calls); got != want {
		t.Fatalf("after send_note came back: %s, want %s", got, want)
	}

	// A store from before addresses were kept gets the addresses the tools
	// had: the same rule, over the tools it holds.
	if err := rawExec(t, h.db, `DELETE FROM addresses`); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h = openHub(t, home, nil)
	want = `{"sendNote":"send-note","sendNote2":"send_note"}` // as ToolNames named them
	if got := execOK(t, h, calls); got != want {
		t.Fatalf("after the addresses were lost: %s, want %s", got, want)
	}
}

// A server that lists new names on every listing cannot grow the stored
// addresses without end: a source keeps those of catalog.maxTools tools it
// no longer lists.
func TestRetiredAddressesAreBounded(t *testing.T) {
	ctx := context.Background()
	server, url := namedServer(t, "keep")
	home := t.TempDir()
	body := `{"sources": {"churn": {"url": "` + url + `"}}, "catalog": {"maxTools": 3}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHub(t, home, nil)
	for i := range 10 {
		a, b := "churn_a"+strconv.Itoa(i), "churn_b"+strconv.Itoa(i)
		readOnlyTool(server, a)
		readOnlyTool(server, b)
		if errs := h.Refresh(ctx); len(errs) > 0 {
			t.Fatal(errs)
		}
		server.RemoveTools(a, b)
	}
	addrs, err := h.db.Addresses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := len(addrs["churn"])
	// keep and the last two listed, plus three retired.
	if n != 6 {
		t.Errorf("%d addresses kept, want 6", n)
	}
	if got := execOK(t, h, "return await churn.keep()"); got != `"keep"` {
		t.Errorf("churn.keep() = %s", got)
	}
}

// The attack of name shifting: with an allow rule for notes.sendNote, an
// upstream that adds send-note (which sorts first) does not get its calls
// run under that rule; send_note keeps the address and the rule.
func TestNewToolDoesNotInheritAnAddressRule(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	sender := func(name string) {
		server.AddTool(&mcp.Tool{Name: name, Description: "Send a note.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	sender("send_note")
	home := t.TempDir()
	cfg := testConfig(map[string]*config.Source{"notes": {URL: httpUpstream(t, server, "", "").URL}})
	cfg.Policy["notes.sendNote"] = config.Allow
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHub(t, home, nil)
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, "return await notes.sendNote()"); got != `"send_note"` {
		t.Fatalf("notes.sendNote() = %s", got)
	}
	sender("send-note")
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := execOK(t, h, "return await notes.sendNote()"); got != `"send_note"` {
		t.Errorf("after send-note was added, notes.sendNote() = %s", got)
	}
	env, err := h.Execute(ctx, ExecuteRequest{Code: "return await notes.sendNote2()", Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 || env.Pending[0].Address != "notes.sendNote2" {
		t.Errorf("notes.sendNote2 (send-note) ran under the rule of notes.sendNote: %s %+v %s", env.Status, env.Pending, env.Result)
	}
}
