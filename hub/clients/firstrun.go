package clients

// First run: a home without config.json looks for the MCP servers the
// person's clients already run and offers to import them. Only a person
// may accept: a hub a client or the login session started imports nothing,
// and leaves the offer open (import-offer.json) for the tray, the window,
// `hub status` and `doctor` to show until someone decides.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

// Found is an MCP server found in a client's config on this machine.
type Found struct {
	Client string // claude-desktop, claude-code, cursor, vscode
	File   string
	Name   string
	Source *config.Source
	// Secrets moves into the keychain on import (key -> secret); never shown.
	Secrets map[string]string
	Moved   []string
	// In are the client configs that define a server of this name (the
	// first is Client's), each of which a move takes it out of.
	In []ClientConfig
}

// Discover reads the known clients' config files (JSON with comments
// allowed) and returns the servers they define, in client then name order.
// A server defined by several clients is returned once, from the first,
// with every client in In. Unreadable files are reported in problems and
// skipped.
func Discover(configs []ClientConfig) (found []Found, problems []error) {
	at := map[string]int{}
	for _, cc := range configs {
		data, err := os.ReadFile(cc.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("reading %s: %w", cc.Path, err))
			continue
		}
		imp, err := config.ParseImport(cc.Path, data)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, r := range imp.Refused {
			problems = append(problems, r)
		}
		for _, name := range slices.Sorted(maps.Keys(imp.Sources)) {
			if src := imp.Sources[name]; name == "capabilities" || isProfileEntry(name, src.Args, src.URL) {
				continue // the hub itself
			}
			if i, seen := at[name]; seen {
				found[i].In = append(found[i].In, cc)
				continue
			}
			at[name] = len(found)
			f := Found{Client: cc.Client, File: cc.Path, Name: name, Source: imp.Sources[name], Secrets: map[string]string{}, In: []ClientConfig{cc}}
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
func DefaultSources(p config.Paths, npx string) map[string]*config.Source {
	return map[string]*config.Source{
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

// ImportOffer is an open offer to import the servers a first run found,
// kept until a person decides. It holds no secret: only names and where
// each server was found.
type ImportOffer struct {
	Created time.Time       `json:"created"`
	Servers []OfferedServer `json:"servers"`
}

// OfferedServer is one server of an ImportOffer.
type OfferedServer struct {
	Name    string   `json:"name"`
	Clients []string `json:"clients"`           // the clients that run it
	Files   []string `json:"files"`             // their config files
	Secrets []string `json:"secrets,omitempty"` // "env.GITHUB_TOKEN": values that move into the keychain
}

// NewImportOffer describes found servers as an offer.
func NewImportOffer(found []Found, now time.Time) *ImportOffer {
	o := &ImportOffer{Created: now.UTC().Truncate(time.Second)}
	for _, f := range found {
		s := OfferedServer{Name: f.Name}
		for _, cc := range f.In {
			s.Clients = append(s.Clients, cc.Client)
			s.Files = append(s.Files, cc.Path)
		}
		for _, m := range f.Moved {
			s.Secrets = append(s.Secrets, strings.TrimPrefix(m, f.Name+"."))
		}
		o.Servers = append(o.Servers, s)
	}
	return o
}

// SaveImportOffer writes the offer into the home (0600).
func SaveImportOffer(p config.Paths, o *ImportOffer) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(p.ImportOffer(), append(b, '\n'), 0o600)
}

// LoadImportOffer returns the open offer, or nil when there is none.
func LoadImportOffer(p config.Paths) (*ImportOffer, error) {
	b, err := os.ReadFile(p.ImportOffer())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var o ImportOffer
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, &config.Error{File: p.ImportOffer(), Problem: "not an import offer (" + config.JSONProblem(b, err) + "); delete it to close the offer"}
	}
	return &o, nil
}

// CloseImportOffer removes the open offer; closing none is not an error.
func CloseImportOffer(p config.Paths) error {
	if err := os.Remove(p.ImportOffer()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ImportChoice is a person's answer for one found server.
type ImportChoice struct {
	Name string `json:"name"`
	// Move takes the server out of the clients' files (their entries,
	// plaintext secrets included, give way to the capabilities entry), so
	// it does not run twice: once in the client and once in the hub.
	Move bool `json:"move"`
}

// ImportReport says what ImportFound did.
type ImportReport struct {
	Imported []string        // source names added to config.json
	Skipped  []string        // a source of that name existed
	Secrets  []string        // "github.env.GITHUB_TOKEN": moved into the keychain
	Files    []InstallResult // client files changed by moves, with their backups
}

// ImportFound imports the chosen servers of found into the home at p: their
// secrets go into kc first, then config.json references them; then each
// server chosen with Move is taken out of every client file that defines
// it, and the capabilities entry (entry(client)) is set there. The open
// offer, if any, is closed: the person decided.
//
// A server whose secrets cannot be stored is not imported (and not moved);
// the error says which, and the others are imported all the same.
func ImportFound(p config.Paths, kc keychain.Keychain, found []Found, choices []ImportChoice, entry func(client string) map[string]any, now time.Time) (ImportReport, error) {
	var rep ImportReport
	byName := map[string]Found{}
	for _, f := range found {
		byName[f.Name] = f
	}
	cfg, err := config.Load(p.Config())
	if err != nil {
		return rep, err
	}
	var errs []string
	moves := map[string][]string{}          // client file -> server names
	moved := map[string]map[string]string{} // client file -> keychain key -> secret
	configs := map[string]ClientConfig{}
	for _, c := range choices {
		f, ok := byName[c.Name]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: no such server was found", c.Name))
			continue
		}
		if _, exists := cfg.Sources[f.Name]; exists {
			rep.Skipped = append(rep.Skipped, f.Name)
			continue
		}
		if err := config.StoreSecrets(kc, f.Secrets); err != nil {
			errs = append(errs, fmt.Sprintf("%s: its secrets cannot go to the keychain: %v", f.Name, err))
			continue
		}
		if err := cfg.AddSource(p.Config(), f.Name, f.Source, false); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		rep.Imported = append(rep.Imported, f.Name)
		rep.Secrets = append(rep.Secrets, f.Moved...)
		if c.Move {
			for _, cc := range f.In {
				moves[cc.Path] = append(moves[cc.Path], f.Name)
				configs[cc.Path] = cc
				if moved[cc.Path] == nil {
					moved[cc.Path] = map[string]string{}
				}
				maps.Copy(moved[cc.Path], f.Secrets)
			}
		}
	}
	if err := cfg.Save(p.Config()); err != nil {
		return rep, err
	}
	// Only now that config.json runs them are the servers taken out of the
	// clients: a failure before leaves every client file as it was.
	for _, path := range slices.Sorted(maps.Keys(moves)) {
		cc := configs[path]
		res, err := MoveOut(cc, moves[path], moved[path], entry(cc.Client), now)
		if err != nil {
			errs = append(errs, fmt.Sprintf("moving out of %s: %v", path, err))
			continue
		}
		if res.Changed {
			rep.Files = append(rep.Files, res)
		}
	}
	if err := CloseImportOffer(p); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return rep, errors.New(strings.Join(errs, "; "))
	}
	return rep, nil
}
