// Package hub is the capabilities hub: it connects to the person's MCP
// servers (sources), keeps a catalog of their tools, and serves every MCP
// client three tools over them: search, describe and execute.
//
// The heart, file by file:
//
//   - hub.go: the Hub, New with its Options, and how the packages below are
//     wired together; events.go: what it publishes to the tray and window.
//   - startup.go: the first seconds: requests wait for sources the catalog
//     is listing for the first time, and say which are still starting.
//   - lookup.go: search and describe, over the catalog, as text for models;
//     lookup_skills.go: the skills in them (their documents in the index,
//     their hits, describe of a skill and of its files, written by
//     hub/skills/skilltext).
//   - execute.go, runs.go, envelope.go, errors.go: runs of model code, their
//     journal (kept by hub/store, committed in groups) and replay; the
//     envelope a run returns and its error codes.
//   - plan.go: a run's plan: the calls that need consent, collected ahead
//     of the first and decided at once, and the real run held to it.
//   - handles.go: results over the inline budget kept as handles, read in
//     code with hub.read.
//   - unlisted.go: calls to tools the catalog does not list (yet), and what
//     the guest is told about them.
//   - approvals.go, present.go: decisions from the person through a dialog,
//     the client's own form or the CLI, accepting changed definitions, and
//     who shows the decisions.
//   - policyedit.go: the rules as policy list shows them, setting and
//     removing one, and why the gate decides a call as it does.
//   - oauthhub.go: secrets and sign-ins (hub/signin) for a connection, as
//     runs wait for them.
//   - profile.go: profiles, the named views a client selects, as their
//     surfaces describe them, and the scope (hub/scope) of each request
//     made in one.
//   - status.go: the hub at a glance (sources, pending approvals, runs
//     today), recent runs, the audit trail, pausing; rundetail.go: a run's
//     calls with the approvals they waited for, as the window shows them
//     (read by hub/store, redacted by the heart).
//   - sources.go: sources added, removed, enabled, disabled and restarted
//     on a running hub, and a source's tools with what policy does now.
//   - retention.go: finished runs deleted by age and size.
//
// Above the heart, the surfaces (each holds the heart; the heart imports
// neither):
//
//   - hub/mcpserver: the MCP surface: the three tools, approvals as input
//     requests, and the Skills extension, over the few methods of the heart
//     it needs (mcpserver.Hub).
//   - hub/localapi: the local API on the home's unix socket, its routes
//     over the *Hub, the typed client the CLI and the tray use, the stdio
//     shim clients start, and the optional loopback HTTP endpoint.
//
// Below the heart, packages of their own (each imports none above it):
//
//   - hub/store: the SQLite file of runs, journal, decisions and pins, and
//     the only package with SQL: typed calls over rows of its own.
//   - hub/secrets: secret values and how they are kept out of what the hub
//     says or writes; the approval preview's redaction; where a credential
//     may go (its origin, and plain http only to this machine); Cap.
//   - hub/naming: how sources and upstream tools appear in code.
//   - hub/exactjson: JSON by its exact value: the canonical hash a call's
//     arguments are journaled under, and the value at a path as written.
//   - hub/inputstate: the signed state of an input request (the pending
//     calls it asks about), and the keychain key that signs it.
//   - hub/config: config.json, the hand-editable sources, connections and
//     policy, and the home it lives in (paths, home id, file modes); a
//     source's plain-http warning in words for a person.
//   - hub/oauth: OAuth sign-in for a connection, and its tokens in the
//     keychain; the sign-ins the hub runs, one per connection at a time.
//   - hub/clients: the person's MCP clients' config files (install,
//     uninstall, repoint) and the first run's import of their servers.
//   - hub/upstream: sessions to the upstream MCP servers, one per (source,
//     connection), and the Backend seam other kinds of source plug into;
//     the order a run's writes to one upstream go in, one at a time.
//   - hub/openapi: REST APIs described by OpenAPI documents, served as an
//     upstream.Backend; the heart asks it what an operation needs of a
//     connection (AuthNeed).
//   - hub/catalog: every tool of every source as the guest sees it:
//     addresses, pinned definitions, changes, first listings, and the note
//     the model reads of a source it cannot see or call.
//   - hub/policy: the rules (from the config, remembered, by origin) and the
//     pure consent gate: allow, ask or deny; the rules as policy list shows
//     them, and why the gate decides a call of a tool as it does.
//   - hub/signin: the sign-ins of the config's connections on the running
//     hub (Hub.SignIns): started by the person, offered to a run that waits
//     for one, told of one made in a terminal, signed out; and their states.
//   - hub/skills: skills from folders and from upstream servers, parsed,
//     bounded and pinned like tools; the Registry the heart searches.
//     hub/skills/skilltext: the skills as search and describe write them.
//   - hub/scope: what a request made in a profile sees: only its sources,
//     each on its pinned connection, under rules that only tighten the
//     person's, and only its own runs.
//   - hub/tsgen, hub/search: TypeScript declarations (the hub global's
//     among them) and the search index.
//   - internal/proc: process groups and whether a PID is alive;
//     internal/quietlog: the log handler that says the same warning once.
//   - internal/keylock: a lock per key, alive while held (a run's attempts
//     go one at a time).
//   - internal/pubsub: publishing that never blocks on a subscriber (the
//     events of events.go), and handlers offered a message in turn (the
//     presenters of present.go).
//
// A Hub is safe for concurrent use. Its background goroutines (config
// watching, catalog refreshes, expiry of approvals) end when Close returns.
package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/signin"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/keylock"
	"capabilities.sh/capabilities/internal/pubsub"
	"capabilities.sh/capabilities/internal/quietlog"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/sandbox"
)

