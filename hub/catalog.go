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
	"database/sql"
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
	JSName    string // the method name, from ToolNames over the source's tools
	Address   string // Namespace + "." + JSName
	Title     string
	// Description is the upstream's description, as is.
	Description string
	// InputSchema and OutputSchema are the upstream's JSON, kept even when
	// they are not valid JSON Schema; InputSchema may be empty or null.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *mcp.ToolAnnotations
	// Hash is the hex SHA-256 of the canonical JSON of the definition
	// (name, title, description, schemas, annotations).
	Hash string
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

// ToolChange is a new or changed tool definition nobody has accepted yet.
type ToolChange struct {
	Source  string
	Name    string // the upstream MCP name
	Address string
	OldHash string // "" for a new tool
	NewHash string
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

	// changed caches changedAddresses for one snapshot; writes to
	// tool_changes clear it. changedMu is held while it is read from the
	// store, so a clear never races with a read of the old rows.
	changedMu sync.Mutex
	changed   *changedSet
}

type changedSet struct {
	snap  *Snapshot
	addrs map[string]bool
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

// Changes returns the open (unaccepted) tool changes, oldest first.
func (c *Catalog) Changes(ctx context.Context) ([]ToolChange, error) {
	rows, err := c.db.QueryContext(ctx,
		`SELECT source, name, old_hash, new_hash, at FROM tool_changes WHERE accepted IS NULL ORDER BY at, id`)
	if err != nil {
		return nil, fmt.Errorf("reading tool changes: %w", err)
	}
	defer rows.Close()
	snap := c.Snapshot()
	var out []ToolChange
	for rows.Next() {
		var ch ToolChange
		var at int64
		if err := rows.Scan(&ch.Source, &ch.Name, &ch.OldHash, &ch.NewHash, &at); err != nil {
			return nil, fmt.Errorf("reading tool changes: %w", err)
		}
		ch.At = time.UnixMilli(at)
		if t := snap.byName[[2]string{ch.Source, ch.Name}]; t != nil {
			ch.Address = t.Address
		} else {
			ch.Address = Namespace(ch.Source) + "." + camel(ch.Name)
		}
		out = append(out, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading tool changes: %w", err)
	}
	return out, nil
}

// changedAddresses returns the addresses whose definitions changed since
// the person accepted them. Every execute asks, so the answer is kept until
// the snapshot or the open changes change. The map is shared: do not
// modify it.
func (c *Catalog) changedAddresses() map[string]bool {
	snap := c.Snapshot()
	c.changedMu.Lock()
	defer c.changedMu.Unlock()
	if c.changed != nil && c.changed.snap == snap {
		return c.changed.addrs
	}
	out := map[string]bool{}
	changes, err := c.Changes(context.Background())
	if err != nil {
		c.log.Warn("reading tool changes", "err", err)
		return out // not kept: the next caller reads again
	}
	for _, ch := range changes {
		if ch.OldHash != "" {
			out[ch.Address] = true
		}
	}
	c.changed = &changedSet{snap: snap, addrs: out}
	return out
}

// changesWritten drops the cached changedAddresses after a transaction
// that wrote tool_changes committed.
func (c *Catalog) changesWritten() {
	c.changedMu.Lock()
	c.changed = nil
	c.changedMu.Unlock()
}

// Accept marks the open changes of a tool (by address) accepted, or of
// every tool of a namespace when address names one. Accepting a tool
// without open changes is not an error; an unknown address is.
func (c *Catalog) Accept(ctx context.Context, address string) error {
	snap := c.Snapshot()
	var tools []*Tool
	if t, ok := snap.Lookup(address); ok {
		tools = []*Tool{t}
	} else {
		for _, t := range snap.Tools {
			if t.Namespace == address {
				tools = append(tools, t)
			}
		}
	}
	if len(tools) == 0 {
		return fmt.Errorf("accepting %q: no such tool or namespace in the catalog", address)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("accepting %q: %w", address, err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	for _, t := range tools {
		if _, err := tx.ExecContext(ctx, `UPDATE tool_changes SET accepted = ? WHERE source = ? AND name = ? AND accepted IS NULL`,
			now, t.Source, t.Name); err != nil {
			return fmt.Errorf("accepting %q: %w", address, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("accepting %q: %w", address, err)
	}
	c.changesWritten()
	return nil
}

func (c *Catalog) setConfig(cfg *Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg = cfg
}

// toolDefinition is what the store keeps of an MCP tool, and what its hash
// covers.
type toolDefinition struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// definitionOf turns a listed tool into its canonical definition and hash.
// A schema that does not marshal is kept as null rather than dropping the
// tool.
func definitionOf(t *mcp.Tool) (def []byte, hash string, err error) {
	d := toolDefinition{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations}
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
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()

	stored, err := queryStrings(ctx, tx, `SELECT DISTINCT source FROM tools`)
	if err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	for _, src := range stored {
		if _, ok := cfg.Sources[src]; ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tools WHERE source = ?`, src); err != nil {
			return fmt.Errorf("dropping tools of %s: %w", src, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tool_changes WHERE source = ? AND accepted IS NULL`, src); err != nil {
			return fmt.Errorf("dropping tool changes of %s: %w", src, err)
		}
	}

	for _, src := range sortedKeys(listed) {
		old := map[string]string{}
		rows, err := tx.QueryContext(ctx, `SELECT name, hash FROM tools WHERE source = ?`, src)
		if err != nil {
			return fmt.Errorf("storing tools of %s: %w", src, err)
		}
		for rows.Next() {
			var name, hash string
			if err := rows.Scan(&name, &hash); err != nil {
				rows.Close()
				return fmt.Errorf("storing tools of %s: %w", src, err)
			}
			old[name] = hash
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("storing tools of %s: %w", src, err)
		}
		seen := map[string]bool{}
		for _, t := range listed[src] {
			if t == nil || t.Name == "" || seen[t.Name] {
				if t != nil {
					c.log.Warn("skipping a tool without a name or listed twice", "source", src, "tool", t.Name)
				}
				continue
			}
			seen[t.Name] = true
			def, hash, err := definitionOf(t)
			if err != nil {
				c.log.Warn("skipping a tool whose definition does not encode", "source", src, "error", err)
				continue
			}
			prev, had := old[t.Name]
			if had && prev == hash {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO tools (source, name, definition, hash, first_seen, updated)
				VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (source, name) DO UPDATE SET definition = excluded.definition, hash = excluded.hash, updated = excluded.updated`,
				src, t.Name, string(def), hash, now, now); err != nil {
				return fmt.Errorf("storing tool %s of %s: %w", t.Name, src, err)
			}
			if err := recordChange(ctx, tx, src, t.Name, prev, hash, now); err != nil {
				return err
			}
		}
		for name := range old {
			if seen[name] {
				continue
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM tools WHERE source = ? AND name = ?`, src, name); err != nil {
				return fmt.Errorf("dropping tool %s of %s: %w", name, src, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM tool_changes WHERE source = ? AND name = ? AND accepted IS NULL`, src, name); err != nil {
				return fmt.Errorf("dropping changes of tool %s of %s: %w", name, src, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing tools: %w", err)
	}
	c.changesWritten()
	return nil
}

// recordChange notes that a tool's definition went from oldHash ("" when
// new) to newHash. A tool with an open change keeps one row, from the last
// accepted definition to the newest; a change back to that definition
// closes the row.
func recordChange(ctx context.Context, tx *sql.Tx, source, name, oldHash, newHash string, now int64) error {
	var id int64
	var openOld string
	err := tx.QueryRowContext(ctx, `SELECT id, old_hash FROM tool_changes WHERE source = ? AND name = ? AND accepted IS NULL ORDER BY id LIMIT 1`,
		source, name).Scan(&id, &openOld)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO tool_changes (source, name, old_hash, new_hash, at) VALUES (?, ?, ?, ?, ?)`,
			source, name, oldHash, newHash, now)
	case err != nil:
	case openOld == newHash:
		_, err = tx.ExecContext(ctx, `DELETE FROM tool_changes WHERE id = ?`, id)
	default:
		_, err = tx.ExecContext(ctx, `UPDATE tool_changes SET new_hash = ?, at = ? WHERE id = ?`, newHash, now, id)
	}
	if err != nil {
		return fmt.Errorf("recording a change of tool %s of %s: %w", name, source, err)
	}
	return nil
}

func queryStrings(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// rebuild reads the tools of cfg's enabled sources from the store and
// swaps in a new snapshot when they differ from the current one. It returns
// the sources left out because another source already has their namespace.
func (c *Catalog) rebuild(ctx context.Context, cfg *Config) (map[string]error, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT source, name, definition, hash FROM tools ORDER BY source, name`)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	defer rows.Close()
	bySource := map[string][]*Tool{}
	for rows.Next() {
		var src, name, def, hash string
		if err := rows.Scan(&src, &name, &def, &hash); err != nil {
			return nil, fmt.Errorf("reading the catalog: %w", err)
		}
		if s := cfg.Sources[src]; s == nil || s.Disabled {
			continue
		}
		var d toolDefinition
		if err := json.Unmarshal([]byte(def), &d); err != nil {
			c.log.Warn("skipping a stored tool whose definition does not decode", "source", src, "tool", name, "error", err)
			continue
		}
		bySource[src] = append(bySource[src], &Tool{
			Source: src, Namespace: Namespace(src), Name: name,
			Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations,
			Hash: hash,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}

	c.listings.markListed(bySource)
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
		ts := bySource[src]
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.Name
		}
		js := ToolNames(names)
		for _, t := range ts {
			t.JSName = js[t.Name]
			t.Address = ns + "." + t.JSName
		}
		tools = append(tools, ts...)
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

// sameTools reports whether a (sorted) and b (any order) hold the same
// tools under the same addresses.
func sameTools(a, b []*Tool) bool {
	if len(a) != len(b) {
		return false
	}
	have := make(map[string]string, len(a))
	for _, t := range a {
		have[t.Address] = t.Source + "\x00" + t.Hash
	}
	for _, t := range b {
		if have[t.Address] != t.Source+"\x00"+t.Hash {
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
