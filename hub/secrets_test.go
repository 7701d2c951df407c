package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/sandbox"
)

// secretMark replaces a known secret value in what the hub says.
const secretMark = secrets.Mark

// leakyHub starts a hub over the real everything server and the leaky fake,
// each with a connection whose secret comes from the real keychain, and
// the hub's own environment holding a variable of its own.
type leakyHub struct {
	*Hub
	home, everything, leaky string
	secrets                 []string // the two connection secrets
	hubOnly                 string   // the hub's own variable's value
	logs                    *logBuffer
}

func newLeakyHub(t *testing.T, pad int, drv sandbox.Driver) *leakyHub {
	t.Helper()
	kc := requireTestKeychain(t)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	lh := &leakyHub{
		home:       t.TempDir(),
		everything: uniqueName("everything"),
		leaky:      uniqueName("leaky"),
		secrets:    []string{"sk_live_" + stamp + "Qz8", "Tw4_" + stamp + "\"<&>\\/x"},
		hubOnly:    "hub-own-" + stamp,
	}
	t.Setenv("CAPABILITIES_TEST_HUB_ONLY", lh.hubOnly)
	storeTestSecret(t, kc, config.SecretKey(lh.everything, "main", "TOKEN"), lh.secrets[0])
	storeTestSecret(t, kc, config.SecretKey(lh.leaky, "main", "TOKEN"), lh.secrets[1])
	leaky := fakeSource("leaky", map[string]string{"FAKE_PAD": strconv.Itoa(pad)})
	leaky.Connections = map[string]*config.Connection{"main": {Default: true, Env: map[string]string{"FAKE_TOKEN": "${secret:TOKEN}"}}}
	cfg := &config.Config{Sources: map[string]*config.Source{
		lh.everything: {Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"},
			Connections: map[string]*config.Connection{"main": {Default: true, Env: map[string]string{"LEAKY_TOKEN": "${secret:TOKEN}"}}}},
		lh.leaky: leaky,
	}, Policy: map[string]config.Mode{lh.leaky + ".*": config.Allow}}
	if err := cfg.Save(filepath.Join(lh.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	logger, logs := debugLogger()
	lh.logs = logs
	h, err := New(context.Background(), Options{Home: lh.home, ConfigPoll: -1, Keychain: kc, Logger: logger, Driver: drv})
	if err != nil {
		t.Fatal(err)
	}
	lh.Hub = h
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return lh
}

// requireClean fails when any secret or the hub's own variable is in text.
func (lh *leakyHub) requireClean(t *testing.T, what string, text []byte) {
	t.Helper()
	for _, s := range append(slices.Clone(lh.secrets), lh.hubOnly) {
		if bytes.Contains(text, []byte(s)) {
			t.Errorf("%q is in the %s", s, what)
		}
		if esc, _ := json.Marshal(s); bytes.Contains(text, esc[1:len(esc)-1]) {
			t.Errorf("%q is in the %s, JSON-escaped", s, what)
		}
	}
}

// An upstream that echoes its connection's secret (everything's get-env, a
// careless fake in results, isError text and JSON-RPC errors) never gets it
// to the guest, the envelope, the log, the journal or the database files;
// and an upstream gets none of the hub's own environment.
func TestSecretsStayInTheHub(t *testing.T) {
	lh := newLeakyHub(t, 0, nil)
	code := `
const env = await ` + lh.everything + `.getEnv();
console.log("token " + env.LEAKY_TOKEN);
const out = {
	token: env.LEAKY_TOKEN,
	reversed: env.LEAKY_TOKEN.split("").reverse().join(""),
	hubOnly: env.CAPABILITIES_TEST_HUB_ONLY ?? null,
	keys: Object.keys(env).sort(),
};
try { await ` + lh.leaky + `.leakError(); } catch (e) { out.isError = e.message; }
try { await ` + lh.leaky + `.leakRpc(); } catch (e) { out.rpc = e.message; }
out.result = await ` + lh.leaky + `.leakResult();
return out;`
	env, err := lh.Execute(context.Background(), ExecuteRequest{Code: code, Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusCompleted {
		t.Fatalf("run = %s", env.Line())
	}
	var got struct {
		Token, Reversed, IsError, RPC string
		HubOnly                       *string
		Keys                          []string
		Result                        map[string]string
	}
	if err := json.Unmarshal(env.Result, &got); err != nil {
		t.Fatal(err)
	}
	// The guest saw the marker where the secret was: it cannot reverse,
	// split or encode the value, because it never had it.
	if got.Token != secretMark || got.Reversed != "]terces[" {
		t.Errorf("guest got token %q, reversed %q; want the marker", got.Token, got.Reversed)
	}
	if want := "rejected token " + secretMark; !strings.Contains(got.IsError, want) {
		t.Errorf("isError message = %q, want it to hold %q", got.IsError, want)
	}
	if want := "upstream refused token " + secretMark; !strings.Contains(got.RPC, want) {
		t.Errorf("JSON-RPC error message = %q, want it to hold %q", got.RPC, want)
	}
	wantResult := map[string]string{"token": secretMark, secretMark: "as a key", "quoted": "<" + secretMark + ">"}
	if diff := cmp.Diff(wantResult, got.Result); diff != "" {
		t.Errorf("structured result (-want +got):\n%s", diff)
	}
	// The upstream got what every process needs, its connection's env, and
	// nothing else of the hub's environment.
	if got.HubOnly != nil {
		t.Errorf("the hub's own variable reached the upstream: %q", *got.HubOnly)
	}
	allowed := append(upstream.InheritedEnv("linux"), "LEAKY_TOKEN")
	for _, k := range got.Keys {
		if !slices.Contains(allowed, k) {
			t.Errorf("the upstream's environment has %s", k)
		}
	}
	if !slices.Contains(got.Keys, "PATH") || !slices.Contains(got.Keys, "LEAKY_TOKEN") {
		t.Errorf("the upstream's environment lacks PATH or its connection's variable: %v", got.Keys)
	}
	if len(env.Logs) != 1 || env.Logs[0] != "token "+secretMark {
		t.Errorf("logs = %q", env.Logs)
	}

	lh.requireClean(t, "envelope", []byte(env.Line()))
	// Tool definitions that quote the secret are stored and shown scrubbed.
	found, err := lh.Search(context.Background(), SearchRequest{Query: "describes itself with the token", Namespace: lh.leaky})
	if err != nil || !strings.Contains(found, "describeToken") {
		t.Errorf("search = %q, %v", found, err)
	}
	lh.requireClean(t, "search output", []byte(found))
	decl, err := lh.Describe(context.Background(), DescribeRequest{Targets: []string{lh.leaky + ".describeToken"}})
	if err != nil || !strings.Contains(decl, "defaults to "+secretMark) {
		t.Errorf("describe = %q, %v", decl, err)
	}
	lh.requireClean(t, "describe output", []byte(decl))
	stored, err := lh.Execute(context.Background(), ExecuteRequest{Resume: env.RunID})
	if err != nil {
		t.Fatal(err)
	}
	lh.requireClean(t, "stored envelope", []byte(stored.Line()))
	journal, err := lh.db.ReadJournal(context.Background(), env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range journal {
		n++
		lh.requireClean(t, "journal row of "+e.Address, e.Outcome)
	}
	if n != 4 {
		t.Errorf("%d journal rows, want 4", n)
	}
	// The files as they are while the hub runs (the WAL holds the recent
	// writes), then after it closed.
	lh.requireCleanFiles(t)
	if err := lh.Close(); err != nil {
		t.Fatal(err)
	}
	lh.requireCleanFiles(t)
	lh.requireClean(t, "log", []byte(lh.logs.String()))
	if !strings.Contains(lh.logs.String(), "fake upstream starting with token "+secretMark) {
		t.Errorf("the fake's stderr line should be logged with its secret scrubbed")
	}
}

// requireCleanFiles checks every file in the hub's home, the database and
// its WAL among them.
func (lh *leakyHub) requireCleanFiles(t *testing.T) {
	t.Helper()
	seen := 0
	filepath.WalkDir(lh.home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return nil
		}
		if strings.HasSuffix(path, ".db") || strings.HasSuffix(path, "-wal") {
			seen++
		}
		lh.requireClean(t, filepath.Base(path), data)
		return nil
	})
	if seen == 0 {
		t.Error("no database file in the home")
	}
}

// Error messages of any size reach the guest and the envelope cut to the
// inline budget, with a marker that says so, and still scrubbed: an
// upstream's 8 MB JSON-RPC error and isError text, a 5 MB thrown error.
func TestErrorMessagesCapped(t *testing.T) {
	// Worker processes, as the app runs code: the in-process driver would
	// count the hub's copies of the 8 MB message against the guest's heap.
	drv, err := sandbox.NewPool(sandbox.PoolOptions{Command: []string{os.Args[0]}, Env: []string{sandboxWorkerEnv + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	lh := newLeakyHub(t, 8<<20, drv)
	budget := lh.limits.InlineResultBytes
	ctx := context.Background()
	env, err := lh.Execute(ctx, ExecuteRequest{Code: `
const out = {};
try { await ` + lh.leaky + `.leakError(); } catch (e) { out.isError = [e.message.length, e.message.includes("[secret]"), e.message.slice(-40)]; }
try { await ` + lh.leaky + `.leakRpc(); } catch (e) { out.rpc = [e.message.length, e.message.includes("[secret]"), e.message.slice(-40)]; }
return out;`})
	if err != nil || env.Status != StatusCompleted {
		t.Fatalf("run = %.2000s, %v", env.Line(), err)
	}
	var got map[string][3]any
	if err := json.Unmarshal(env.Result, &got); err != nil {
		t.Fatal(err)
	}
	for what, m := range got {
		n, scrubbed, tail := m[0].(float64), m[1].(bool), m[2].(string)
		if int(n) > budget || int(n) < budget-64 {
			t.Errorf("%s: the guest got a message of %v bytes, want at most %d", what, n, budget)
		}
		if !scrubbed {
			t.Errorf("%s: the message lacks the marker of the scrubbed secret", what)
		}
		if !strings.HasSuffix(tail, "more bytes cut)") {
			t.Errorf("%s: message ends %q, want the cut marked", what, tail)
		}
	}
	if len(got) != 2 {
		t.Errorf("result %s", env.Result)
	}
	lh.requireClean(t, "envelope", []byte(env.Line()))

	env, err = lh.Execute(ctx, ExecuteRequest{Code: `throw new Error("y".repeat(5 << 20))`})
	if err != nil || env.Status != StatusFailed || env.Error == nil {
		t.Fatalf("run = %v, %v", env, err)
	}
	if msg := env.Error.Message; len(msg) > budget || !strings.HasPrefix(msg, "Uncaught Error: yyy") || !strings.HasSuffix(msg, "more bytes cut)\n    at line 1:7") {
		t.Errorf("thrown error message of %d bytes: %.40q … %q", len(msg), msg, msg[max(0, len(msg)-40):])
	}
	stored, err := lh.Execute(ctx, ExecuteRequest{Resume: env.RunID})
	if err != nil || stored.Error == nil || len(stored.Error.Message) > budget {
		t.Errorf("stored envelope: %v, %v", stored, err)
	}
	if st := lh.up.State()[lh.leaky]; len(st.Err) > budget {
		t.Errorf("the source's state holds an error of %d bytes", len(st.Err))
	}
	if n := len(lh.logs.String()); n > 4<<20 {
		t.Errorf("the log grew by %d bytes", n)
	}
}
