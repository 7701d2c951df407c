package hub

// The tool catalog.
//
// The catalog is every tool of every enabled source, as the guest sees it:
// github.createIssue. It lives in the store (table tools), so a hub answers
// search from the last known tools before any upstream is up, and it is
// refreshed from the upstreams at start, on config change and when an
// upstream says its tools changed. Readers take an immutable Snapshot; a
// refresh builds a new one and swaps it in atomically.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// Tool is one upstream tool as the catalog names it.
type Tool struct {
	Source    string // the source's config name
	Namespace string // its JavaScript global, Namespace(Source)
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
	Request *RESTRequest
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
}

// Changed reports whether the tool's definition differs from the one
// pinned for it.
func (t *Tool) Changed() bool { return t.Pinned != "" && t.Pinned != t.Hash }

// Snapshot is the catalog at one moment. It is immutable: share it freely,
// and do not modify its Tools.
type Snapshot struct {
	Tools   []*Tool // sorted by Address
	Version uint64  // grows by one with every change

	byAddress  map[string]*Tool
	byName     map[[2]string]*Tool // (source, MCP name)
	bySource   map[string][]*Tool
	namespaces []string

	// sandboxNamespaces (startup.go) for the config sandboxCfg.
	sandboxMu  sync.Mutex
	sandboxCfg *Config
	sandboxNS  []sandbox.Namespace

	schemas sync.Map // tool hash -> *jsonschema.Resolved, or nil when unusable
}

// inputSchema returns tool's input schema resolved for validation, or nil
// when it has none or the validator cannot use it. Each is resolved once
// per snapshot, and goes with it.
func (s *Snapshot) inputSchema(tool *Tool) *jsonschema.Resolved {
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

// ToolChange is a tool whose definition differs from the one pinned for it
// (the one the person consented to or first saw), until the person accepts
// the new one.
type ToolChange struct {
	Source  string
	Name    string // the upstream MCP name
	Address string
	OldHash string // the pinned definition
	NewHash string
	Change  string // what changed, in one line
	At      time.Time
}

// Catalog keeps the tool catalog and its store.
//
// All methods are safe for concurrent use. Refresh and Load run one at a
// time; Snapshot never blocks. Subscribers run on the goroutine that swapped
// the snapshot, in order, while the next refresh waits: they must be quick
// and must not call Refresh or Load. The catalog refreshes a source on its
// own, debounced, when its upstream reports notifications/tools/list_changed,
// using the config of the last Load or Refresh; Close stops that.
type Catalog struct {
	db  *store.DB
	up  *Upstreams
	log *slog.Logger

	snap      atomic.Pointer[Snapshot]
	refreshMu sync.Mutex // one Load or Refresh at a time
	// rebuildMu serialises rebuilds: a Load's or a Refresh's, and one after
	// a pin moved, which does not wait for a Refresh listing upstreams.
	rebuildMu sync.Mutex

	// debounce is how long the catalog gathers list_changed notifications
	// before refreshing. sourceTimeout bounds listing one source.
	debounce      time.Duration
	sourceTimeout time.Duration
	ctx           context.Context // cancelled by Close
	cancel        context.CancelFunc
	wg            sync.WaitGroup

	mu       sync.Mutex
	cfg      *Config
	subs     map[int]func(*Snapshot)
	nextSub  int
	pending  map[string]bool // sources to refresh after the debounce
	watching bool            // the debounce goroutine runs
	closed   bool

	// listings is what the start-up wait knows of each source's listings
	// (startup.go).
	listings listings
	// warnings say what each source's last listing skipped or cut.
	warnings sourceWarnings
	// decisionsMoved is set when a store moved remembered allows to other
	// definitions (migrateRESTPin); the hub reloads its policy.
	decisionsMoved atomic.Bool
}

const defaultCatalogDebounce = 300 * time.Millisecond

// NewCatalog returns an empty catalog over db, listing tools through up. It
// subscribes to up's list_changed notifications. up may be nil (the catalog
// then serves what the store holds, and Refresh fails every source).
func NewCatalog(db *store.DB, up *Upstreams, logger *slog.Logger) *Catalog {
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Catalog{
		db: db, up: up, log: logger,
		debounce:      defaultCatalogDebounce,
		sourceTimeout: DefaultStartTimeout + DefaultCallTimeout,
		ctx:           ctx,
		cancel:        cancel,
		subs:          map[int]func(*Snapshot){},
		pending:       map[string]bool{},
	}
	if up != nil {
		c.sourceTimeout = up.opts.StartTimeout + up.opts.CallTimeout
		up.addToolsChangedHook(c.toolsChanged)
	}
	c.snap.Store(newSnapshot(nil, 0))
	return c
}

// Snapshot returns the current catalog. It is cheap and never blocks.
func (c *Catalog) Snapshot() *Snapshot { return c.snap.Load() }

// Subscribe calls fn with each new snapshot after it is swapped in, until
// cancel is called.
func (c *Catalog) Subscribe(fn func(*Snapshot)) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextSub
	c.nextSub++
	c.subs[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.subs, id)
	}
}

