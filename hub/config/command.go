package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// commandProblem says why a stdio source's command cannot be the program
// the person meant, from its text alone: a URL, or an API's document given
// where a program goes. "" when it could be a program.
func commandProblem(command string) string {
	lower := strings.ToLower(command)
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		return "is a URL, not a program to run: an MCP server over HTTP is added by its \"url\" (source add NAME --url URL), a REST API by its OpenAPI document (source add NAME --openapi URL)"
	case strings.HasSuffix(lower, ".json") || strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml"):
		return "names a document, not a program to run: a REST API described by an OpenAPI document is added with \"openapi\" (source add NAME --openapi FILE)"
	}
	return ""
}

// ErrCommandNotFound is what [Source.FindCommand] returns, wrapped, when
// no program of the command's name is found.
var ErrCommandNotFound = errors.New("no such program")

// FindCommand finds the program a stdio source runs, as the hub starts
// it: a command with a path separator in the source's working folder
// (when it is relative), any other on PATH. It says what is wrong with
// it: not found, a folder, or a file that may not be run. It returns nil
// for a source that runs no command.
func (s *Source) FindCommand() error {
	if s.Command == "" {
		return nil
	}
	name := s.Command
	if strings.HasPrefix(name, "~/") {
		// Nothing expands ~ for a command: the hub runs it as it is.
		return fmt.Errorf("command %q: ~ is not expanded here; give the program's whole path", name)
	}
	if !strings.ContainsRune(name, '/') && !(runtime.GOOS == "windows" && strings.ContainsRune(name, '\\')) {
		if _, err := exec.LookPath(name); err != nil {
			return fmt.Errorf("command %q: %w on PATH", name, ErrCommandNotFound)
		}
		return nil
	}
	path := name
	if !filepath.IsAbs(path) && s.Cwd != "" {
		path = filepath.Join(s.Cwd, path)
	}
	if runtime.GOOS == "windows" {
		// Windows runs server for server.exe: LookPath tries PATHEXT.
		if _, err := exec.LookPath(path); err != nil {
			return fmt.Errorf("command %q: %w at %s", name, ErrCommandNotFound, path)
		}
		return nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("command %q: %w at %s", name, ErrCommandNotFound, path)
	case err != nil:
		return fmt.Errorf("command %q: %w", name, err)
	case fi.IsDir():
		return fmt.Errorf("command %q: %s is a folder, not a program", name, path)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("command %q: %s may not be run (it has no execute permission): chmod +x it, or give the program that runs it first (node FILE, python3 FILE)", name, path)
	}
	return nil
}
