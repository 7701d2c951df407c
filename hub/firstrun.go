package hub

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Found is an MCP server found in a client's config on this machine.
type Found struct {
	Client string // claude-desktop, claude-code, cursor, vscode
	File   string
	Name   string
	Source *Source
	// Secrets moves into the keychain on import (key -> secret); never shown.
	Secrets map[string]string
	Moved   []string
}

// Discover reads the known clients' config files and returns the servers
// they define, in client then name order. A server defined by several
// clients is returned once, from the first. Unreadable files are reported
// in problems and skipped.
func Discover(configs []ClientConfig) (found []Found, problems []error) {
	seen := map[string]bool{}
	for _, cc := range configs {
		data, err := os.ReadFile(cc.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("reading %s: %w", cc.Path, err))
			continue
		}
		imp, err := ParseImport(cc.Path, data)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, r := range imp.Refused {
			problems = append(problems, r)
		}
		for _, name := range sortedKeys(imp.Sources) {
			if name == "capabilities" || seen[name] {
				continue // the hub itself, or already found in another client
			}
			seen[name] = true
			f := Found{Client: cc.Client, File: cc.Path, Name: name, Source: imp.Sources[name], Secrets: map[string]string{}}
			for k, v := range imp.Secrets {
				if strings.HasPrefix(k, "source/"+name+"/") {
					f.Secrets[k] = v
				}
			}
			for _, m := range imp.Moved {
				if len(m) > len(name) && m[:len(name)+1] == name+"." {
					f.Moved = append(f.Moved, m)
				}
			}
			sort.Strings(f.Moved)
			found = append(found, f)
		}
	}
	return found, problems
}

// DefaultSources are the reference servers a first run starts with when no
// client config was found: memory (kept in CAPABILITIES_HOME) and
// filesystem, scoped to a folder of its own under CAPABILITIES_HOME. They
// run through npx, pinned.
func DefaultSources(p Paths, npx string) map[string]*Source {
	return map[string]*Source{
		"memory": {
			Command: npx,
			Args:    []string{"-y", "@modelcontextprotocol/server-memory@2026.8.31"},
			Env:     map[string]string{"MEMORY_FILE_PATH": filepath.Join(p.Home, "memory.jsonl")},
		},
		"filesystem": {
			Command: npx,
			Args:    []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", p.Files()},
		},
	}
}
