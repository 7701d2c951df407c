package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/proc"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
)

// The end-to-end tests run the real binary: `capabilities hub --headless` as
// the hub, `capabilities mcp` as the shim clients start, and the CLI. The
// test binary doubles as a small upstream MCP server for faults the npm
// servers cannot produce (a slow, non-idempotent call to crash in).

const upstreamEnv = "CAPABILITIES_TEST_UPSTREAM"

func TestMain(m *testing.M) {
	if os.Getenv(upstreamEnv) != "" {
		runTestUpstream()
		return
	}
	// The binaries the tests start keep their secrets under the test
	// service, never the person's.
	os.Setenv(keychainServiceEnv, keychain.TestService)
	code := m.Run()
	// The binaries the tests built (binary, uiBinary) go with them.
	for _, dir := range builtDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// runTestUpstream serves a go-sdk MCP server on stdio with slowWrite: it
// writes "start TEXT" to UPSTREAM_LOG, waits SLOW_MS, then writes
// "done TEXT" (the side effect the tests count).
func runTestUpstream() {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "1"}, nil)
	logf := func(line string) {
		f, err := os.OpenFile(os.Getenv("UPSTREAM_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
	type in struct {
		Text string `json:"text"`
	}
	desc := "Append a line, slowly."
	if d := os.Getenv("UPSTREAM_DESCRIPTION"); d != "" {
		desc = d // a hostile upstream's
	}
	if f := os.Getenv("UPSTREAM_DESCRIPTION_FILE"); f != "" {
		// A server that changes between two starts, as a new version does.
		if b, err := os.ReadFile(f); err == nil {
			desc = string(b)
		}
	}
	if gate := os.Getenv("UPSTREAM_LIST_GATE"); gate != "" {
		// When the named pipe exists, the first tools/list waits until the
		// test opens it for writing: a listing that is still under way.
		var once sync.Once
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					once.Do(func() {
						if f, err := os.Open(gate); err == nil {
							f.Close()
						}
					})
				}
				return next(ctx, method, req)
			}
		})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "slow_write", Description: desc}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		logf("start " + a.Text)
		var ms int
		fmt.Sscan(os.Getenv("SLOW_MS"), &ms)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		logf("done " + a.Text)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + a.Text}}}, nil, nil
	})
	s.Run(context.Background(), &mcp.StdioTransport{})
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// builtDirs are the folders of the binaries the tests built, removed when
// they end (TestMain).
var (
	builtMu   sync.Mutex
	builtDirs []string
)

func keepBuilt(dir string) {
	builtMu.Lock()
	defer builtMu.Unlock()
	builtDirs = append(builtDirs, dir)
}