// Options configures a Hub. Home is required; zero values elsewhere are the
// defaults.
type Options struct {
	Home     string
	Keychain keychain.Keychain // default: the OS keychain of this home (HomeKeychain)
	Logger   *slog.Logger      // default: discard
	// Driver runs model code. Default: in-process goja runtimes; the app
	// passes a worker-process pool. The hub owns it: New closes it on
	// failure and Close closes it.
	Driver sandbox.Driver
	// Limits lower the default limits (never raise them).
	Limits sandbox.Limits
	// ApprovalTTL is how long a pending approval waits (default 24h, never more).
	ApprovalTTL time.Duration
	// UpstreamTimeout bounds one upstream call (default 30s, never more).
	UpstreamTimeout time.Duration
	// Now is the clock (tests).
	Now func() time.Time
	// Env is the hub's environment, of which stdio upstreams inherit only
	// what every process needs (default os.Environ()).
	Env []string
	// ConfigPoll is how often config.json is checked for changes between
	// requests, which check it too (default 1s; negative: only they do).
	ConfigPoll time.Duration
	// Secrets is the registry of secret values the hub scrubs from what
	// it says (default: a new one). The hub adds connection secrets to it.
	Secrets *secrets.Secrets
	// StartupWait bounds how long one search, describe or execute waits
	// for sources being listed for the first time (default
	// DefaultStartupWait).
	StartupWait time.Duration
	// OpenAPIChild, when set, parses OpenAPI documents in child processes,
	// so the hub never holds a document's parsed model (the app sets it;
	// default: in this process).
	OpenAPIChild *openapi.Child
}

const (
	maxApprovalTTL     = 24 * time.Hour
	maxUpstreamTimeout = 30 * time.Second
)