// Close stops the debounced refreshes and waits for one in progress. The
// catalog still answers Snapshot, Load and Refresh afterwards.
func (c *Catalog) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}

// Load fills the catalog from the store, for the enabled sources of cfg,
// without asking any upstream.
func (c *Catalog) Load(ctx context.Context, cfg *Config) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.setConfig(cfg)
	_, err := c.rebuild(ctx, cfg)
	return err
}

// Refresh lists the tools of the named sources (every source of cfg when
// none is named) from the upstreams, concurrently, each within its own
// timeout. It stores what it got, records new and changed definitions as
// open changes, drops the tools of sources no longer in cfg, and swaps in a
// new snapshot when anything changed. A source that fails keeps its stored
// tools; its error is in the result, keyed by source. Disabled sources have
// no tools.
//
// Each source's tools are stored and swapped in as soon as its listing
// arrives, so a slow or hanging source does not hold back the others; the
// start-up wait ([Catalog.listingOf]) sees each source finish.
func (c *Catalog) Refresh(ctx context.Context, cfg *Config, sources ...string) map[string]error {
	if len(sources) == 0 {
		sources = sortedKeys(cfg.Sources)
	}
	batch := c.queueListings(cfg, sources)
	defer batch.finish() // any not reported below
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.setConfig(cfg)
	errs := map[string]error{}
	type listing struct {
		source string
		tools  []*mcp.Tool
		err    error
	}
	var targets []string
	for _, name := range sources {
		switch def := cfg.Sources[name]; {
		case def == nil:
			errs[name] = &UpstreamError{Source: name, Kind: UpstreamKindUnknownSource, Err: errors.New("no such source in the config")}
		case !def.Disabled:
			targets = append(targets, name)
		}
	}
	results := make(chan listing, len(targets))
	for _, name := range targets {
		go func() {
			r := listing{source: name}
			if c.up == nil {
				r.err = errors.New("no upstreams to list tools from")
			} else {
				lctx, cancel := context.WithTimeout(ctx, c.sourceTimeout)
				r.tools, r.err = c.up.ListTools(lctx, name)
				cancel()
			}
			results <- r
		}()
	}
	stored := false
	for range targets {
		r := <-results
		var partial *ListingLimitError
		if errors.As(r.err, &partial) {
			r.err = nil // served up to the bound
		}
		if r.err == nil {
			c.warnings.set(r.source, partial.lines())
			for _, w := range partial.lines() {
				c.log.Warn("tools listing served in part", "source", r.source, "warning", w)
			}
		}
		if r.err != nil {
			errs[r.source] = r.err
		} else if err := c.store(ctx, cfg, map[string][]*mcp.Tool{r.source: r.tools}); err != nil {
			errs[r.source] = err
		} else {
			stored = true
			collisions, err := c.rebuild(ctx, cfg)
			if err == nil {
				err = collisions[r.source]
			}
			if err != nil {
				errs[r.source] = err
			}
		}
		batch.done(r.source, errs[r.source])
	}
	if !stored {
		// Nothing was listed: still drop the tools of sources removed or
		// disabled since the last refresh.
		err := c.store(ctx, cfg, nil)
		if err == nil {
			_, err = c.rebuild(ctx, cfg)
		}
		if err != nil {
			for _, name := range targets {
				if errs[name] == nil {
					errs[name] = err
				}
			}
		}
	}
	return errs
}

