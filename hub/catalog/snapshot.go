package catalog

// The catalog at one moment: its tools, found by address, by source and
// by namespace, and the namespaces a run of model code gets.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/sandbox"
)

// Tool is one upstream tool as the catalog names it.
type Tool struct {
	Source    string // the source's config name
	Namespace string // its JavaScript global, naming.Namespace(Source)
	Name      string // the upstream MCP name
	JSName    string // the method name, kept per (Source, Name) in the store
	Address   string // Namespace + "." + JSName
	Title     string
	// Description is the upstream's description, as is.
	Description string
	// InputSchema and OutputSchema are the upstream's JSON, kept even when
	// they are not valid JSON Schema; InputSchema may be empty or null.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *mcp.ToolAnnotations
	// Request is what a call of an OpenAPI operation sends: its method,
	// path template and server; nil for an MCP tool.
	Request *upstream.RESTRequest
	// Hash is the hex SHA-256 of the canonical JSON of the definition
	// (name, title, description, schemas, annotations, and an OpenAPI
	// operation's request).
	Hash string
	// Pinned is the hash of the definition the person consented to or
	// first saw ("" when none is pinned). When it differs from Hash the
	// tool is changed: Change says what changed, in one line, and Updated
	// is when the catalog stored the current definition.
	Pinned  string
	Change  string
	Updated time.Time
	// PinnedDefinition is the JSON of the pinned definition when the tool
	// is changed and the store kept it, in canonical form as
	// DefinitionJSON gives the current one's, for a person to see the
	// difference; nil otherwise.
	PinnedDefinition json.RawMessage
}

// Changed reports whether the tool's definition differs from the one
// pinned for it.
func (t *Tool) Changed() bool { return t.Pinned != "" && t.Pinned != t.Hash }

// Deprecated reports whether the tool is an OpenAPI operation its API
// marks deprecated: kept for older callers, with another to use.
func (t *Tool) Deprecated() bool { return t.Request != nil && t.Request.Deprecated }

// ChangedDefinition returns a changed tool's definition as it was accepted
// (nil when the store did not keep it) and as it is now, with the current
// one's hash.
func (s *Snapshot) ChangedDefinition(address string) (was, is json.RawMessage, hash string, err error) {
	t, ok := s.Lookup(address)
	if !ok || !t.Changed() {
		return nil, nil, "", fmt.Errorf("%s has no changed definition (accepted already, or no longer in the catalog)", address)
	}
	is, err = t.DefinitionJSON()
	return t.PinnedDefinition, is, t.Hash, err
}

// Snapshot is the catalog at one moment. It is immutable: share it freely,
// and do not modify its Tools.
type Snapshot struct {
	Tools   []*Tool // sorted by Address
	Version uint64  // grows by one with every change

	byAddress  map[string]*Tool
	byName     map[[2]string]*Tool // (source, MCP name)
	bySource   map[string][]*Tool
	namespaces []string

	// SandboxNamespaces for the config sandboxCfg.
	sandboxMu  sync.Mutex
	sandboxCfg *config.Config
	sandboxNS  []sandbox.Namespace

	schemas sync.Map // tool hash -> *jsonschema.Resolved, or nil when unusable
}

// InputSchema returns tool's input schema resolved for validation, or nil
// when it has none or the validator cannot use it. Each is resolved once
// per snapshot, and goes with it.
func (s *Snapshot) InputSchema(tool *Tool) *jsonschema.Resolved {
	if len(tool.InputSchema) == 0 || string(tool.InputSchema) == "null" {
		return nil
	}
	if v, ok := s.schemas.Load(tool.Hash); ok {
		return v.(*jsonschema.Resolved)
	}
	var resolved *jsonschema.Resolved
	var schema jsonschema.Schema
	if json.Unmarshal(tool.InputSchema, &schema) == nil {
		if r, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false}); err == nil {
			resolved = r
		}
	}
	v, _ := s.schemas.LoadOrStore(tool.Hash, resolved)
	return v.(*jsonschema.Resolved)
}

// Lookup finds a tool by address ("github.createIssue").
func (s *Snapshot) Lookup(address string) (*Tool, bool) {
	t, ok := s.byAddress[address]
	return t, ok
}

// Namespaces returns the namespaces that have tools, sorted.
func (s *Snapshot) Namespaces() []string { return s.namespaces }

// BySource returns the tools of a source (by config name), sorted by
// Address.
func (s *Snapshot) BySource(source string) []*Tool { return s.bySource[source] }

// sameTools reports whether a (sorted) and b (any order) hold the same
// tools under the same addresses, pinned to the same definitions.
func sameTools(a, b []*Tool) bool {
	if len(a) != len(b) {
		return false
	}
	have := make(map[string]string, len(a))
	for _, t := range a {
		have[t.Address] = t.Source + "\x00" + t.Hash + "\x00" + t.Pinned
	}
	for _, t := range b {
		if have[t.Address] != t.Source+"\x00"+t.Hash+"\x00"+t.Pinned {
			return false
		}
	}
	return true
}

func NewSnapshot(tools []*Tool, version uint64) *Snapshot {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Address < tools[j].Address })
	s := &Snapshot{
		Tools:     tools,
		Version:   version,
		byAddress: make(map[string]*Tool, len(tools)),
		byName:    make(map[[2]string]*Tool, len(tools)),
		bySource:  map[string][]*Tool{},
	}
	for _, t := range tools {
		s.byAddress[t.Address] = t
		s.byName[[2]string{t.Source, t.Name}] = t
		if len(s.bySource[t.Source]) == 0 {
			s.namespaces = append(s.namespaces, t.Namespace)
		}
		s.bySource[t.Source] = append(s.bySource[t.Source], t)
	}
	sort.Strings(s.namespaces)
	return s
}

// String is a one-line summary for logs: "3 namespaces, 42 tools, version 7".
func (s *Snapshot) String() string {
	return fmt.Sprintf("%d namespaces, %d tools, version %d", len(s.namespaces), len(s.Tools), s.Version)
}

// SandboxNamespaces returns the namespaces a run gets: every configured
// source's, whatever its state. A source whose tools the catalog lists
// gets them; one whose tools are not known (never listed: still starting,
// down, waiting for a secret) is open, so a call to it reaches the hub,
// which says what is wrong. A source whose namespace another source
// already has is left out, as the catalog leaves it out.
func (s *Snapshot) SandboxNamespaces(cfg *config.Config) []sandbox.Namespace {
	s.sandboxMu.Lock()
	defer s.sandboxMu.Unlock()
	if s.sandboxNS != nil && s.sandboxCfg == cfg {
		return s.sandboxNS
	}
	byNS := map[string][]string{}
	for _, t := range s.Tools {
		byNS[t.Namespace] = append(byNS[t.Namespace], t.JSName)
	}
	open := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
		ns := naming.Namespace(name)
		if _, taken := byNS[ns]; taken || sandbox.CheckNamespace(ns) != nil {
			continue
		}
		byNS[ns], open[ns] = nil, true
	}
	out := make([]sandbox.Namespace, 0, len(byNS))
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		out = append(out, sandbox.Namespace{Name: ns, Tools: byNS[ns], Open: open[ns]})
	}
	s.sandboxNS, s.sandboxCfg = out, cfg
	return out
}