// Hub is one running hub.
type Hub struct {
	paths   config.Paths
	db      *store.DB
	journal *store.Journal // commits the calls' journal entries in groups
	// owner names this hub in run leases ("pid/random"); lease is how long
	// one attempt's lease lasts.
	owner     string
	lease     time.Duration
	kc        keychain.Keychain
	secrets   *secrets.Secrets
	log       *slog.Logger
	quiet     *quietlog.Handler // under log: forget a source's warnings when it lists again
	now       func() time.Time
	driver    sandbox.Driver
	limits    sandbox.Limits
	ttl       time.Duration
	upTimeout time.Duration
	// startupWait bounds the start-up waits (startup.go).
	startupWait time.Duration

	up *upstream.Upstreams
	// openapi serves the OpenAPI sources as up's Backend; the heart asks
	// it what an operation needs of a connection (AuthNeed).
	openapi openAPI
	catalog *catalog.Catalog

	cfgMu   sync.RWMutex
	cfg     *config.Config // last good config
	cfgErr  error          // the last load error, nil when the file is good
	cfgStat fileStamp

	policyMu sync.RWMutex
	policy   *policy.Policy

	views  viewCache
	scopes scope.Cache
	skills *skills.Registry
	stored storeBudget

	runLocks keylock.Locks
	// writeLanes send writes to each upstream one at a time, across runs.
	writeLanes upstream.WriteLanes

	signOnce sync.Once
	signKey  []byte

	events     pubsub.Bus[Event]
	presenters pubsub.Handlers[Approval] // who shows pending approvals (present.go)
	paused     atomic.Bool
	signIns    *signin.Service

	bg     context.Context // the background work's; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// catalogDebounce overrides the catalog's list_changed debounce when set
// (tests).
var catalogDebounce time.Duration

// openapiPoll overrides how often the OpenAPI sources check their
// documents for changes when set (tests).
var openapiPoll time.Duration

// openAPI is what the heart holds of the OpenAPI sources (an
// *openapi.Sources): the Backend that Upstreams routes those sources to,
// and what an operation needs of a connection.
type openAPI interface {
	upstream.Backend
	AuthNeed(source, tool, conn string) string
	Status(source string) openapi.SourceStatus
	SecretPlace(source, tool string) (openapi.SecretPlace, bool)
	SignInFlow(source string) (*oauth.Flow, error)
	SignInMoved(source, conn string) string
	OffersSignIn(source, tool string) bool
	WaitsForSignIn(source string) bool
	Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error)
}

// wrapOpenAPI, when set (tests), wraps the OpenAPI sources before the hub
// holds them and hands them to Upstreams, so a test sees every call into
// them.
var wrapOpenAPI func(openAPI) openAPI

