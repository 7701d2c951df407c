package catalog

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/sandbox"
)

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

// Lister lists the tools of a source and says when they changed: the
// upstream sessions (*Upstreams), which serve the OpenAPI sources too.
type Lister interface {
	// ListTools lists source's tools. A listing served in part returns the
	// tools kept with a *upstream.ListingLimitError.
	ListTools(ctx context.Context, source string) ([]*mcp.Tool, error)
	// OnToolsChanged registers fn, called with a source's name when its
	// tools changed (an MCP server's notifications/tools/list_changed). fn
	// must not block.
	OnToolsChanged(fn func(source string))
}

// CatalogOptions configures a Catalog. Zero values are the defaults; a nil
// *CatalogOptions is all defaults.
type Options struct {
	Logger *slog.Logger // default: slog.Default()
	// ListTimeout bounds listing one source: starting its session and one
	// complete tools/list (default DefaultListTimeout).
	ListTimeout time.Duration
	// Debounce is how long the catalog gathers list_changed notifications
	// before it refreshes (default 300ms).
	Debounce time.Duration
	// Config, when set, is the config as it is now. A Refresh that waited
	// for another one lists and stores with it rather than with the
	// config it was given, which may be older: a refresh started before
	// a source was enabled must not drop its tools after the refresh the
	// enabling started.
	Config func() *config.Config
}

// DefaultListTimeout bounds listing one source when CatalogOptions does
// not: an upstream session's default start and call timeouts.
const DefaultListTimeout = time.Minute

// Catalog keeps the tool catalog and its store.
//
// All methods are safe for concurrent use. Refresh and Load run one at a
// time; Snapshot never blocks. Subscribers run on the goroutine that swapped
// the snapshot, in order, while the next refresh waits: they must be quick
// and must not call Refresh or Load. The catalog refreshes a source on its
// own, debounced, when its Lister reports that its tools changed, using the
// config of the last Load or Refresh; Close stops that.
type Catalog struct {
	db     *store.DB
	lister Lister
	log    *slog.Logger

	snap      atomic.Pointer[Snapshot]
	refreshMu sync.Mutex // one Load or Refresh at a time
	// rebuildMu serialises rebuilds: a Load's or a Refresh's, and one after
	// a pin moved, which does not wait for a Refresh listing upstreams.
	rebuildMu sync.Mutex

	// debounce is how long the catalog gathers list_changed notifications
	// before refreshing. listTimeout bounds listing one source.
	debounce    time.Duration
	listTimeout time.Duration
	ctx         context.Context // cancelled by Close
	cancel      context.CancelFunc
	wg          sync.WaitGroup

	current func() *config.Config // Options.Config

	mu       sync.Mutex
	cfg      *config.Config
	subs     map[int]func(*Snapshot)
	nextSub  int
	pending  map[string]bool // sources to refresh after the debounce
	watching bool            // the debounce goroutine runs
	closed   bool

	// listings is what the start-up waits know of each source's listings
	// (listings.go).
	listings Listings
	// warnings say what each source's last listing skipped or cut.
	warnings sourceWarnings
	// digests are the listed digests of each source's tools as last
	// stored, by tool name (defineAll); store keeps them, under refreshMu.
	digests map[string]map[string]knownDigest
	// decisionsMoved is set when a store moved remembered allows to other
	// definitions (migrateRESTPin); the hub reloads its policy.
	decisionsMoved atomic.Bool
	// rewritten are the definitions a store wrote again with the same
	// hash (KeepDefinition), under mu: the next rebuild decodes them anew
	// rather than keeping the current snapshot's.
	rewritten map[toolKey]bool
}

const defaultCatalogDebounce = 300 * time.Millisecond

