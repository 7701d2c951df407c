package hub

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/store"
)

// blobServer has a read-only tool that returns size bytes of text.
func blobServer(size int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blobs", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "get_blob", Description: "A large document.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("b", size)}}}, nil
		})
	return s
}

func dbFileBytes(t *testing.T, h *Hub) int64 {
	t.Helper()
	var n int64
	for _, p := range store.Files(h.Paths().DB()) {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestRetentionShrinksTheDatabase: 50 runs each journal a 200 KB result;
// with "retention": {"maxSizeMB": 1} the oldest are deleted with their
// journals as the new ones store theirs, so the database files never hold
// the 10 MB the runs wrote.
func TestRetentionShrinksTheDatabase(t *testing.T) {
	ctx := context.Background()
	h := hubOver(t, "blobs", blobServer(200<<10))
	cfg := testConfig(h.Config().Sources)
	cfg.Retention = config.Retention{MaxSizeMB: 1}
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	before := dbFileBytes(t, h)
	var ids []string
	peak := before
	for range 50 {
		env, err := h.Execute(ctx, ExecuteRequest{Code: `const b = await blobs.getBlob({}); return b.length;`})
		if err != nil || env.Status != StatusCompleted || string(env.Result) != "204800" {
			t.Fatalf("execute: %v %+v", err, env)
		}
		ids = append(ids, env.RunID)
		peak = max(peak, dbFileBytes(t, h))
	}
	p, err := h.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := dbFileBytes(t, h)
	t.Logf("files: %d bytes before, at most %d with 50 runs, %d after retention (%+v)", before, peak, after, p)
	if peak-before > 4<<20 {
		t.Errorf("50 results of 200 KB under a budget of 1 MiB grew the files to %d bytes", peak)
	}
	var runs int
	if err := rawQueryRow(t, h.db, `SELECT COUNT(*) FROM runs`, nil, &runs); err != nil || runs < 3 || runs > 5 || p.Kept > 1<<20 {
		t.Errorf("%d runs kept with %d bytes (%v); 1 MiB keeps the newest 3 to 5 of 200 KB", runs, p.Kept, err)
	}
	var journal int
	if err := rawQueryRow(t, h.db, `SELECT COUNT(*) FROM journal`, nil, &journal); err != nil || journal != runs {
		t.Errorf("%d journal entries left for %d runs (%v)", journal, runs, err)
	}
	// The newest run is kept and still resumes to its envelope; the oldest is gone.
	if env, err := h.Execute(ctx, ExecuteRequest{Resume: ids[49]}); err != nil || env.Status != StatusCompleted {
		t.Errorf("the newest run: %v %+v", err, env)
	}
	if _, err := h.Execute(ctx, ExecuteRequest{Resume: ids[0]}); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("the oldest run was kept: %v", err)
	}
}

// TestRetentionBoundsARun: under "retention": {"maxSizeMB": 1} one run may
// store a quarter of it, and runs that wait for a person may not take the
// store past it: each result over a bound is a store_full error that
// names the limit, journaled in its place, and the run goes on.
func TestRetentionBoundsARun(t *testing.T) {
	ctx := context.Background()
	h := hubWith(t, map[string]*config.Source{
		"blobs": {URL: httpUpstream(t, blobServer(100<<10), "", "").URL},
		"gate":  {URL: httpUpstream(t, blobServer(1), "", "").URL},
	}, nil)
	cfg := testConfig(h.Config().Sources)
	cfg.Retention = config.Retention{MaxSizeMB: 1}
	cfg.Policy["gate.*"] = config.Ask
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	env, err := h.Execute(ctx, ExecuteRequest{Code: `const out = [];
		for (let i = 0; i < 20; i++) {
			try { out.push((await blobs.getBlob({})).length); } catch (e) { out.push(e.code + ": " + e.message); }
		}
		return out;`})
	if err != nil || env.Status != StatusCompleted {
		t.Fatalf("%v %s", err, env.Line())
	}
	var out []any
	json.Unmarshal(env.Result, &out)
	if len(out) != 20 || out[0] != float64(102400) || out[1] != float64(102400) {
		t.Fatalf("the first two results fit the run's share: %.300s", env.Result)
	}
	want := "store_full: the result of call 3 (blobs.getBlob) is not kept: storing 100.0 KB more would take run " + env.RunID + " to 300.0 KB, above its share of the store: 256.0 KB, a quarter of retention.maxSizeMB, 1.0 MB"
	if s, _ := out[2].(string); !strings.HasPrefix(s, want) {
		t.Errorf("call 3: %q\nwant %q", out[2], want)
	}
	var stored int64
	if err := rawQueryRow(t, h.db, `SELECT SUM(octet_length(outcome)) FROM journal WHERE run_id = ?`, []any{env.RunID}, &stored); err != nil || stored > 256<<10 {
		t.Errorf("the run's journal holds %d bytes (%v); its share is 256 KB", stored, err)
	}

	// Runs that wait for a person are kept: 200 KB each, the fifth finds
	// the store full of them.
	var last *Envelope
	for i := range 6 {
		env, err := h.Execute(ctx, ExecuteRequest{Code: `let got;
			try { got = (await blobs.getBlob({})).length + (await blobs.getBlob({})).length; } catch (e) { got = e.code + ": " + e.message; }
			await gate.getBlob({});
			return got;`})
		if err != nil || env.Status != StatusAwaitingApproval {
			t.Fatalf("run %d: %v %s", i, err, env.Line())
		}
		last = env
	}
	for _, p := range last.Pending {
		if err := h.Decide(ctx, p.ID, AllowOnce, policy.ChannelCLI, ""); err != nil {
			t.Fatal(err)
		}
	}
	done, err := h.Execute(ctx, ExecuteRequest{Resume: last.RunID})
	if err != nil || done.Status != StatusCompleted || !strings.Contains(string(done.Result), "store_full: the result of call ") ||
		!strings.Contains(string(done.Result), "above retention.maxSizeMB, 1.0 MB: the runs it holds are running or waiting for a person, and are kept") {
		t.Errorf("the sixth waiting run: %v %s", err, done.Line())
	}
	if n := dbFileBytes(t, h); n > 6<<20 {
		t.Errorf("the files hold %d bytes under a budget of 1 MiB", n)
	}
}

func TestRetentionConfig(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{`{"retention": {"maxAgeDays": 7, "maxSizeMB": 64}}`, ""},
		{`{"retention": {"maxAgeDays": 0}}`, "retention.maxAgeDays: must be a number above 0"},
		{`{"retention": {"maxSizeMB": "big"}}`, "retention.maxSizeMB: must be a number above 0"},
		{`{"retention": {"maxAgeDay": 7}}`, `retention.maxAgeDay: unknown key; did you mean "maxAgeDays"?`},
		{`{"retention": 30}`, "retention: must be an object"},
		{`{"retension": {}}`, `retension: unknown key; did you mean "retention"?`},
	} {
		c, err := config.Parse("config.json", []byte(tc.json))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.json, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.want)
		}
		if tc.want == "" {
			r := storeRetention(c.Retention)
			if r.MaxAge != 7*24*3600e9 || r.MaxBytes != 64<<20 {
				t.Errorf("retention %+v", r)
			}
			b, _ := json.Marshal(c)
			if !strings.Contains(string(b), `"retention":{"maxAgeDays":7,"maxSizeMB":64}`) {
				t.Errorf("saved as %s", b)
			}
		}
	}
	def := storeRetention(config.Retention{})
	if def.MaxAge != config.DefaultRetentionDays*24*3600e9 || def.MaxBytes != config.DefaultRetentionSizeMB<<20 {
		t.Errorf("defaults %+v", def)
	}
}

