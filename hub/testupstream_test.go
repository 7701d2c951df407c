package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/sandbox"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's folder")
		}
		dir = parent
	}
}

var npmInstall struct {
	once sync.Once
	err  error
}

// npmServer returns the path of a reference MCP server installed from the
// package-lock in testdata/npm, installing them once when missing.
func npmServer(t testing.TB, name string) string {
	t.Helper()
	root := repoRoot(t)
	npm := filepath.Join(root, "testdata", "npm")
	npmInstall.once.Do(func() {
		if _, err := os.Stat(filepath.Join(npm, "node_modules")); err == nil {
			return
		}
		out, err := exec.Command("npm", "ci", "--prefix", npm).CombinedOutput()
		if err != nil {
			npmInstall.err = fmt.Errorf("npm ci: %v\n%s", err, out)
		}
	})
	if npmInstall.err != nil {
		t.Fatal(npmInstall.err)
	}
	bin := filepath.Join(npm, "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed: %v", name, err)
	}
	return bin
}

// everythingSource, memorySource and filesystemSource are the three
// reference servers as stdio sources.
func everythingSource(t testing.TB) *Source {
	return &Source{Command: npmServer(t, "mcp-server-everything"), Args: []string{"stdio"}}
}

func memorySource(t testing.TB) *Source {
	return &Source{Command: npmServer(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}
}

func filesystemSource(t testing.TB, dir string) *Source {
	return &Source{Command: npmServer(t, "mcp-server-filesystem"), Args: []string{dir}}
}

// testConfig is a config of the given sources.
func testConfig(sources map[string]*Source) *Config {
	return &Config{Sources: sources, Policy: map[string]Mode{}}
}

// logBuffer collects a logger's output; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// debugLogger logs everything, including upstream stderr lines, into a
// buffer.
func debugLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

// newTestUpstreams returns Upstreams for cfg, closed when the test ends.
func newTestUpstreams(t testing.TB, opts UpstreamOptions, cfg *Config) *Upstreams {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger, _ = debugLogger()
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	u := NewUpstreams(opts)
	t.Cleanup(func() {
		if err := u.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	u.SetConfig(cfg)
	return u
}

// openTestStore opens a store in a temporary folder.
func openTestStore(t testing.TB) *store.DB {
	t.Helper()
	return openTestStoreFile(t, filepath.Join(t.TempDir(), "capabilities.db"))
}

// openTestStoreFile opens the store in file, closed when the test ends.
func openTestStoreFile(t testing.TB, file string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, timeout, what, cond)
}

// requireTestKeychain skips without a Secret Service, except under CI.
func requireTestKeychain(t testing.TB) keychain.Keychain {
	t.Helper()
	kc := keychain.New()
	if _, err := kc.Get("probe/hub-upstream-test"); errors.Is(err, keychain.ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("keychain must be reachable under CI: %v", err)
		}
		t.Skipf("no keychain (run through scripts/with-session.sh): %v", err)
	}
	return kc
}

// storeTestSecret puts a secret in the real keychain for the test's
// duration.
func storeTestSecret(t testing.TB, kc keychain.Keychain, key, value string) {
	t.Helper()
	if err := kc.Set(key, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kc.Delete(key) })
}

// uniqueName is a source name no other test run uses, so keychain entries
// of parallel runs do not meet.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1e12)
}

// httpUpstream serves server over streamable HTTP on loopback. When
// header is set, requests without that exact header value get 401.
func httpUpstream(t testing.TB, server *mcp.Server, header, value string) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if header != "" && r.Header.Get(header) != value {
			http.Error(w, "missing or wrong credentials", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// hubOver opens a hub whose only source, named source, is server over
// HTTP on loopback, with its tools listed.
func hubOver(t testing.TB, source string, server *mcp.Server) *Hub {
	t.Helper()
	return hubWith(t, map[string]*Source{source: {URL: httpUpstream(t, server, "", "").URL}}, nil)
}

// hubWith opens a hub in a fresh home with these sources and no policy,
// with their tools listed, on drv (nil: the default in-process sandbox).
// The hub is closed, with drv, when the test ends.
func hubWith(t testing.TB, sources map[string]*Source, drv sandbox.Driver) *Hub {
	t.Helper()
	home := t.TempDir()
	cfg := &Config{Sources: sources, Policy: map[string]Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Driver: drv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return h
}

// fakeClock is a clock tests move forward by hand.
type fakeClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// textOf joins the text content of a tool result.
func textOf(res *mcp.CallToolResult) string {
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
