package hub

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/sandbox"
)

// repoRoot is the folder holding go.mod.
func repoRoot(t testing.TB) string { t.Helper(); return hubtest.RepoRoot(t) }

// npmServer returns the path of a reference MCP server installed from the
// package-lock in testdata/npm.
func npmServer(t testing.TB, name string) string { t.Helper(); return hubtest.NpmServer(t, name) }

// everythingSource, memorySource and filesystemSource are the three
// reference servers as stdio sources.
func everythingSource(t testing.TB) *config.Source { return hubtest.EverythingSource(t) }

func memorySource(t testing.TB) *config.Source { return hubtest.MemorySource(t) }

func filesystemSource(t testing.TB, dir string) *config.Source {
	return hubtest.FilesystemSource(t, dir)
}

// testConfig is a config of the given sources.
func testConfig(sources map[string]*config.Source) *config.Config { return hubtest.Config(sources) }

// logBuffer collects a logger's output; safe for concurrent use.
type logBuffer = hubtest.LogBuffer

// debugLogger logs everything, including upstream stderr lines, into a
// buffer.
func debugLogger() (*slog.Logger, *logBuffer) { return hubtest.DebugLogger() }

// newTestUpstreams returns Upstreams for cfg, closed when the test ends.
func newTestUpstreams(t testing.TB, opts upstream.Options, cfg *config.Config) *upstream.Upstreams {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger, _ = debugLogger()
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	u := upstream.New(opts)
	t.Cleanup(func() {
		if err := u.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	u.SetConfig(cfg)
	return u
}

// openTestStore opens a store in a temporary folder.
func openTestStore(t testing.TB) *store.DB { t.Helper(); return hubtest.OpenStore(t) }

// openTestStoreFile opens the store in file, closed when the test ends.
func openTestStoreFile(t testing.TB, file string) *store.DB {
	t.Helper()
	return hubtest.OpenStoreFile(t, file)
}

// rawSQL opens a handle of its own on db's file, as another process would,
// for the tests that count rows or damage them where the store's typed
// calls do not reach. It is closed when the test ends.
func rawSQL(t testing.TB, db *store.DB) *sql.DB { t.Helper(); return hubtest.SQL(t, db) }

// rawExec runs one statement through a handle of its own, closed when it
// returns: a handle left open would keep the hub's Close from
// checkpointing the WAL away.
func rawExec(t testing.TB, db *store.DB, query string, args ...any) error {
	t.Helper()
	raw := rawSQL(t, db)
	defer raw.Close()
	_, err := raw.Exec(query, args...)
	return err
}

// rawQueryRow scans the row query returns into dest, as rawExec runs a
// statement.
func rawQueryRow(t testing.TB, db *store.DB, query string, args []any, dest ...any) error {
	t.Helper()
	raw := rawSQL(t, db)
	defer raw.Close()
	return raw.QueryRow(query, args...).Scan(dest...)
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, timeout, what, cond)
}

// requireTestKeychain skips without a Secret Service, except under CI.
func requireTestKeychain(t testing.TB) keychain.Keychain {
	t.Helper()
	return hubtest.RequireKeychain(t)
}

// storeTestSecret puts a secret in the real keychain for the test's
// duration.
func storeTestSecret(t testing.TB, kc keychain.Keychain, key, value string) {
	t.Helper()
	hubtest.StoreSecret(t, kc, key, value)
}

// uniqueName is a source name no other test run uses.
func uniqueName(prefix string) string { return hubtest.UniqueName(prefix) }

// httpUpstream serves server over streamable HTTP on loopback. When
// header is set, requests without that exact header value get 401.
func httpUpstream(t testing.TB, server *mcp.Server, header, value string) *httptest.Server {
	t.Helper()
	return hubtest.HTTPUpstream(t, server, header, value)
}

// hubOver opens a hub whose only source, named source, is server over
// HTTP on loopback, with its tools listed.
func hubOver(t testing.TB, source string, server *mcp.Server) *Hub {
	t.Helper()
	return hubWith(t, map[string]*config.Source{source: {URL: httpUpstream(t, server, "", "").URL}}, nil)
}

// hubWith opens a hub in a fresh home with these sources and no policy,
// with their tools listed, on drv (nil: the default in-process sandbox).
// The hub is closed, with drv, when the test ends.
func hubWith(t testing.TB, sources map[string]*config.Source, drv sandbox.Driver) *Hub {
	t.Helper()
	home := t.TempDir()
	cfg := &config.Config{Sources: sources, Policy: map[string]config.Mode{}}
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
type fakeClock = hubtest.FakeClock

// textOf joins the text content of a tool result.
func textOf(res *mcp.CallToolResult) string { return hubtest.TextOf(res) }

// svcTestMCPServer is hubtest.ServiceServer: echo, block and ask.
func svcTestMCPServer(blocked chan<- struct{}) *mcp.Server { return hubtest.ServiceServer(blocked) }

// svcMemKeychain is a keychain.Keychain in memory (hubtest.MemKeychain
// for the packages below the heart).
type svcMemKeychain struct {
	mu  sync.Mutex
	m   map[string]string
	err error // returned by Get when set
}

func (k *svcMemKeychain) Get(key string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil {
		return "", k.err
	}
	v, ok := k.m[key]
	if !ok {
		return "", fmt.Errorf("keychain: reading %q: %w", key, keychain.ErrNotFound)
	}
	return v, nil
}

func (k *svcMemKeychain) Set(key, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]string{}
	}
	k.m[key] = secret
	return nil
}

func (k *svcMemKeychain) Delete(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, key)
	return nil
}