// TestHomeFilesAreTheOwners: a home another user could read (0755, files
// 0644) is closed on open: the folder 0700; config.json, the logs, the
// database, its WAL and shared memory 0600.
func TestHomeFilesAreTheOwners(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps the profile's ACL")
	}
	home := t.TempDir()
	paths := config.Paths{Home: home}
	if err := testConfig(map[string]*config.Source{}).Save(paths.Config()); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(paths.Logs(), 0o755)
	os.WriteFile(filepath.Join(paths.Logs(), "hub.log"), []byte("old log\n"), 0o644)
	os.WriteFile(paths.DB(), nil, 0o644)
	for _, p := range []string{home, paths.Logs()} {
		os.Chmod(p, 0o755)
	}
	os.Chmod(paths.Config(), 0o644)
	os.Chmod(paths.DB(), 0o644)

	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if env, err := h.Execute(context.Background(), ExecuteRequest{Code: `return "secret plans"`}); err != nil || env.Status != StatusCompleted {
		t.Fatalf("%v %+v", err, env) // writes the WAL
	}
	want := map[string]os.FileMode{
		home: 0o700, paths.Logs(): 0o700, paths.Config(): 0o600, filepath.Join(paths.Logs(), "hub.log"): 0o600,
		paths.DB(): 0o600, paths.DB() + "-wal": 0o600, paths.DB() + "-shm": 0o600,
	}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", strings.TrimPrefix(p, home), fi.Mode().Perm(), mode)
		}
	}
}