// NewCatalog returns an empty catalog over db, listing tools through
// lister. It registers for lister's reports of changed tools. lister may be
// nil (the catalog then serves what the store holds, and Refresh fails
// every source).
func New(db *store.DB, lister Lister, opts *Options) *Catalog {
	var o Options
	if opts != nil {
		o = *opts
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Catalog{
		db: db, lister: lister, log: cmp.Or(o.Logger, slog.Default()),
		debounce:    cmp.Or(o.Debounce, defaultCatalogDebounce),
		listTimeout: cmp.Or(o.ListTimeout, DefaultListTimeout),
		current:     o.Config,
		ctx:         ctx,
		cancel:      cancel,
		subs:        map[int]func(*Snapshot){},
		pending:     map[string]bool{},
	}
	if lister != nil {
		lister.OnToolsChanged(c.toolsChanged)
	}
	c.snap.Store(NewSnapshot(nil, 0))
	return c
}

// Snapshot returns the current catalog. It is cheap and never blocks.
func (c *Catalog) Snapshot() *Snapshot { return c.snap.Load() }

// Listings is what the catalog knows of each source's listings, for the
// waits of a caller that needs a source listed.
func (c *Catalog) Listings() *Listings { return &c.listings }

// DecisionsMoved reports whether a store moved remembered allows to other
// definitions (an OpenAPI pin migrated to its definition with the request)
// since the last call: the caller reloads its policy.
func (c *Catalog) DecisionsMoved() bool { return c.decisionsMoved.Swap(false) }

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
func (c *Catalog) Load(ctx context.Context, cfg *config.Config) error {
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
// start-up waits ([Catalog.Listings]) see each source finish.
func (c *Catalog) Refresh(ctx context.Context, cfg *config.Config, sources ...string) map[string]error {
	if len(sources) == 0 {
		sources = slices.Sorted(maps.Keys(cfg.Sources))
	}
	batch := c.queueListings(cfg, sources)
	defer batch.finish() // any not reported below
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	if c.current != nil {
		if now := c.current(); now != nil {
			cfg = now
		}
	}
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
			errs[name] = fmt.Errorf("source %q: no such source in the config", name)
		case !def.Disabled:
			targets = append(targets, name)
		}
	}
	results := make(chan listing, len(targets))
	for _, name := range targets {
		go func() {
			r := listing{source: name}
			if c.lister == nil {
				r.err = errors.New("no upstreams to list tools from")
			} else {
				lctx, cancel := context.WithTimeout(ctx, c.listTimeout)
				r.tools, r.err = c.lister.ListTools(lctx, name)
				cancel()
			}
			results <- r
		}()
	}
	warned := make(map[string][]string, len(targets)) // before this listing
	for _, name := range targets {
		warned[name] = c.Warnings(name)
	}
	stored := false
	for range targets {
		r := <-results
		var partial *upstream.ListingLimitError
		if errors.As(r.err, &partial) {
			r.err = nil // served up to the bound
		}
		if r.err == nil {
			c.warnings.set(r.source, limitWarnings(partial))
			// The warnings stay with the source for doctor, hub status
			// and the window to show; a log line each time the source is
			// listed again would only repeat them.
			for _, w := range limitWarnings(partial) {
				c.log.Info("tools listing served in part", "source", r.source, "warning", w)
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
	for _, name := range targets {
		if !slices.Equal(warned[name], c.Warnings(name)) {
			// What a listing skipped changed, whether or not its tools
			// did: the subscribers (the window) see it too.
			c.notify(c.Snapshot())
			break
		}
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
		if Matches(target, t.Source, t.Namespace, t.Name, t.JSName) {
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
	return c.Pin(ctx, tools, hashes)
}

// Shown is a changed tool as a person saw it: its address and the hash of
// the definition shown, the one accepting it pins.
type Shown struct {
	Address, Hash string
}

// AcceptShown pins each tool shown to the definition the person saw, and
// only to it: a tool whose definition changed again since (or that left
// the catalog) keeps its old pin, so its calls keep asking, and is
// returned in stale for the person to look at again. Accepting a tool
// already pinned to that definition is not an error.
func (c *Catalog) AcceptShown(ctx context.Context, shown []Shown) (accepted []ToolChange, stale []string, err error) {
	snap := c.Snapshot()
	var tools []*Tool
	var hashes []string
	for _, s := range shown {
		if t, ok := snap.Lookup(s.Address); ok && t.Hash == s.Hash {
			tools, hashes = append(tools, t), append(hashes, s.Hash)
		} else if !ok || t.Pinned != s.Hash {
			stale = append(stale, s.Address)
		}
	}
	if len(tools) > 0 {
		accepted, err = c.Pin(ctx, tools, hashes)
	}
	for _, t := range tools { // the store moved on since the snapshot
		if t.Changed() && !slices.ContainsFunc(accepted, func(a ToolChange) bool { return a.Address == t.Address }) {
			stale = append(stale, t.Address)
		}
	}
	return accepted, stale, err
}

// Pin pins each tool to the definition with the given hash, when that is
// still the tool's stored definition, and returns the changes it closed.
// Remembered allows for the tool's earlier pin move to the new one, in the
// same transaction. The snapshot is rebuilt when a pin moved; a Refresh
// listing upstreams meanwhile is not waited for.
func (c *Catalog) Pin(ctx context.Context, tools []*Tool, hashes []string) ([]ToolChange, error) {
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

func (c *Catalog) setConfig(cfg *config.Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg = cfg
}

// store writes the listed tools of each source, records their changes and
// drops the tools of sources that are no longer configured, in one
// transaction.
func (c *Catalog) store(ctx context.Context, cfg *config.Config, listed map[string][]*mcp.Tool) error {
	// The definitions first, outside the transaction: they are most of
	// the work, and need nothing of the store.
	defined := make(map[string][]definedTool, len(listed))
	for src, tools := range listed {
		defined[src] = defineAll(tools, cfg.Sources[src] != nil && cfg.Sources[src].OpenAPI != "", c.digests[src])
	}
	tx, err := c.db.BeginCatalog(ctx)
	if err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	defer tx.Rollback()
	now := time.Now()
	decisionsMoved := false
	var rewritten []toolKey

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

	lim := cfg.Catalog.WithDefaults()
	for _, src := range slices.Sorted(maps.Keys(listed)) {
		rest := cfg.Sources[src] != nil && cfg.Sources[src].OpenAPI != ""
		var origins *pinnedOrigins
		var pins map[string]string
		if rest {
			if origins, err = readPinnedOrigins(ctx, tx, src); err != nil {
				return fmt.Errorf("storing tools of %s: %w", src, err)
			}
			if pins, err = tx.PinHashes(ctx, src); err != nil {
				return fmt.Errorf("storing tools of %s: %w", src, err)
			}
		}
		old, err := tx.Hashes(ctx, src)
		if err != nil {
			return fmt.Errorf("storing tools of %s: %w", src, err)
		}
		// A server or program the source did not reach when its tools
		// were accepted has not been accepted: their pins are marked. An
		// OpenAPI operation's request, server included, is its definition.
		if def := cfg.Sources[src]; def != nil && !rest {
			if reach := def.ReachKey(); reach != "" {
				if err := tx.Reach(ctx, src, reach, now); err != nil {
					return fmt.Errorf("storing tools of %s: %w", src, err)
				}
			}
		}
		// Some of the source's pins went: a name it lists for the first
		// time since may be one of theirs.
		unseen, err := tx.PinsDropped(ctx, src)
		if err != nil {
			return fmt.Errorf("storing tools of %s: %w", src, err)
		}
		seen := map[string]bool{}
		for i, t := range listed[src] {
			if t == nil || t.Name == "" || seen[t.Name] {
				if t != nil {
					c.log.Warn("skipping a tool without a name or listed twice", "source", src, "tool", naming.Truncate(t.Name))
					c.warnings.add(src, fmt.Sprintf("skipped tool %q: it has no name or was listed twice", naming.Truncate(t.Name)))
				}
				continue
			}
			seen[t.Name] = true
			d := defined[src][i]
			req, def, hash, err := d.req, d.def, d.hash, d.err
			if prev, had := old[t.Name]; err == nil && def == nil && (!had || prev != hash) {
				// Listed as before, but the store holds another
				// definition: it is needed after all.
				def, hash, err = Definition(t, req)
			}
			if err != nil {
				c.log.Warn("skipping a tool whose definition does not encode", "source", src, "error", err)
				c.warnings.add(src, fmt.Sprintf("skipped tool %q: its definition does not encode", naming.Truncate(t.Name)))
				continue
			}
			prev, had := old[t.Name]
			if had && prev == hash {
				if def != nil {
					// The same definition: a store of an earlier
					// version may hold it with its schemas sorted.
					wrote, err := tx.KeepDefinition(ctx, src, t.Name, def, hash)
					if err != nil {
						return fmt.Errorf("storing tool %s of %s: %w", t.Name, src, err)
					}
					if wrote {
						rewritten = append(rewritten, toolKey{src, t.Name, hash})
					}
				}
				continue
			}
			if err := tx.PutTool(ctx, src, t.Name, def, hash, now); err != nil {
				return fmt.Errorf("storing tool %s of %s: %w", t.Name, src, err)
			}
			if pin, ok := pins[t.Name]; req != nil && ok && pin != hash {
				if moved, err := migrateRESTPin(ctx, tx, src, t, req, hash, def, now); err != nil {
					return err
				} else if moved {
					decisionsMoved = true
				}
			}
			// The first definition seen is pinned; a later one is a change
			// until the person accepts it. An OpenAPI operation first seen
			// on another origin than the source's pinned operations is
			// pinned as if it were on theirs: it asks until accepted;
			// unless its own server is on an origin the source lists as
			// the API's (Elsewhere).
			pinDef, pinHash := def, hash
			if req != nil && !req.Elsewhere && origins.foreign(req.Server) {
				moved := *req
				moved.Server = origins.server
				if pinDef, pinHash, err = Definition(t, &moved); err != nil {
					return fmt.Errorf("pinning tool %s of %s: %w", t.Name, src, err)
				}
			}
			pin := func() error { return tx.PinFirst(ctx, src, t.Name, pinHash, pinDef, now) }
			if unseen {
				pin = func() error { return tx.PinUnseen(ctx, src, t.Name, now) }
			}
			if err := pin(); err != nil {
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
		// As many as one listing may hold: a source that lists new names
		// at every listing grows the store no further.
		if _, err := tx.DropRetiredPins(ctx, src, lim.MaxTools, lim.MaxSourceBytes, now); err != nil {
			return fmt.Errorf("dropping retired pins of %s: %w", src, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	if len(rewritten) > 0 {
		c.mu.Lock()
		if c.rewritten == nil {
			c.rewritten = map[toolKey]bool{}
		}
		for _, k := range rewritten {
			c.rewritten[k] = true
		}
		c.mu.Unlock()
	}
	c.keepDigests(cfg, listed, defined)
	if decisionsMoved {
		c.decisionsMoved.Store(true)
	}
	return nil
}

// keepDigests keeps the listed digests of the tools just stored, for the
// next store to know them, and forgets those of sources cfg no longer has.
func (c *Catalog) keepDigests(cfg *config.Config, listed map[string][]*mcp.Tool, defined map[string][]definedTool) {
	if c.digests == nil {
		c.digests = map[string]map[string]knownDigest{}
	}
	for src := range c.digests {
		if cfg.Sources[src] == nil {
			delete(c.digests, src)
		}
	}
	for src, tools := range listed {
		known := make(map[string]knownDigest, len(tools))
		for i, t := range tools {
			if d := defined[src][i]; t != nil && d.err == nil && d.digest != (listedDigest{}) {
				known[t.Name] = knownDigest{d.digest, d.hash}
			}
		}
		c.digests[src] = known
	}
}

// rebuild reads the tools of cfg's enabled sources from the store and
// swaps in a new snapshot when they differ from the current one. It returns
// the sources left out because another source already has their namespace.
func (c *Catalog) rebuild(ctx context.Context, cfg *config.Config) (map[string]error, error) {
	c.rebuildMu.Lock()
	defer c.rebuildMu.Unlock()
	// Reading and decoding the definitions is most of the time a large
	// catalog takes to be read. A tool the current snapshot has with the
	// same definition, and not changed since its pin, is taken from it: a
	// refresh rebuilds once per source listed, and a source whose tools
	// did not change then costs no reading and no decoding.
	cur := c.Snapshot()
	c.mu.Lock()
	rewritten := c.rewritten
	c.rewritten = nil
	c.mu.Unlock()
	known := make(map[toolKey]*Tool, len(cur.Tools))
	for _, t := range cur.Tools {
		if k := (toolKey{t.Source, t.Name, t.Hash}); !t.Changed() && !rewritten[k] {
			known[k] = t
		}
	}
	reuse := func(st *store.Tool) *Tool {
		if st.Pinned != "" && st.Pinned != st.Hash {
			return nil
		}
		return known[toolKey{st.Source, st.Name, st.Hash}]
	}
	stored, err := c.readTools(ctx, cfg, reuse)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	// The others are decoded on every core: each is its own.
	decoded := make([]*Tool, len(stored))
	eachAtOnce(len(stored), func(i int) {
		st := &stored[i]
		src, name, hash, pinned := st.Source, st.Name, st.Hash, st.Pinned
		if s := cfg.Sources[src]; s == nil || s.Disabled {
			return
		}
		if k := reuse(st); k != nil {
			decoded[i] = &Tool{
				Source: src, Namespace: k.Namespace, Name: name,
				Title: k.Title, Description: k.Description,
				InputSchema: k.InputSchema, OutputSchema: k.OutputSchema, Annotations: k.Annotations,
				Request: k.Request, Hash: hash, Pinned: pinned, Updated: st.Updated,
			}
			return
		}
		var d toolDefinition
		if err := json.Unmarshal(st.Definition, &d); err != nil {
			c.log.Warn("skipping a stored tool whose definition does not decode", "source", src, "tool", name, "error", err)
			return
		}
		t := &Tool{
			Source: src, Namespace: naming.Namespace(src), Name: name,
			Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations,
			Request: d.Request, Hash: hash, Pinned: pinned, Change: pinnedChange(pinned, hash, st.PinnedDefinition, &d),
			Updated: st.Updated,
		}
		if t.Changed() && json.Valid(st.PinnedDefinition) {
			// Sorted, as DefinitionJSON is, for the two to line up: the
			// store keeps a definition as it was listed.
			if canon, err := canonicalJSON(json.RawMessage(st.PinnedDefinition)); err == nil {
				t.PinnedDefinition = canon
			}
		}
		decoded[i] = t
	})
	bySource := map[string][]*Tool{}
	for _, t := range decoded {
		if t != nil {
			bySource[t.Source] = append(bySource[t.Source], t)
		}
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
	for _, src := range slices.Sorted(maps.Keys(bySource)) {
		ns := naming.Namespace(src)
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

	if sameTools(cur.Tools, tools) && len(rewritten) == 0 {
		return collisions, nil
	}
	next := NewSnapshot(tools, cur.Version+1)
	c.snap.Store(next)
	c.notify(next)
	return collisions, nil
}

// notify calls the subscribers with snap.
func (c *Catalog) notify(snap *Snapshot) {
	c.mu.Lock()
	subs := make([]func(*Snapshot), 0, len(c.subs))
	for _, id := range slices.Sorted(maps.Keys(c.subs)) {
		subs = append(subs, c.subs[id])
	}
	c.mu.Unlock()
	for _, fn := range subs {
		fn(snap)
	}
}

// maxPointReads is how many definitions rebuild reads one at a time; to
// read more it reads them all in one pass.
const maxPointReads = 64

// readTools reads the stored tools, with the definitions of those of
// cfg's enabled sources that reuse does not have.
func (c *Catalog) readTools(ctx context.Context, cfg *config.Config, reuse func(*store.Tool) *Tool) ([]store.Tool, error) {
	heads, err := c.db.ToolHeads(ctx)
	if err != nil {
		return nil, err
	}
	var need []int
	for i := range heads {
		st := &heads[i]
		if s := cfg.Sources[st.Source]; s != nil && !s.Disabled && reuse(st) == nil {
			need = append(need, i)
		}
	}
	if len(need) > maxPointReads {
		return c.db.Tools(ctx)
	}
	for _, i := range need {
		if err := c.db.ToolDefinition(ctx, &heads[i]); errors.Is(err, sql.ErrNoRows) {
			return c.db.Tools(ctx) // stored again since: read them all as they are now
		} else if err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// toolKey names one definition of one tool of a source.
type toolKey struct{ source, name, hash string }

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
	for _, src := range slices.Sorted(maps.Keys(missing)) {
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
		assigned := naming.AssignMethodNames(taken, names)
		if given[src] == nil {
			given[src] = map[string]string{}
		}
		for _, name := range names {
			js, ok := assigned[name]
			if !ok {
				c.log.Warn("skipping a tool whose name gives no JavaScript name", "source", src, "tool", naming.Truncate(name))
				c.warnings.add(src, fmt.Sprintf("skipped tool %q: its name gives no JavaScript name", naming.Truncate(name)))
				continue
			}
			if err := tx.GiveAddress(ctx, src, name, js, now); err != nil {
				return nil, fmt.Errorf("assigning an address to tool %s of %s: %w", naming.Truncate(name), src, err)
			}
			given[src][name] = js
			if base := naming.MethodName(name); js != base {
				c.log.Warn("a new tool's address is taken by another tool; it gets a suffix", "source", src, "tool", naming.Truncate(name),
					"address", naming.Namespace(src)+"."+js, "taken", naming.Namespace(src)+"."+base, "by", naming.Truncate(taken[base]))
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
		sources := slices.Sorted(maps.Keys(c.pending))
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