// New opens the store, loads the config and the cached catalog, and starts
// the hub's background work. Upstreams start lazily, on first use or on the
// first catalog refresh.
func New(ctx context.Context, opts Options) (*Hub, error) {
	if opts.Home == "" {
		return nil, errors.New("hub: Options.Home is required")
	}
	if err := os.MkdirAll(opts.Home, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", opts.Home, err)
	}
	if err := config.SecureHome(config.Paths{Home: opts.Home}); err != nil {
		return nil, err
	}
	h := &Hub{
		paths:     config.Paths{Home: opts.Home},
		kc:        opts.Keychain,
		log:       opts.Logger,
		now:       opts.Now,
		driver:    opts.Driver,
		limits:    sandbox.DefaultLimits().Lower(opts.Limits),
		ttl:       maxApprovalTTL,
		upTimeout: maxUpstreamTimeout,
	}
	if h.kc == nil {
		kc, err := config.HomeKeychain(h.paths, keychain.New())
		if err != nil {
			if h.driver != nil {
				h.driver.Close()
			}
			return nil, err
		}
		h.kc = kc
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.secrets = opts.Secrets; h.secrets == nil {
		h.secrets = secrets.New()
	}
	// Log lines reach the disk: no secret value in them. A warning that
	// says again what the last one about its source said is written at
	// DEBUG: a config reload logs once, at INFO.
	h.quiet = quietlog.New(h.secrets.ScrubHandler(h.log.Handler()))
	h.log = slog.New(h.quiet)
	if h.now == nil {
		h.now = time.Now
	}
	if opts.ApprovalTTL > 0 && opts.ApprovalTTL < h.ttl {
		h.ttl = opts.ApprovalTTL
	}
	if opts.UpstreamTimeout > 0 && opts.UpstreamTimeout < h.upTimeout {
		h.upTimeout = opts.UpstreamTimeout
	}
	h.startupWait = DefaultStartupWait
	if opts.StartupWait > 0 {
		h.startupWait = opts.StartupWait
	}
	if h.driver == nil {
		h.driver = sandbox.NewInProcess()
	}
	db, err := store.Open(ctx, h.paths.DB(), nil)
	if err != nil {
		h.driver.Close()
		return nil, err
	}
	jw, err := db.NewJournal(ctx)
	if err != nil {
		db.Close()
		h.driver.Close()
		return nil, err
	}
	// An attempt ends within its wall time, its last call within the
	// upstream timeout; the lease has a minute to spare.
	h.db, h.journal, h.owner, h.lease = db, jw, newOwner(), h.limits.Wall+h.upTimeout+time.Minute

	cfg, err := config.Load(h.paths.Config())
	if err != nil {
		db.Close()
		h.driver.Close()
		return nil, err
	}
	h.cfg = cfg
	h.cfgStat = stampOf(h.paths.Config())
	h.logRefused(cfg)
	if err := h.reloadPolicy(ctx); err != nil {
		db.Close()
		h.driver.Close()
		return nil, err
	}

	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	bg, cancel := context.WithCancel(context.Background())
	h.bg, h.cancel = bg, cancel
	// The OpenAPI sources report to h.up, which is set before SetConfig
	// gives them anything to report.
	h.openapi = openapi.New(openapi.Options{
		Keychain:       h.kc,
		Secrets:        h.secrets,
		Logger:         h.log,
		CallTimeout:    h.upTimeout,
		OnToolsChanged: func(source string) { h.up.ToolsChanged(source) },
		OnState:        func(source string) { h.up.StateChanged(source) },
		Poll:           openapiPoll,
		Child:          opts.OpenAPIChild,
	})
	if wrapOpenAPI != nil {
		h.openapi = wrapOpenAPI(h.openapi)
	}
	h.up = upstream.New(upstream.Options{
		Keychain:    h.kc,
		Secrets:     h.secrets,
		Logger:      h.log,
		CallTimeout: h.upTimeout,
		Env:         env,
		OnState: func(source string, st upstream.SourceState) {
			h.events.Publish(Event{Kind: EventSource, ID: source})
		},
		OpenAPI: h.openapi,
	})
	h.up.SetConfig(cfg)
	h.signIns = h.newSignIns(bg)
	h.catalog = catalog.New(db, h.up, &catalog.Options{
		Logger:      h.log,
		ListTimeout: h.up.ListTimeout(),
		Debounce:    catalogDebounce,
		Config:      h.Config,
	})
	if err := h.catalog.Load(ctx, cfg); err != nil {
		h.up.Close()
		db.Close()
		h.driver.Close()
		return nil, err
	}
	h.catalog.Subscribe(func(*catalog.Snapshot) {
		h.reloadMovedDecisions(context.Background())
		h.events.Publish(Event{Kind: EventCatalog})
	})
	if err := h.pinMigratedDecisions(ctx); err != nil {
		h.log.Warn("pinning migrated decisions", "err", err)
	}

	// Before the background work, which refreshes the skills.
	h.skills = skills.New(skills.Options{
		Store:   db,
		Remote:  h.up,
		Config:  h.Config,
		Home:    h.paths.Home,
		Secrets: h.secrets,
		Logger:  h.log,
		Now:     h.now,
		Changed: func() { h.events.Publish(Event{Kind: EventCatalog}) },
		Context: bg,
	})

	poll := opts.ConfigPoll
	if poll == 0 {
		poll = time.Second
	}
	if poll > 0 {
		h.goBackground(func() { h.watchConfig(bg, poll) })
	}
	h.goBackground(func() { h.expireLoop(bg) })
	h.goBackground(func() { h.retentionLoop(bg) })
	return h, nil
}

func (h *Hub) goBackground(f func()) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f()
	}()
}