// TestRetentionCountsWhatARunIsStoredWith: a direct-mode call is a run
// whose code holds the client's arguments, so its row may be megabytes.
// Twenty calls of 300 KB under "retention": {"maxSizeMB": 1}: the rows are
// counted as they are stored, and retention deletes the oldest as the
// newest store their results (the rows were not counted, and all twenty
// stayed: 6 MB, until the hourly retention).
func TestRetentionCountsWhatARunIsStoredWith(t *testing.T) {
	h, call := directBlobs(t, func(cfg *config.Config) { cfg.Retention = config.Retention{MaxSizeMB: 1} })
	for i := range 20 {
		env, err := call(300 << 10)
		if err != nil || env.Status != StatusCompleted {
			t.Fatalf("call %d: %v %s", i, err, env.Line())
		}
	}
	var runs int
	var code int64
	if err := rawQueryRow(t, h.db, `SELECT COUNT(*), SUM(octet_length(code)) FROM runs`, nil, &runs, &code); err != nil || code > 1<<20+400<<10 {
		t.Errorf("%d runs hold %d bytes of code (%v) under a budget of 1 MiB", runs, code, err)
	}
}

// TestWaitingRunsAreBounded: a model that starts runs in a loop, each
// waiting for the person, stops at maxWaitingRuns: the next run's call is
// refused, unsent and unasked, saying why, and a run waits again once the
// person has decided on one.
func TestWaitingRunsAreBounded(t *testing.T) {
	ctx := context.Background()
	h := hubOver(t, "blobs", blobServer(1))
	cfg := testConfig(h.Config().Sources)
	cfg.Policy["blobs.*"] = config.Ask
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	code := `return (await blobs.getBlob({})).length;`
	var first *Envelope
	for i := range maxWaitingRuns {
		env, err := h.Execute(ctx, ExecuteRequest{Code: code})
		if err != nil || env.Status != StatusAwaitingApproval {
			t.Fatalf("run %d: %v %s", i, err, env.Line())
		}
		first = cmp.Or(first, env)
	}
	env, err := h.Execute(ctx, ExecuteRequest{Code: code})
	if err != nil || env.Status != StatusFailed || env.Error.Code != CodeTooManyWaiting ||
		!strings.Contains(env.Error.Message, "100 runs already wait for a person's decision, the most the hub keeps waiting; blobs.getBlob would wait too") {
		t.Fatalf("run %d: %v %s", maxWaitingRuns+1, err, env.Line())
	}
	open, err := h.db.OpenPending(ctx)
	if err != nil || len(open) != maxWaitingRuns {
		t.Errorf("%d inputs open (%v), want %d", len(open), err, maxWaitingRuns)
	}
	if err := h.Decide(ctx, first.Pending[0].ID, DenyOnce, policy.ChannelCLI, ""); err != nil {
		t.Fatal(err)
	}
	if env, err := h.Execute(ctx, ExecuteRequest{Code: code}); err != nil || env.Status != StatusAwaitingApproval {
		t.Errorf("a run once the person decided on one: %v %s", err, env.Line())
	}
}
