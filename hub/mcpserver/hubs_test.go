package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// The hubs these tests serve: real ones, opened through the heart's own
// API over the reference servers of testdata/npm or go-sdk servers on
// loopback, and fakeHub (mcpserver_test.go) for what needs no heart.

// The fakes and the sandbox workers some tests start run in this test
// binary, re-executed.
func TestMain(m *testing.M) { hubtest.Main(m) }

// connect runs an MCP server of New over h and a go-sdk client on in-memory
// transports, at protocol version.
func connect(t *testing.T, h Hub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	srv := New(h, Options{Version: "test"})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectServer runs srv on in-memory transports and connects a go-sdk
// client named name to it, at protocol version ("" for the client's own),
// both closed when the test ends.
func connectServer(t *testing.T, srv *mcp.Server, name, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, ct, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectProfile is connectServer to profile's server of s.
func connectProfile(t *testing.T, s *Servers, profile, name, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	srv, err := s.Server(profile)
	if err != nil {
		t.Fatal(err)
	}
	return connectServer(t, srv, name, version, opts)
}

// clientVersions are the protocol versions a client-facing test runs at.
var clientVersions = []string{"2026-07-28", "2025-11-25"}

// bothVersions runs test once for each of clientVersions, as a subtest.
func bothVersions(t *testing.T, test func(t *testing.T, version string)) {
	for _, version := range clientVersions {
		t.Run(version, func(t *testing.T) { test(t, version) })
	}
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return hubtest.TextOf(res)
}

// clientExec runs code through a go-sdk client's execute and returns the
// envelope of its structured content, after checking the text line says
// the same.
func clientExec(t *testing.T, cs *mcp.ClientSession, code string) *hub.Envelope {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var env hub.Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("structured content is not an envelope: %v\n%s", err, b)
	}
	var structured, line any
	json.Unmarshal(b, &structured)
	if err := json.Unmarshal([]byte(resultText(res)), &line); err != nil || !reflect.DeepEqual(structured, line) {
		t.Fatalf("the text line and the structured envelope differ:\n%s\n%s", resultText(res), b)
	}
	return &env
}

// openHub opens a hub in home with opts (ConfigPoll -1 unless set), closed
// when the test ends.
func openHub(t testing.TB, home string, opts hub.Options) *hub.Hub {
	t.Helper()
	opts.Home = home
	if opts.ConfigPoll == 0 {
		opts.ConfigPoll = -1
	}
	h, err := hub.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// saveConfig writes cfg as home's config.json.
func saveConfig(t testing.TB, home string, cfg *config.Config) {
	t.Helper()
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
}

// e2eHub is a hub over the everything and memory reference servers.
type e2eHub struct {
	*hub.Hub
	memFile string
}

// e2eNewHub starts a hub over the real everything and memory servers, with
// the in-process sandbox driver, the given options and extra sources.
func e2eNewHub(t *testing.T, opts hub.Options, extra map[string]*config.Source) *e2eHub {
	t.Helper()
	home := t.TempDir()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := &config.Config{Sources: map[string]*config.Source{
		"everything": {Command: hubtest.NpmServer(t, "mcp-server-everything"), Args: []string{"stdio"}},
		"memory":     {Command: hubtest.NpmServer(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": memFile}},
	}, Policy: map[string]config.Mode{}}
	for k, v := range extra {
		cfg.Sources[k] = v
	}
	saveConfig(t, home, cfg)
	h := openHub(t, home, opts)
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		for src, err := range errs {
			if _, isExtra := extra[src]; !isExtra {
				t.Fatalf("refresh %s: %v", src, err)
			}
		}
	}
	return &e2eHub{Hub: h, memFile: memFile}
}

// entities counts the entities in the memory server's file: the side
// effect, counted on the upstream itself.
func (h *e2eHub) entities(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(h.memFile)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"type":"entity"`)
}

// createAda creates an entity in the memory server, which asks.
const createAda = `await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] }); return (await memory.readGraph({})).entities.length;`

// memorySource is the memory reference server as a stdio source.
func memorySource(t testing.TB) *config.Source {
	return &config.Source{Command: hubtest.NpmServer(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}
}

// hubOver opens a hub whose only source, named source, is server over
// HTTP on loopback, with its tools listed.
func hubOver(t testing.TB, source string, server *mcp.Server) *hub.Hub {
	t.Helper()
	return hubWith(t, map[string]*config.Source{source: {URL: hubtest.HTTPUpstream(t, server, "", "").URL}}, nil)
}

// hubWith opens a hub in a fresh home with these sources and no policy,
// with their tools listed, on drv (nil: the default in-process sandbox).
// The hub is closed, with drv, when the test ends.
func hubWith(t testing.TB, sources map[string]*config.Source, drv sandbox.Driver) *hub.Hub {
	t.Helper()
	home := t.TempDir()
	saveConfig(t, home, &config.Config{Sources: sources, Policy: map[string]config.Mode{}})
	h := openHub(t, home, hub.Options{Driver: drv})
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return h
}

// readOnlyTool adds a read-only tool that answers with its own MCP name.
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
	return server, hubtest.HTTPUpstream(t, server, "", "").URL
}

type echoOut struct {
	Text string `json:"text"`
}

// stateHub opens a hub over sources in every state once listed: memory
// (the memory server: up), gone (a command that does not exist: down, for
// good), broken (a server that exits at start: down, may come back), locked
// (a default connection whose secret is not in the keychain) and off
// (disabled). It does not list them.
func stateHub(t *testing.T) *hub.Hub {
	t.Helper()
	home := t.TempDir()
	everything := hubtest.NpmServer(t, "mcp-server-everything")
	saveConfig(t, home, &config.Config{Sources: map[string]*config.Source{
		"memory": memorySource(t),
		"gone":   {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"locked": {Command: everything, Args: []string{"stdio"},
			Connections: map[string]*config.Connection{"work": {Default: true, Env: map[string]string{"API_TOKEN": "${secret:API_TOKEN}"}}}},
		"off": {Command: everything, Args: []string{"stdio"}, Disabled: true},
		// A server that fails at start, saying why on stderr.
		"broken": {Command: "node", Args: []string{"-e", `console.error("boom: cannot open the database"); process.exit(3)`}},
	}, Policy: map[string]config.Mode{"locked": config.Allow}})
	// The first answers wait for memory's first listing; on a loaded
	// machine npx and node can take longer than the default bound to
	// start it, and the cold-start tests compare those answers with the
	// settled ones.
	return openHub(t, home, hub.Options{Keychain: &hubtest.MemKeychain{}, StartupWait: 2 * time.Minute})
}

// newSkillHub starts a hub without sources whose home holds the skills of
// the heart's testdata/skills.
func newSkillHub(t *testing.T) (*hub.Hub, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(filepath.Join(home, "skills"), os.DirFS(skillsFixture(t))); err != nil {
		t.Fatal(err)
	}
	return openHub(t, home, hub.Options{}), home
}

// skillsFixture is the folder of skills the heart's tests read too.
func skillsFixture(t testing.TB) string {
	return filepath.Join(hubtest.RepoRoot(t), "hub", "testdata", "skills")
}

func writeSkill(t *testing.T, dir, skillMD string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
}