// binary builds the headless binary once per test process.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "capabilities-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		keepBuilt(dir)
		builtBin = filepath.Join(dir, "capabilities")
		cmd := exec.Command("go", "build", "-tags", "headless", "-o", builtBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func npmBin(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not installed (make test runs npm ci): %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// world is one CAPABILITIES_HOME with a fake user home, and the processes
// the test started in it.
type world struct {
	t        *testing.T
	bin      string
	home     string // CAPABILITIES_HOME
	userHome string
	memFile  string
	logFile  string // the test upstream's log
	hubCmd   *exec.Cmd
	hubOut   *syncBuffer
}

// syncBuffer is a buffer the hub process's output goroutine writes while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newWorld(t *testing.T, slowMS int) *world {
	t.Helper()
	w := &world{t: t, bin: binary(t), home: t.TempDir(), userHome: t.TempDir()}
	w.memFile = filepath.Join(t.TempDir(), "memory.jsonl")
	w.logFile = filepath.Join(t.TempDir(), "upstream.log")
	cfg := &config.Config{Sources: map[string]*config.Source{
		"everything": {Command: npmBin(t, "mcp-server-everything"), Args: []string{"stdio"}},
		"memory":     {Command: npmBin(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": w.memFile}},
		"slow":       {Command: os.Args[0], Env: map[string]string{upstreamEnv: "1", "UPSTREAM_LOG": w.logFile, "SLOW_MS": fmt.Sprint(slowMS)}},
	}, Policy: map[string]config.Mode{"slow.slowWrite": config.Allow}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.stopHub)
	return w
}

func (w *world) env() []string {
	return append(os.Environ(), "CAPABILITIES_HOME="+w.home, "HOME="+w.userHome, "XDG_CONFIG_HOME="+filepath.Join(w.userHome, ".config"), "DISPLAY=", "WAYLAND_DISPLAY=")
}

func (w *world) startHub() {
	w.t.Helper()
	cmd := exec.Command(w.bin, "hub", "--headless")
	cmd.Env = w.env()
	w.hubOut = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w.hubOut, w.hubOut
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.hubCmd = cmd
	var err error
	up := testwait.Until(60*time.Second, func() bool {
		var c *localapi.Client
		if c, err = localapi.Dial(context.Background(), config.Paths{Home: w.home}); err != nil {
			return false
		}
		defer c.Close()
		var st hub.Status
		st, err = c.Status(context.Background())
		return err == nil && st.Tools > 0
	})
	if !up {
		w.t.Fatalf("the hub did not come up with tools within 60s: %v\n%s", err, w.hubOut)
	}
}

// hubPID asks the running hub for its pid (it may be one a shim started).
func (w *world) hubPID() int {
	c, err := localapi.Dial(context.Background(), config.Paths{Home: w.home})
	if err != nil {
		return 0
	}
	defer c.Close()
	st, err := c.Status(context.Background())
	if err != nil {
		return 0
	}
	return st.PID
}

// socketAnswers reports whether anything takes connections on the home's
// socket.
func (w *world) socketAnswers() bool {
	c, err := localapi.Dial(context.Background(), config.Paths{Home: w.home})
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// killHub kills the running hub with SIGKILL, as a crash would, and waits
// until its socket stops answering.
//
// Ours is killed by its process, not by the pid its status reports: on a
// loaded machine a status can fail while the hub lives, and waiting for a
// hub nobody killed would hang the test. A shim whose hub went away starts
// one at once: one that answers while this waits is killed too.
func (w *world) killHub() {
	w.t.Helper()
	if w.hubCmd != nil {
		w.hubCmd.Process.Kill()
		w.hubCmd.Wait()
		w.hubCmd = nil
	}
	testwait.For(w.t, 10*time.Second, "the hub to stop answering after SIGKILL", func() bool {
		if pid := w.hubPID(); pid > 0 { // one a shim started
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return !w.socketAnswers()
	})
}

// stopHub stops whichever hub runs for the home (ours, or one a shim
// started) and reaps ours.
func (w *world) stopHub() {
	if pid := w.hubPID(); pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
		// A hub that is stopping may still take connections on its
		// socket after it stops answering status: wait until the socket
		// is closed, or the next command would dial the stopping hub.
		if !testwait.Until(10*time.Second, func() bool { return !w.socketAnswers() }) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if w.hubCmd != nil {
		w.hubCmd.Process.Kill()
		w.hubCmd.Wait()
		w.hubCmd = nil
	}
	killStrays(w.home)
}

// killStrays kills every process left running in this home (a hub a shim
// started, its sandbox workers), found by CAPABILITIES_HOME in /proc, and
// waits until they are gone: on a loaded machine a killed hub can still
// take a connection on its socket while the next command starts.
func killStrays(home string) {
	marker := "CAPABILITIES_HOME=" + home
	for _, pid := range proc.WithEnv(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	testwait.Until(10*time.Second, func() bool { return len(proc.WithEnv(marker)) == 0 })
}

// cli runs the binary with args and stdin; it returns stdout, stderr, code.
func (w *world) cli(stdin string, args ...string) (string, string, int) {
	w.t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = w.env()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// shim connects a go-sdk client to a real `capabilities mcp` process.
func (w *world) shim(version string, opts *mcp.ClientOptions) (*mcp.ClientSession, *exec.Cmd) {
	w.t.Helper()
	return w.shimArgs(version, opts, "mcp")
}

// shimArgs connects a go-sdk client to a real `capabilities ARGS...`
// process that speaks MCP on stdio.
func (w *world) shimArgs(version string, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	w.t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Env = w.env()
	cmd.Stderr = io.Discard
	c := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: version}, opts)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		w.t.Fatalf("connecting through the shim at %s: %v", version, err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

func (w *world) entities() int {
	data, _ := os.ReadFile(w.memFile)
	return strings.Count(string(data), `"type":"entity"`)
}

func (w *world) upstreamLines(prefix string) int {
	data, _ := os.ReadFile(w.logFile)
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// pendingInputs is the running hub's count of inputs waiting for a
// person, as `hub status --json` reports it (0 when it cannot tell).
func (w *world) pendingInputs() int {
	out, _, code := w.cli("", "hub", "status", "--json")
	var st hub.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		return 0
	}
	return st.Pending
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func envelopeOf(t *testing.T, res *mcp.CallToolResult) hub.Envelope {
	t.Helper()
	var env hub.Envelope
	if err := json.Unmarshal([]byte(text(res)), &env); err != nil {
		t.Fatalf("execute text is not an envelope: %q", text(res))
	}
	return env
}

const createAda = `await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] }); return (await memory.readGraph({})).entities.length;`

func TestShimWithRealClients(t *testing.T) {
	w := newWorld(t, 0)
	w.startHub()

	termSearch, _, code := w.cli("", "search", "add two numbers")
	if code != 0 {
		t.Fatalf("terminal search exit %d", code)
	}
	termDescribe, _, _ := w.cli("", "describe", "everything.getSum")

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+version, func(t *testing.T) {
			cs, _ := w.shim(version, nil)
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 3 {
				t.Fatalf("tools/list: %v %d", err, len(tools.Tools))
			}
			if got := text(call(t, cs, "search", map[string]any{"query": "add two numbers"})); got+"\n" != termSearch {
				t.Errorf("MCP search differs from the terminal form:\n%s\n---\n%s", got, termSearch)
			}
			if got := text(call(t, cs, "describe", map[string]any{"targets": []string{"everything.getSum"}})); got+"\n" != termDescribe {
				t.Errorf("MCP describe differs from the terminal form")
			}
			env := envelopeOf(t, call(t, cs, "execute", map[string]any{"code": `return (await everything.echo({ message: "via ` + version + `" }))`}))
			if env.Status != hub.StatusCompleted || !strings.Contains(string(env.Result), "via "+version) {
				t.Fatalf("%+v", env)
			}
			termExec, _, _ := w.cli("", "execute", "--resume", env.RunID)
			if strings.TrimSpace(termExec) != text(call(t, cs, "execute", map[string]any{"resume": env.RunID})) {
				t.Errorf("terminal execute --resume differs from MCP:\n%s", termExec)
			}
		})
	}

	t.Run("2026-07-28 form approval", func(t *testing.T) {
		asked := 0
		cs, _ := w.shim("2026-07-28", &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_once"}}, nil
			},
		})
		res := call(t, cs, "execute", map[string]any{"code": createAda})
		env := envelopeOf(t, res)
		if env.Status != hub.StatusCompleted || asked != 1 || w.entities() != 1 {
			t.Fatalf("asked %d, entities %d, %s", asked, w.entities(), text(res))
		}
	})

	t.Run("2025-11-25 approve from the CLI", func(t *testing.T) {
		cs, _ := w.shim("2025-11-25", nil)
		env := envelopeOf(t, call(t, cs, "execute", map[string]any{"code": `await memory.createEntities({ entities: [{ name: "Grace", entityType: "person", observations: [] }] }); return "made";`}))
		if env.Status != hub.StatusAwaitingApproval || len(env.Pending) != 1 {
			t.Fatalf("%+v", env)
		}
		// A headless hub shows no dialog, and says so.
		if msg := env.Pending[0].Message; strings.Contains(msg, "screen") || !strings.Contains(msg, "capabilities hub approve "+env.RunID) {
			t.Errorf("a headless hub tells the model %q", msg)
		}
		out, stderr, code := w.cli("", "hub", "approve", env.RunID, "--yes")
		if code != 0 || !strings.Contains(out, "memory.createEntities") || !strings.Contains(out, `"name": "Grace"`) {
			t.Fatalf("hub approve: %d %s %s", code, out, stderr)
		}
		env = envelopeOf(t, call(t, cs, "execute", map[string]any{"resume": env.RunID}))
		if env.Status != hub.StatusCompleted || w.entities() != 2 {
			t.Fatalf("%+v entities %d", env, w.entities())
		}
	})

	t.Run("TypeScript SDK", func(t *testing.T) {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("no node")
		}
		sdk, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk"))
		if _, err := os.Stat(sdk); err != nil {
			t.Fatalf("TypeScript SDK not installed: %v", err)
		}
		cmd := exec.Command("node", "testdata/tsclient.mjs", sdk, w.bin,
			`await memory.createEntities({ entities: [{ name: "Linus", entityType: "person", observations: [] }] }); return (await memory.readGraph({})).entities.length;`)
		cmd.Env = w.env()
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var first struct{ Awaiting string }
		if !sc.Scan() || json.Unmarshal(sc.Bytes(), &first) != nil || first.Awaiting == "" {
			t.Fatalf("the TypeScript client did not report a pending run: %q %s", sc.Text(), stderr.String())
		}
		if _, e, code := w.cli("", "hub", "approve", first.Awaiting, "--yes"); code != 0 {
			t.Fatalf("approve: %s", e)
		}
		stdin.Write([]byte("go\n"))
		stdin.Close()
		if !sc.Scan() {
			t.Fatalf("no result: %s", stderr.String())
		}
		var got struct {
			Tools    []string
			Search   string
			Describe string
			Resumed  hub.Envelope
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		sort.Strings(got.Tools)
		if strings.Join(got.Tools, ",") != "describe,execute,search" {
			t.Errorf("tools %v", got.Tools)
		}
		if got.Search+"\n" != termSearch || got.Describe+"\n" != termDescribe {
			t.Errorf("TypeScript client answers differ from the terminal forms:\n%s", got.Search)
		}
		if got.Resumed.Status != hub.StatusCompleted || string(got.Resumed.Result) != "3" {
			t.Errorf("resumed %+v", got.Resumed)
		}
	})
}

func TestTwoShimsShareOneHubAndReconnect(t *testing.T) {
	w := newWorld(t, 0)
	w.startHub()
	a, cmdA := w.shim("2025-11-25", nil)
	b, _ := w.shim("2026-07-28", nil)
	env := envelopeOf(t, call(t, a, "execute", map[string]any{"code": `await memory.createEntities({ entities: [{ name: "Shared", entityType: "t", observations: [] }] }); return 1;`}))
	if env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("%+v", env)
	}
	// The other client sees the same pending run.
	if got := envelopeOf(t, call(t, b, "execute", map[string]any{"resume": env.RunID})); got.Status != hub.StatusAwaitingApproval || got.Pending[0].ID != env.Pending[0].ID {
		t.Fatalf("second client: %+v", got)
	}
	cmdA.Process.Kill()
	if res := call(t, b, "search", map[string]any{"query": "echo"}); res.IsError {
		t.Fatalf("the other shim broke when one died: %s", text(res))
	}
	w.killHub()
	_, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "echo"}})
	if err == nil || !strings.Contains(err.Error(), "capabilities hub stopped") {
		t.Fatalf("with the hub gone: %v", err)
	}
	w.startHub()
	var res *mcp.CallToolResult
	testwait.Until(30*time.Second, func() bool {
		res, err = b.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
		return err == nil
	})
	if err != nil || envelopeOf(t, res).Status != hub.StatusAwaitingApproval {
		t.Fatalf("after the hub came back: %v %s", err, text(res))
	}
}