// Close stops background work, closes upstream sessions and the store.
func (h *Hub) Close() error {
	h.cancel()
	h.wg.Wait()
	h.signIns.Close()
	h.skills.Close()
	h.catalog.Close()
	err := h.up.Close()
	h.driver.Close()
	// After the driver, so runs that were ending have journaled their calls;
	// a later put fails as closed rather than on a closed database.
	h.journal.Close()
	if cerr := h.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Paths returns the hub's files.
func (h *Hub) Paths() config.Paths { return h.paths }

// Logger is the hub's logger: Options.Logger, with every secret the hub
// holds scrubbed from what it writes. The surfaces above the hub log
// through it.
func (h *Hub) Logger() *slog.Logger { return h.log }

// Config returns the last good config. Callers must not modify it.
func (h *Hub) Config() *config.Config {
	h.cfgMu.RLock()
	defer h.cfgMu.RUnlock()
	return h.cfg
}

// ConfigError returns the problem with config.json when the hub runs on an
// older, good version of it.
func (h *Hub) ConfigError() error {
	h.cfgMu.RLock()
	defer h.cfgMu.RUnlock()
	return h.cfgErr
}

// Refresh lists the tools of the named sources (all when none) and updates
// the catalog. It returns each failing source's error.
func (h *Hub) Refresh(ctx context.Context, sources ...string) map[string]error {
	return h.refresh(ctx, sources...)
}

func (h *Hub) refresh(ctx context.Context, sources ...string) map[string]error {
	cfg := h.Config()
	errs := h.catalog.Refresh(ctx, cfg, sources...)
	for src, err := range errs {
		h.log.Warn("listing tools failed", "source", src, "err", err)
	}
	if len(sources) == 0 {
		sources = slices.Collect(maps.Keys(cfg.Sources))
	}
	for _, src := range sources {
		if errs[src] == nil {
			h.quiet.Forget(src) // it lists again: its next problem warns
		}
	}
	h.skills.Refresh(ctx, errs, sources...)
	if err := h.pinMigratedDecisions(ctx); err != nil {
		h.log.Warn("pinning migrated decisions", "err", err)
	}
	h.reloadMovedDecisions(ctx)
	return errs
}

// reloadMovedDecisions reloads the policy when the catalog moved remembered
// allows to other definitions: an OpenAPI pin moved to its definition with
// the request (hub/catalog's rest.go) takes them along.
func (h *Hub) reloadMovedDecisions(ctx context.Context) {
	if !h.catalog.DecisionsMoved() {
		return
	}
	if err := h.reloadPolicy(ctx); err != nil {
		h.log.Warn("reloading the policy after remembered allows moved", "err", err)
	}
}

// reloadPolicy rebuilds the policy from the config's rules and the
// remembered decisions.
func (h *Hub) reloadPolicy(ctx context.Context) error {
	ds, err := h.db.Remembered(ctx)
	if err != nil {
		return err
	}
	var rem []policy.Rule
	for _, d := range ds {
		rem = append(rem, policy.Rule{ID: d.ID, Target: d.Address, Hash: d.Hash, From: d.Channel, Mode: config.Mode(d.Mode), Remembered: true, At: d.At,
			AllConnections: d.AllConnections, Connection: d.Connection})
	}
	// Who last set each config rule through the hub (cli, window), kept
	// while the rule still has the mode they set.
	set, err := h.db.PolicyOrigins(ctx)
	if err != nil {
		return err
	}
	cfg := h.Config()
	origins := map[string]string{}
	for target, mode := range cfg.Policy {
		if o, ok := set[target]; ok && o.Mode == string(mode) {
			origins[target] = o.Channel
		}
	}
	pol := policy.New(append(policy.ConfigRules(cfg.Policy, origins), rem...))
	h.policyMu.Lock()
	h.policy = pol
	h.policyMu.Unlock()
	h.views.invalidate()
	return nil
}

// pinMigratedDecisions gives each remembered allow that was migrated
// without a definition the definition pinned for its tool now (the one the
// person had accepted), and reloads the policy when any changed. A tool
// that is not in the catalog keeps its decision unpinned, matching nothing,
// until it is.
func (h *Hub) pinMigratedDecisions(ctx context.Context) error {
	snap := h.catalog.Snapshot()
	changed := false
	for _, r := range h.currentPolicy().Rules() {
		if !r.Remembered || r.Mode != config.Allow || r.Hash != "" {
			continue
		}
		t, ok := snap.Lookup(r.Target)
		if !ok {
			continue
		}
		pin := t.Pinned
		if pin == "" {
			pin = t.Hash
		}
		if err := h.db.PinDecision(ctx, r.ID, pin); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	return h.reloadPolicy(ctx)
}

func (h *Hub) currentPolicy() *policy.Policy {
	h.policyMu.RLock()
	defer h.policyMu.RUnlock()
	return h.policy
}

// fileStamp identifies a version of a file by size and modification time.
type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
}

// watchConfig reloads config.json when it changes. A bad file is reported
// (log, event, status) and the hub keeps serving the last good config.
func (h *Hub) watchConfig(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.ReloadConfig(ctx)
		}
	}
}

