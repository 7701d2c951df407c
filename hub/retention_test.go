package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
// journals and the database files shrink back.
func TestRetentionShrinksTheDatabase(t *testing.T) {
	ctx := context.Background()
	h := hubOver(t, "blobs", blobServer(200<<10))
	cfg := testConfig(h.Config().Sources)
	cfg.Retention = Retention{MaxSizeMB: 1}
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	before := dbFileBytes(t, h)
	var ids []string
	for range 50 {
		env, err := h.Execute(ctx, ExecuteRequest{Code: `const b = await blobs.getBlob({}); return b.length;`})
		if err != nil || env.Status != StatusCompleted || string(env.Result) != "204800" {
			t.Fatalf("execute: %v %+v", err, env)
		}
		ids = append(ids, env.RunID)
	}
	grown := dbFileBytes(t, h)
	if grown-before < 50*200<<10 {
		t.Fatalf("50 results of 200 KB grew the files by %d bytes only", grown-before)
	}
	p, err := h.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := dbFileBytes(t, h)
	t.Logf("files: %d bytes before, %d with 50 runs, %d after retention (%+v)", before, grown, after, p)
	if p.Runs < 44 || p.Runs > 46 {
		t.Errorf("retention deleted %d runs; 1 MiB keeps the newest 4 to 5 of 200 KB", p.Runs)
	}
	if after > grown/4 {
		t.Errorf("the files did not shrink: %d bytes with the runs, %d after", grown, after)
	}
	var journal int
	if err := h.db.QueryRow(`SELECT COUNT(*) FROM journal`).Scan(&journal); err != nil || journal != 50-p.Runs {
		t.Errorf("%d journal entries left for %d runs (%v)", journal, 50-p.Runs, err)
	}
	// The newest run is kept and still resumes to its envelope; the oldest is gone.
	if env, err := h.Execute(ctx, ExecuteRequest{Resume: ids[49]}); err != nil || env.Status != StatusCompleted {
		t.Errorf("the newest run: %v %+v", err, env)
	}
	if _, err := h.Execute(ctx, ExecuteRequest{Resume: ids[0]}); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("the oldest run was kept: %v", err)
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
		c, err := ParseConfig("config.json", []byte(tc.json))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.json, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.want)
		}
		if tc.want == "" {
			r := c.Retention.storeRetention()
			if r.MaxAge != 7*24*3600e9 || r.MaxBytes != 64<<20 {
				t.Errorf("retention %+v", r)
			}
			b, _ := json.Marshal(c)
			if !strings.Contains(string(b), `"retention":{"maxAgeDays":7,"maxSizeMB":64}`) {
				t.Errorf("saved as %s", b)
			}
		}
	}
	def := Retention{}.storeRetention()
	if def.MaxAge != DefaultRetentionDays*24*3600e9 || def.MaxBytes != DefaultRetentionSizeMB<<20 {
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
	paths := Paths{Home: home}
	if err := testConfig(map[string]*Source{}).Save(paths.Config()); err != nil {
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
