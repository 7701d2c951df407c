package hub

// Hostile names: upstream tool names and source names that are not
// JavaScript identifiers, or that collide, against real go-sdk servers
// written to misbehave, through execute.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	if got := sortedKeys(h.Config().Sources); strings.Join(got, ",") != "notes" {
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
		if !strings.Contains(st.ConfigError, want) {
			t.Errorf("status configError lacks %q:\n%s", want, st.ConfigError)
		}
	}
	if !strings.Contains(logs.String(), "sources.eval") {
		t.Errorf("the log does not name the refused source:\n%s", logs.String())
	}

	// An edit through the hub keeps the refused sources in the file.
	if err := h.SetPolicy(context.Background(), "notes", Allow); err != nil {
		t.Fatalf("SetPolicy with a refused source in the file: %v", err)
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Refused()) != 4 || cfg.Policy["notes"] != Allow {
		t.Fatalf("after an edit: refused %v, policy %v", cfg.Refused(), cfg.Policy)
	}
	if !cfg.DropRefused("eval") || cfg.DropRefused("eval") || cfg.DropRefused("notes") {
		t.Fatal("DropRefused drops a refused source once, and only a refused one")
	}
	if err := cfg.Save(file); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Refused()) != 3 || strings.Contains(cfg.Refused().Error(), "sources.eval") {
		t.Errorf("after dropping eval: %v", cfg.Refused())
	}

	// Adding one by name is refused outright, with the suggestion.
	err = cfg.AddSource(file, "hub", &Source{URL: url}, false)
	if err == nil || !strings.Contains(err.Error(), "sources.hub") || !strings.Contains(err.Error(), `"hub-mcp"`) {
		t.Errorf("AddSource(hub) = %v", err)
	}
}

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