// ReloadConfig reads config.json again if it changed since the last read.
// It returns the file's problem, if any; the hub then keeps its last good
// config.
func (h *Hub) ReloadConfig(ctx context.Context) error {
	st := stampOf(h.paths.Config())
	h.cfgMu.RLock()
	same := st == h.cfgStat
	h.cfgMu.RUnlock()
	if same {
		return h.ConfigError()
	}
	cfg, err := config.Load(h.paths.Config())
	h.cfgMu.Lock()
	h.cfgStat = st
	if err != nil {
		h.cfgErr = err
		h.cfgMu.Unlock()
		h.log.Error("config.json has problems; keeping the last good config", "err", err)
		h.events.Publish(Event{Kind: EventConfig})
		return err
	}
	prev := h.cfg
	h.cfg, h.cfgErr = cfg, nil
	h.cfgMu.Unlock()
	h.log.Info("config reloaded", "sources", len(cfg.Sources))
	h.logRefused(cfg)
	// A source whose definition changed (a new URL, command or connection)
	// may serve other tools: calls wait for its next listing.
	var changed []string
	for name, s := range cfg.Sources {
		if !upstream.SameSource(prev.Sources[name], s) {
			changed = append(changed, name)
		}
	}
	h.catalog.Listings().Stale(changed)
	h.up.SetConfig(cfg)
	if err := h.reloadPolicy(ctx); err != nil {
		return err
	}
	h.goBackground(func() { h.refresh(ctx) })
	h.events.Publish(Event{Kind: EventConfig})
	return nil
}

// logRefused warns about each source cfg does not serve for its name.
func (h *Hub) logRefused(cfg *config.Config) {
	for _, r := range cfg.Refused() {
		h.log.Warn("config.json: a source is not served", "key", r.Key, "problem", r.Problem)
	}
}

// SaveConfig validates cfg, writes it to config.json and applies it.
func (h *Hub) SaveConfig(ctx context.Context, cfg *config.Config) error {
	if err := cfg.Validate(h.paths.Config()); err != nil {
		return err
	}
	if err := cfg.Save(h.paths.Config()); err != nil {
		return err
	}
	return h.ReloadConfig(ctx)
}
