package hubtest

import (
	"os"
	"path/filepath"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// EverythingSource, MemorySource and FilesystemSource are the three
// reference servers of testdata/npm as stdio sources.
func EverythingSource(t testing.TB) *config.Source {
	return &config.Source{Command: NpmServer(t, "mcp-server-everything"), Args: []string{"stdio"}}
}

// MemorySource is the memory server, keeping its graph in the test's
// temporary folder.
func MemorySource(t testing.TB) *config.Source {
	return &config.Source{Command: NpmServer(t, "mcp-server-memory"),
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}
}

// FilesystemSource is the filesystem server over dir.
func FilesystemSource(t testing.TB, dir string) *config.Source {
	return &config.Source{Command: NpmServer(t, "mcp-server-filesystem"), Args: []string{dir}}
}

// FakeSource is a stdio source served by the fake named mode (see Main),
// with env added to its environment.
func FakeSource(mode string, env map[string]string) *config.Source {
	return &config.Source{Command: os.Args[0], Env: FakeEnv(mode, env)}
}

// Config is a config of the given sources and no policy.
func Config(sources map[string]*config.Source) *config.Config {
	return &config.Config{Sources: sources, Policy: map[string]config.Mode{}}
}