func TestCrashRecovery(t *testing.T) {
	w := newWorld(t, 4000)
	w.startHub()
	cs, _ := w.shim("2025-11-25", nil)

	// 1. A run awaiting approval survives kill -9.
	env := envelopeOf(t, call(t, cs, "execute", map[string]any{"code": createAda}))
	if env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("%+v", env)
	}
	w.killHub()
	w.startHub()
	if _, e, code := w.cli("", "hub", "approve", env.RunID, "--yes"); code != 0 {
		t.Fatalf("approve after restart: %s", e)
	}
	out, _, code := w.cli("", "execute", "--resume", env.RunID, "--json")
	var done hub.Envelope
	json.Unmarshal([]byte(out), &done)
	if code != 0 || done.Status != hub.StatusCompleted || compact(done.Result) != "1" || w.entities() != 1 {
		t.Fatalf("resume after a crash: %s (entities %d)", out, w.entities())
	}

	// 2. A crash with one call in flight and one awaiting approval.
	code2 := `const r = await Promise.allSettled([
		slow.slowWrite({ text: "once" }),
		memory.createEntities({ entities: [{ name: "Turing", entityType: "person", observations: [] }] }),
	]);
	return r.map((x) => (x.status === "fulfilled" ? "ok" : x.reason.code));`
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	errc := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": code2}})
		errc <- answer{res, err}
	}()
	// Kill once the slow call is upstream and the other call's pending
	// input is stored: the two calls run concurrently, in either order.
	if !testwait.Until(30*time.Second, func() bool { return w.upstreamLines("start once") > 0 && w.pendingInputs() > 0 }) {
		t.Fatalf("the slow call never started (%d) or the approval never waited (%d)", w.upstreamLines("start once"), w.pendingInputs())
	}
	w.killHub()
	if a := <-errc; a.err == nil && !strings.Contains(text(a.res), "hub stopped") {
		t.Fatalf("the client got an answer from a killed hub: %s", text(a.res))
	}
	w.startHub()
	out, _, _ = w.cli("", "hub", "runs", "--json")
	var runs []hub.RunSummary
	json.Unmarshal([]byte(out), &runs)
	runID := ""
	for _, r := range runs {
		if strings.Contains(r.Code, "once") {
			runID = r.ID
		}
	}
	if runID == "" {
		t.Fatalf("the crashed run is not listed: %s", out)
	}
	if o, e, code := w.cli("", "hub", "approve", runID, "--yes"); code != 0 {
		t.Fatalf("approve: %s %s", o, e)
	}
	out, _, _ = w.cli("", "execute", "--resume", runID, "--json")
	json.Unmarshal([]byte(out), &done)
	if done.Status != hub.StatusCompleted || compact(done.Result) != `["interrupted","ok"]` {
		t.Fatalf("resume after a crash in flight: %s", out)
	}
	if n := w.upstreamLines("start once"); n != 1 {
		t.Fatalf("the in-flight call was sent %d times", n)
	}
	if w.entities() != 2 {
		t.Fatalf("entities %d, want 2", w.entities())
	}
}