// Changes returns the tools whose definitions changed since they were
// pinned, oldest change first.
func (c *Catalog) Changes(ctx context.Context) ([]ToolChange, error) {
	var out []ToolChange
	for _, t := range c.Snapshot().Tools {
		if t.Changed() {
			out = append(out, ToolChange{Source: t.Source, Name: t.Name, Address: t.Address,
				OldHash: t.Pinned, NewHash: t.Hash, Change: t.Change, At: t.Updated})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// Accept pins the current definitions of the tools target names (an
// address in the JavaScript or the MCP form, a namespace or a source, a
// glob) and returns the changes it accepted. Remembered allows given for a
// tool's earlier pinned definition move to the accepted one. Accepting a
// tool without a change is not an error; a target that names no tool is.
func (c *Catalog) Accept(ctx context.Context, target string) ([]ToolChange, error) {
	var tools []*Tool
	for _, t := range c.Snapshot().Tools {
		if targetMatches(target, t.Source, t.Namespace, t.Name, t.JSName) {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("accepting %q: no such tool or namespace in the catalog", target)
	}
	hashes := make([]string, len(tools))
	for i, t := range tools {
		hashes[i] = t.Hash
	}
	return c.pin(ctx, tools, hashes)
}

// pin pins each tool to the definition with the given hash, when that is
// still the tool's stored definition, and returns the changes it closed.
// Remembered allows for the tool's earlier pin move to the new one, in the
// same transaction. The snapshot is rebuilt when a pin moved; a Refresh
// listing upstreams meanwhile is not waited for.
func (c *Catalog) pin(ctx context.Context, tools []*Tool, hashes []string) ([]ToolChange, error) {
	pins := make([]store.Pin, len(tools))
	for i, t := range tools {
		pins[i] = store.Pin{Source: t.Source, Name: t.Name, Address: t.Address, Hash: hashes[i], Was: t.Pinned}
	}
	pinned, err := c.db.PinTools(ctx, pins, time.Now())
	if err != nil {
		return nil, err
	}
	var accepted []ToolChange
	moved := false
	for i, t := range tools {
		if !pinned[i] {
			continue // pinned already, or the definition moved on
		}
		moved = true
		if t.Pinned != "" && t.Pinned != hashes[i] {
			accepted = append(accepted, ToolChange{Source: t.Source, Name: t.Name, Address: t.Address,
				OldHash: t.Pinned, NewHash: hashes[i], Change: t.Change, At: t.Updated})
		}
	}
	if moved {
		c.mu.Lock()
		cfg := c.cfg
		c.mu.Unlock()
		if cfg != nil {
			if _, err := c.rebuild(ctx, cfg); err != nil {
				return accepted, err
			}
		}
	}
	return accepted, nil
}

func (c *Catalog) setConfig(cfg *Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg = cfg
}

// toolDefinition is what the store keeps of a tool, and what its hash
// covers.
type toolDefinition struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	// Request is an OpenAPI operation's; an MCP tool has none, so its
	// definition and hash are what they were before requests were kept.
	Request *RESTRequest `json:"request,omitempty"`
}

// definitionOf turns a listed tool into its canonical definition and hash.
// A schema that does not marshal is kept as null rather than dropping the
// tool.
func definitionOf(t *mcp.Tool) (def []byte, hash string, err error) {
	return definitionWith(t, nil)
}

// definitionWith is definitionOf with an OpenAPI operation's request, which
// the hash then covers too: a call that would go elsewhere, by another
// method or to another path is another definition.
func definitionWith(t *mcp.Tool, req *RESTRequest) (def []byte, hash string, err error) {
	d := toolDefinition{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations, Request: req}
	d.InputSchema = rawSchema(t.InputSchema)
	d.OutputSchema = rawSchema(t.OutputSchema)
	def, err = canonicalJSON(d)
	if err != nil {
		return nil, "", fmt.Errorf("tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(def)
	return def, hex.EncodeToString(sum[:]), nil
}

func rawSchema(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}

// canonicalJSON marshals v with object keys sorted at every depth and
// numbers kept as written.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}

// store writes the listed tools of each source, records their changes and
// drops the tools of sources that are no longer configured, in one
// transaction.
func (c *Catalog) store(ctx context.Context, cfg *Config, listed map[string][]*mcp.Tool) error {
	tx, err := c.db.BeginCatalog(ctx)
	if err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	defer tx.Rollback()
	now := time.Now()
	decisionsMoved := false

	stored, err := tx.Sources(ctx)
	if err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	for _, src := range stored {
		if _, ok := cfg.Sources[src]; ok {
			continue
		}
		// Pins stay: a source added back is checked against them.
		if err := tx.DropSource(ctx, src); err != nil {
			return fmt.Errorf("dropping tools of %s: %w", src, err)
		}
	}

	for _, src := range sortedKeys(listed) {
		rest := cfg.Sources[src] != nil && cfg.Sources[src].OpenAPI != ""
		var origins *pinnedOrigins
		if rest {
			if origins, err = readPinnedOrigins(ctx, tx, src); err != nil {
				return fmt.Errorf("storing tools of %s: %w", src, err)
			}
		}
		old, err := tx.Hashes(ctx, src)
		if err != nil {
			return fmt.Errorf("storing tools of %s: %w", src, err)
		}
		seen := map[string]bool{}
		for _, t := range listed[src] {
			if t == nil || t.Name == "" || seen[t.Name] {
				if t != nil {
					c.log.Warn("skipping a tool without a name or listed twice", "source", src, "tool", truncateName(t.Name))
					c.warnings.add(src, fmt.Sprintf("skipped tool %q: it has no name or was listed twice", truncateName(t.Name)))
				}
				continue
			}
			seen[t.Name] = true
			var req *RESTRequest
			if rest {
				req = restRequestOf(t)
			}
			def, hash, err := definitionWith(t, req)
			if err != nil {
				c.log.Warn("skipping a tool whose definition does not encode", "source", src, "error", err)
				c.warnings.add(src, fmt.Sprintf("skipped tool %q: its definition does not encode", truncateName(t.Name)))
				continue
			}
			prev, had := old[t.Name]
			if had && prev == hash {
				continue
			}
			if err := tx.PutTool(ctx, src, t.Name, def, hash, now); err != nil {
				return fmt.Errorf("storing tool %s of %s: %w", t.Name, src, err)
			}
			if req != nil {
				if moved, err := migrateRESTPin(ctx, tx, src, t, hash, def, now); err != nil {
					return err
				} else if moved {
					decisionsMoved = true
				}
			}
			// The first definition seen is pinned; a later one is a change
			// until the person accepts it. An OpenAPI operation first seen
			// on another origin than the source's pinned operations is
			// pinned as if it were on theirs: it asks until accepted.
			pinDef, pinHash := def, hash
			if req != nil && origins.foreign(req.Server) {
				moved := *req
				moved.Server = origins.server
				if pinDef, pinHash, err = definitionWith(t, &moved); err != nil {
					return fmt.Errorf("pinning tool %s of %s: %w", t.Name, src, err)
				}
			}
			if err := tx.PinFirst(ctx, src, t.Name, pinHash, pinDef, now); err != nil {
				return fmt.Errorf("pinning tool %s of %s: %w", t.Name, src, err)
			}
		}
		for name := range old {
			if seen[name] {
				continue
			}
			// Its pin stays: a tool added back with another definition is
			// changed.
			if err := tx.DropTool(ctx, src, name); err != nil {
				return fmt.Errorf("dropping tool %s of %s: %w", name, src, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	if decisionsMoved {
		c.decisionsMoved.Store(true)
	}
	return nil
}

// rebuild reads the tools of cfg's enabled sources from the store and
// swaps in a new snapshot when they differ from the current one. It returns
// the sources left out because another source already has their namespace.
func (c *Catalog) rebuild(ctx context.Context, cfg *Config) (map[string]error, error) {
	c.rebuildMu.Lock()
	defer c.rebuildMu.Unlock()
	stored, err := c.db.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	bySource := map[string][]*Tool{}
	for _, st := range stored {
		src, name, hash, pinned := st.Source, st.Name, st.Hash, st.Pinned
		if s := cfg.Sources[src]; s == nil || s.Disabled {
			continue
		}
		var d toolDefinition
		if err := json.Unmarshal(st.Definition, &d); err != nil {
			c.log.Warn("skipping a stored tool whose definition does not decode", "source", src, "tool", name, "error", err)
			continue
		}
		bySource[src] = append(bySource[src], &Tool{
			Source: src, Namespace: Namespace(src), Name: name,
			Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations,
			Request: d.Request, Hash: hash, Pinned: pinned, Change: pinnedChange(pinned, hash, st.PinnedDefinition, &d),
			Updated: st.Updated,
		})
	}

	// Once the new snapshot is in: a start-up wait that sees a source
	// listed finds its tools.
	defer c.listings.markListed(bySource)
	jsNames, err := c.assignAddresses(ctx, bySource, cfg.Catalog.WithDefaults().MaxTools)
	if err != nil {
		return nil, err
	}
	collisions := map[string]error{}
	owner := map[string]string{} // namespace -> source
	var tools []*Tool
	for _, src := range sortedKeys(bySource) {
		ns := Namespace(src)
		if other, taken := owner[ns]; taken {
			collisions[src] = fmt.Errorf("source %q has the namespace %q of source %q; rename one of them", src, ns, other)
			c.log.Warn("namespace collision", "source", src, "namespace", ns, "other", other)
			continue
		}
		owner[ns] = src
		for _, t := range bySource[src] {
			if t.JSName = jsNames[src][t.Name]; t.JSName == "" || sandbox.CheckTool(t.JSName) != nil {
				continue // no name to call it by; assignAddresses said so
			}
			t.Address = ns + "." + t.JSName
			tools = append(tools, t)
		}
	}

	cur := c.Snapshot()
	if sameTools(cur.Tools, tools) {
		return collisions, nil
	}
	next := newSnapshot(tools, cur.Version+1)
	c.snap.Store(next)
	c.mu.Lock()
	subs := make([]func(*Snapshot), 0, len(c.subs))
	for _, id := range sortedKeys(c.subs) {
		subs = append(subs, c.subs[id])
	}
	c.mu.Unlock()
	for _, fn := range subs {
		fn(next)
	}
	return collisions, nil
}

// assignAddresses returns the method name of each tool in bySource, by
// source and MCP name. A tool listed for the first time gets one in the
// same transaction that stores it: its base name (baseJSName), or the
// first free numeric suffix when another tool of the source, listed now or
// before, has that name. A method name, once given, is never given to
// another MCP name, so a name an upstream adds later cannot take over an
// address the person approved. A tool that can have no name is left out,
// with a warning.
//
// A source keeps the addresses of up to keepRetired tools it no longer
// lists, newest first, so a tool added back gets its own address again
// while a server that lists ever new names cannot grow the table without
// end (only then can an old name's address go to a new one).
func (c *Catalog) assignAddresses(ctx context.Context, bySource map[string][]*Tool, keepRetired int) (map[string]map[string]string, error) {
	given, err := c.db.Addresses(ctx)
	if err != nil {
		return nil, err
	}
	missing := map[string][]string{}
	for src, ts := range bySource {
		for _, t := range ts {
			if given[src][t.Name] == "" {
				missing[src] = append(missing[src], t.Name)
			}
		}
	}
	if len(missing) == 0 {
		return given, nil
	}
	tx, err := c.db.BeginCatalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("assigning addresses: %w", err)
	}
	defer tx.Rollback()
	// Again inside the transaction: another process on this home may have
	// given some since.
	if given, err = tx.Addresses(ctx); err != nil {
		return nil, err
	}
	now := time.Now()
	for _, src := range sortedKeys(missing) {
		taken := map[string]string{}
		for name, js := range given[src] {
			taken[js] = name
		}
		var names []string
		for _, n := range missing[src] {
			if given[src][n] == "" {
				names = append(names, n)
			}
		}
		assigned := assignJSNames(taken, names)
		if given[src] == nil {
			given[src] = map[string]string{}
		}
		for _, name := range names {
			js, ok := assigned[name]
			if !ok {
				c.log.Warn("skipping a tool whose name gives no JavaScript name", "source", src, "tool", truncateName(name))
				c.warnings.add(src, fmt.Sprintf("skipped tool %q: its name gives no JavaScript name", truncateName(name)))
				continue
			}
			if err := tx.GiveAddress(ctx, src, name, js, now); err != nil {
				return nil, fmt.Errorf("assigning an address to tool %s of %s: %w", truncateName(name), src, err)
			}
			given[src][name] = js
			if base := baseJSName(name); js != base {
				c.log.Warn("a new tool's address is taken by another tool; it gets a suffix", "source", src, "tool", truncateName(name),
					"address", Namespace(src)+"."+js, "taken", Namespace(src)+"."+base, "by", truncateName(taken[base]))
			}
		}
		if err := tx.DropRetiredAddresses(ctx, src, keepRetired); err != nil {
			return nil, fmt.Errorf("dropping old addresses of %s: %w", src, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("assigning addresses: %w", err)
	}
	return given, nil
}

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

func newSnapshot(tools []*Tool, version uint64) *Snapshot {
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

// toolsChanged schedules a debounced refresh of source. It never blocks.
func (c *Catalog) toolsChanged(source string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.pending[source] = true
	if c.watching {
		return
	}
	c.watching = true
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.refreshPending()
	}()
}

// refreshPending waits out the debounce, then refreshes the sources that
// reported changes, until none is left or the catalog closes.
func (c *Catalog) refreshPending() {
	for {
		t := time.NewTimer(c.debounce)
		select {
		case <-c.ctx.Done():
			t.Stop()
			c.mu.Lock()
			c.watching = false
			c.mu.Unlock()
			return
		case <-t.C:
		}
		c.mu.Lock()
		sources := sortedKeys(c.pending)
		clear(c.pending)
		cfg := c.cfg
		if len(sources) == 0 || cfg == nil {
			c.watching = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		errs := c.Refresh(c.ctx, cfg, sources...)
		if c.ctx.Err() != nil {
			continue // closing; the next round returns
		}
		for src, err := range errs {
			c.log.Warn("refreshing tools after list_changed failed", "source", src, "error", err)
		}
	}
}

// String is a one-line summary for logs: "3 namespaces, 42 tools, version 7".
func (s *Snapshot) String() string {
	return fmt.Sprintf("%d namespaces, %d tools, version %d", len(s.namespaces), len(s.Tools), s.Version)
}