// TestFirstRunImportsClientConfig: a hub started without a person (no
// terminal: stdin and stdout are not one) imports nothing and leaves the
// offer open; `setup --all` takes it up, moving the server and its secret
// out of the client's file, and the hub picks the new source up.
func TestFirstRunImportsClientConfig(t *testing.T) {
	bin := binary(t)
	home, userHome := t.TempDir(), t.TempDir()
	secret := fmt.Sprintf("ghp_FirstRun%026d", time.Now().UnixNano())
	desktop := filepath.Join(userHome, ".config", "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(desktop), 0o700)
	os.WriteFile(desktop, []byte(`{"mcpServers": {
		"everything": {"command": "`+npmBin(t, "mcp-server-everything")+`", "args": ["stdio"], "env": {"GITHUB_TOKEN": "`+secret+`"}}
	}}`), 0o600)
	w := &world{t: t, bin: bin, home: home, userHome: userHome}
	t.Cleanup(w.stopHub)
	t.Cleanup(func() { w.cli("", "source", "remove", "everything") })
	cmd := exec.Command(w.bin, "hub", "--headless")
	cmd.Env = w.env()
	w.hubOut = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w.hubOut, w.hubOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.hubCmd = cmd
	if !testwait.Until(60*time.Second, func() bool { return w.hubPID() != 0 }) {
		t.Fatalf("the hub did not come up within 60s:\n%s", w.hubOut)
	}
	out, _, _ := w.cli("", "hub", "status")
	if !strings.Contains(out, "Import offer open: 1 MCP server found in your clients") || !strings.Contains(out, "0 tools, 0 pending approvals, 0 runs today") {
		t.Fatalf("hub status after a first run without a person:\n%s\nhub log:\n%s", out, w.hubOut)
	}
	out, errOut, code := w.cli("", "setup", "--all")
	if code != 0 || !strings.Contains(out, "Imported everything") || !strings.Contains(out, "Moved out of "+desktop) {
		t.Fatalf("setup --all: %d\n%s\n%s", code, out, errOut)
	}
	out, _, _ = w.cli("", "connection", "list")
	if !strings.Contains(out, "everything") || !strings.Contains(out, "GITHUB_TOKEN (stored)") {
		t.Fatalf("connection list after setup:\n%s\nhub log:\n%s", out, w.hubOut)
	}
	if b, _ := os.ReadFile(desktop); bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte(`"capabilities"`)) {
		t.Errorf("the client's file after the move:\n%s", b)
	}
	if out, _, _ := w.cli("", "hub", "status"); strings.Contains(out, "Import offer") {
		t.Errorf("the offer is still open:\n%s", out)
	}
	w.stopHub()
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
			t.Errorf("the secret is in %s", p)
		}
		return nil
	})
}
