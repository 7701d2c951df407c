package openapi

// OpenAPI sources.
//
// A source with "openapi" (a file path or an http(s) URL) is a REST API:
// each operation of its document is a tool, and a call is one HTTP request.
// Sources serves these sources as an upstream.Backend of Upstreams: Upstreams
// routes their listings, calls and state here, so the catalog, the gate and
// execute treat both kinds alike. The document is read and parsed once and
// kept parsed until it changes: a watcher compares a file's size and time,
// or a URL's content, and reports a change the way an MCP server's
// list_changed does, so the catalog refreshes the source. Pins, addresses
// and decisions are the catalog's, per operation.
//
// Credentials come from the source's connections: their headers go with
// every request, and their "query" and "cookies" values as query parameters
// and cookies; ${secret:NAME} references are read from the keychain per
// call. An operation needs one of its security alternatives; one that the
// connection cannot provide waits for a connection before anything is sent
// (AuthNeed tells the heart which).

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/keylock"
	"capabilities.sh/capabilities/keychain"
)

const (
	// openapiFilePoll and openapiURLPoll are how often a document is
	// checked for changes.
	openapiFilePoll = 2 * time.Second
	openapiURLPoll  = 10 * time.Minute
	// maxRESTResponse bounds one answer's body.
	maxRESTResponse = 32 << 20
	// restExcerpt is how much of an error answer's body a ToolError quotes.
	restExcerpt = 300
	// maxRetryAfter is the longest Retry-After a call waits out before
	// trying once more; a longer one is reported as retryable.
	maxRetryAfter = 10 * time.Second
)

// Options configures [New]. The zero value works: no
// keychain (secret references fail as missing), the default logger and
// timeouts, and no callbacks.
type Options struct {
	// Keychain holds the secrets a connection references as ${secret:NAME},
	// under config.SecretKey(source, conn, NAME), and the connections' sign-ins.
	Keychain keychain.Keychain
	// Secrets receives the values of each connection's secrets when a
	// call expands them, so the hub can scrub them wherever they turn up.
	Secrets *secrets.Secrets
	Logger  *slog.Logger
	// CallTimeout bounds one call, a retry after Retry-After included
	// (default 30s). Callers may pass a shorter context.
	CallTimeout time.Duration
	// LoadTimeout bounds reading one document (default 30s).
	LoadTimeout time.Duration
	// Version is the hub's version in the User-Agent (default "dev").
	Version string
	// OnToolsChanged is called when a source's document changed, or an
	// operation was called as listed but changed since: its tools are to
	// be listed again (Upstreams.ToolsChanged).
	OnToolsChanged func(source string)
	// OnState is called when a source's state may have changed
	// (Upstreams.StateChanged, which reads it back with State).
	OnState func(source string)
	// Poll is how often each document is checked for changes (default:
	// every 2 seconds for a file, every 10 minutes for a URL).
	Poll time.Duration
	// Child, when set, parses each document in a child process (child.go),
	// so the hub never holds a document's parsed model; nil parses in this
	// process.
	Child *Child
}

// Sources serves the OpenAPI sources of the config, as the
// [upstream.Backend] of Upstreams for them.
//
// All methods are safe for concurrent use. Each source's watcher runs on a
// goroutine of its own, owned by Sources; Close stops them and waits.
// The callbacks are called without mu held, from the caller's goroutine or
// a watcher's.
type Sources struct {
	opts   Options
	log    *slog.Logger
	ctx    context.Context // cancelled by Close; parent of every watcher and load
	cancel context.CancelFunc
	wg     sync.WaitGroup // the watchers

	mu     sync.Mutex
	cfg    *config.Config
	srcs   map[string]*restSource
	closed bool

	// signInLocks lets one call at a time per connection read, refresh
	// and keep its sign-in's token (oauth.go): calls that find it expired
	// together refresh it once.
	signInLocks keylock.Locks
}

var _ upstream.Backend = (*Sources)(nil)

// restSource is one OpenAPI source: its document, its state, its watcher.
// Its fields are guarded by Sources.mu.
type restSource struct {
	def     *config.Source
	doc     *openapiDoc
	loading *docLoad // the load under way, if any
	err     *upstream.Error
	stale   bool // the document changed since doc was built
	stamp   string
	// client sends the operations: it follows redirects only within their
	// origin. docClient fetches the document, which carries no credential.
	client    *http.Client
	docClient *http.Client
	stop      context.CancelFunc
}

// New returns Sources with no config; Upstreams hands
// it one with SetConfig.
func New(opts Options) *Sources {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = upstream.DefaultCallTimeout
	}
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = upstream.DefaultStartTimeout
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Sources{
		opts:   opts,
		log:    opts.Logger,
		ctx:    ctx,
		cancel: cancel,
		cfg:    &config.Config{Sources: map[string]*config.Source{}},
		srcs:   map[string]*restSource{},
	}
}

// SetConfig brings the OpenAPI sources in line with cfg: a source whose
// document moved starts over, a removed one stops its watcher.
func (o *Sources) SetConfig(cfg *config.Config) {
	if cfg == nil {
		cfg = &config.Config{Sources: map[string]*config.Source{}}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.cfg = cfg
	for name, rs := range o.srcs {
		nd := cfg.Sources[name]
		// Only the document's place decides what is parsed: a new
		// connection or baseUrl keeps the parsed document.
		if nd != nil && nd.OpenAPI != "" && !nd.Disabled && nd.OpenAPI == rs.def.OpenAPI {
			rs.def = nd
			continue
		}
		rs.stop()
		delete(o.srcs, name)
	}
	for name, def := range cfg.Sources {
		if def.OpenAPI == "" || def.Disabled || o.srcs[name] != nil {
			continue
		}
		ctx, cancel := context.WithCancel(o.ctx)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = tr.MaxIdleConns
		rs := &restSource{def: def, stop: cancel,
			client:    &http.Client{Transport: tr, CheckRedirect: secrets.SameOriginRedirect},
			docClient: &http.Client{Transport: tr, CheckRedirect: secrets.NoReferer}}
		o.srcs[name] = rs
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			defer tr.CloseIdleConnections()
			o.watch(ctx, name, rs)
		}()
	}
}

// State is the state of an OpenAPI source, without its Since.
func (o *Sources) State(source string) upstream.SourceState {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := upstream.SourceState{State: upstream.SourceIdle}
	if rs := o.srcs[source]; rs != nil {
		switch {
		case rs.doc != nil:
			st.State = upstream.SourceUp
		case rs.loading != nil:
			st.State = upstream.SourceStarting
		case rs.err != nil:
			st.State, st.Err, st.Retryable = upstream.SourceDown, rs.err.Reason(), rs.err.Retryable
		}
	}
	return st
}

// Close stops every watcher and load, and waits for the watchers. Later
// calls fail as unavailable. Close is idempotent and returns nil.
func (o *Sources) Close() error {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.cancel()
	o.wg.Wait()
	return nil
}

// stateChanged tells the callback that source's state may have changed.
// o.mu must not be held.
func (o *Sources) stateChanged(source string) {
	if fn := o.opts.OnState; fn != nil {
		fn(source)
	}
}

// toolsChanged tells the callback that source's tools are to be listed
// again. o.mu must not be held.
func (o *Sources) toolsChanged(source string) {
	if fn := o.opts.OnToolsChanged; fn != nil {
		fn(source)
	}
}

// doc returns the parsed document of source, reading it when it was not
// read yet or changed since. Concurrent callers share one load.
func (o *Sources) doc(ctx context.Context, source string) (*openapiDoc, *restSource, error) {
	for {
		o.mu.Lock()
		if o.closed {
			o.mu.Unlock()
			return nil, nil, &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: errors.New("the hub is shutting down")}
		}
		rs := o.srcs[source]
		if rs == nil {
			def := o.cfg.Sources[source]
			o.mu.Unlock()
			if def != nil && def.Disabled {
				return nil, nil, &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: errors.New("the source is disabled in the config")}
			}
			return nil, nil, &upstream.Error{Source: source, Kind: upstream.KindUnknownSource, Err: errors.New("no such source in the config")}
		}
		if rs.doc != nil && !rs.stale {
			doc := rs.doc
			o.mu.Unlock()
			return doc, rs, nil
		}
		if l := rs.loading; l != nil {
			o.mu.Unlock()
			select {
			case <-l.done:
				if l.doc == nil && l.err != nil {
					return nil, nil, l.err
				}
				if l.doc == nil {
					continue // touched, not changed: serve what is kept
				}
				return l.doc, rs, nil
			case <-ctx.Done():
				return nil, nil, upstream.ContextError(ctx, source, "", "waiting for the OpenAPI document")
			}
		}
		l := &docLoad{done: make(chan struct{})}
		rs.loading = l
		o.wg.Add(1)
		o.mu.Unlock()
		o.stateChanged(source)
		// The load goes on without this caller, who waits for it as any
		// other does and may leave when its context ends.
		go func() {
			defer o.wg.Done()
			o.load(source, rs, l)
		}()
	}
}

// releaseAfter is the size of a document whose parse is followed by
// returning the freed memory to the system.
const releaseAfter = 1 << 20

// docLoad is one load of a source's document, shared by the callers that
// wait for it: when done is closed, doc is what the source serves (nil
// when the document failed with no earlier one to fall back on, or was
// touched and not changed) and err why it failed.
type docLoad struct {
	done chan struct{}
	doc  *openapiDoc
	err  *upstream.Error
}

// load reads and parses the document of source for l. The parse, which a
// large document makes take seconds and cannot be interrupted, runs on a
// goroutine of its own: when the sources close, load returns at once and
// the parse's result is dropped, so Close does not wait for it.
func (o *Sources) load(source string, rs *restSource, l *docLoad) {
	o.mu.Lock()
	hadDoc := rs.doc != nil
	loc, prevHash := rs.def.OpenAPI, ""
	if rs.doc != nil {
		prevHash = rs.doc.hash
	}
	o.mu.Unlock()

	lctx, cancel := context.WithTimeout(o.ctx, o.opts.LoadTimeout)
	stamp := docStamp(loc)
	data, rerr := readOpenAPI(lctx, rs.docClient, loc)
	cancel()
	var doc *openapiDoc
	var ue *upstream.Error
	switch {
	case rerr != nil:
		ue = &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Retryable: true, Err: rerr}
		if errors.Is(rerr, os.ErrNotExist) || errors.Is(rerr, os.ErrPermission) {
			ue.Retryable = false
		}
	case prevHash != "" && hashOf(data) == prevHash:
		// Touched, not changed.
	default:
		type parsed struct {
			doc  *openapiDoc
			peak int64
			err  error
		}
		res := make(chan parsed, 1)
		go func() {
			d, peak, err := o.parseDocument(o.ctx, loc, data)
			res <- parsed{d, peak, err}
		}()
		select {
		case p := <-res:
			doc = p.doc
			if p.err == nil {
				// Kept to be listed again, packed.
				p.err = doc.pack()
			}
			if p.err != nil {
				doc, ue = nil, &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: p.err}
			}
			if p.peak > 0 {
				o.log.Info("OpenAPI document parsed in a child process", "source", source, "child_peak_rss_mb", p.peak>>20)
			}
			if o.opts.Child == nil && len(data) >= releaseAfter {
				// The parse's model is garbage now: GitHub's 13 MB
				// description leaves some 200 MB of it and 11 MB of tools.
				// It goes back to the system at once, not over the
				// minutes the runtime would take.
				data = nil
				debug.FreeOSMemory()
			}
		case <-o.ctx.Done():
			ue = &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: errors.New("the hub is shutting down")}
		}
	}
	o.mu.Lock()
	rs.loading = nil
	current := o.srcs[source] == rs && o.ctx.Err() == nil
	if current {
		switch {
		case ue != nil:
			rs.err = ue
			if !hadDoc {
				rs.doc = nil
			}
			rs.stale = false // served from the last good document, if any
		case doc != nil:
			rs.doc, rs.err, rs.stale = doc, nil, false
		default:
			rs.stale = false
		}
		rs.stamp = stamp
	}
	l.doc, l.err = rs.doc, ue
	if ue == nil && doc == nil && !current {
		l.err = &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: errors.New("the source changed while its document was read")}
	}
	close(l.done)
	o.mu.Unlock()
	if !current {
		return
	}
	o.stateChanged(source)
	switch {
	case ue != nil && l.doc == nil:
		o.log.Warn("OpenAPI document failed to load", "source", source, "error", ue.Error())
	case ue != nil:
		o.log.Warn("OpenAPI document failed to reload; serving the last good one", "source", source, "error", ue.Error())
	case doc != nil:
		o.log.Info("OpenAPI document loaded", "source", source, "operations", doc.operations(), "skipped", len(doc.skipped))
	}
}

// hashOf is the hex SHA-256 of a document, as openapiDoc.hash holds it.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// docStamp is a cheap fingerprint of a document file: its size and time;
// "" for a URL.
func docStamp(loc string) string {
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		return ""
	}
	fi, err := os.Stat(expandHome(loc))
	if err != nil {
		return "missing"
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}

// watch checks the document of source for changes until ctx ends, and
// reports a change like a tools/list_changed notification.
func (o *Sources) watch(ctx context.Context, source string, rs *restSource) {
	o.mu.Lock()
	loc := rs.def.OpenAPI
	o.mu.Unlock()
	period := o.opts.Poll
	remote := strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://")
	if period <= 0 {
		period = openapiFilePoll
		if remote {
			period = openapiURLPoll
		}
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		o.mu.Lock()
		loaded, stamp, hash := rs.doc != nil && rs.loading == nil, rs.stamp, ""
		if rs.doc != nil {
			hash = rs.doc.hash
		}
		o.mu.Unlock()
		if !loaded {
			continue
		}
		changed := false
		if remote {
			fctx, cancel := context.WithTimeout(ctx, o.opts.LoadTimeout)
			data, err := readOpenAPI(fctx, rs.docClient, loc)
			cancel()
			changed = err == nil && hashOf(data) != hash
		} else {
			changed = docStamp(loc) != stamp
		}
		if !changed {
			continue
		}
		o.mu.Lock()
		rs.stale = true
		o.mu.Unlock()
		o.log.Info("OpenAPI document changed", "source", source)
		o.toolsChanged(source)
	}
}

// ListTools lists the operations of an OpenAPI source as tools, within
// the config's config.CatalogLimits. Operations that cannot be served are named in
// a *ListingLimitError beside the tools.
func (o *Sources) ListTools(ctx context.Context, source string) ([]*mcp.Tool, error) {
	doc, _, err := o.doc(ctx, source)
	if err != nil {
		return nil, err
	}
	all, err := doc.listTools()
	if err != nil {
		return nil, &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: err}
	}
	o.mu.Lock()
	lim := o.cfg.Catalog
	places := placesOf(o.cfg.Sources[source])
	all, left := doc.servedTools(all, o.cfg.Sources[source])
	o.mu.Unlock()
	const page = 200
	tools, err := upstream.ListBounded(ctx, source, lim, func(_ context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		start := 0
		if p.Cursor != "" {
			start, _ = strconv.Atoi(p.Cursor)
		}
		start = min(max(start, 0), len(all))
		end := min(start+page, len(all))
		res := &mcp.ListToolsResult{Tools: all[start:end]}
		if end < len(all) {
			res.NextCursor = strconv.Itoa(end)
		}
		return res, nil
	})
	var partial *upstream.ListingLimitError
	if err != nil && !errors.As(err, &partial) {
		return nil, err
	}
	tools = withRequests(tools, doc, o.baseURL(source))
	if err := dropCredentialParams(tools, doc, places); err != nil {
		return nil, &upstream.Error{Source: source, Kind: upstream.KindUnavailable, Err: err}
	}
	var warnings []string
	if partial != nil {
		warnings = append(warnings, partial.Warnings...)
	}
	if doc.serverProblem != "" && o.baseURL(source) == "" {
		warnings = append(warnings, "calls fail: "+doc.serverProblem)
	}
	if doc.untyped > 0 {
		warnings = append(warnings, UntypedNote(doc.untyped))
	}
	for i, s := range append(left, doc.skipped...) {
		if i == upstream.MaxListingWarnings {
			warnings = append(warnings, fmt.Sprintf("and %d more operations skipped", len(left)+len(doc.skipped)-i))
			break
		}
		warnings = append(warnings, s)
	}
	if len(warnings) > 0 {
		return tools, &upstream.ListingLimitError{Source: source, Warnings: warnings}
	}
	return tools, nil
}

func (o *Sources) baseURL(source string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if def := o.cfg.Sources[source]; def != nil {
		return strings.TrimRight(def.BaseURL, "/")
	}
	return ""
}

// restCredentials are what one connection sends: headers, query
// parameters and cookies, secrets expanded.
type restCredentials struct {
	headers, query, cookies map[string]string
	secrets                 []string
	// signInToken, when set, is the sign-in's access token the
	// Authorization header carries: a 401 renews it once.
	signInToken string
	// baseURL, when set, is the source's baseUrl with the secrets it
	// references filled in, where the calls go.
	baseURL string
}

// any reports whether the credentials hold anything to send.
func (cr *restCredentials) any() bool {
	return len(cr.headers)+len(cr.query)+len(cr.cookies) > 0 || cr.baseURL != ""
}

// connection resolves conn ("" = the default) of source.
func (o *Sources) connection(source, conn string) (*config.Source, string, *config.Connection, error) {
	o.mu.Lock()
	def := o.cfg.Sources[source]
	o.mu.Unlock()
	if def == nil {
		return nil, "", nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnknownSource, Err: errors.New("no such source in the config")}
	}
	if conn == "" {
		conn = def.DefaultConnection()
		if conn == "" && len(def.Connections) > 0 {
			return nil, "", nil, &upstream.Error{Source: source, Kind: upstream.KindUnknownConnection,
				Err: fmt.Errorf("no default connection; pick one of %s", strings.Join(def.ConnectionNames(), ", "))}
		}
	}
	c := def.Connections[conn]
	if conn != "" && c == nil {
		return nil, "", nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnknownConnection, Err: fmt.Errorf("no connection %q", conn)}
	}
	return def, conn, c, nil
}

// credentials expands the connection's values from the keychain.
func (o *Sources) credentials(rs *restSource, source, conn string, def *config.Source, c *config.Connection) (*restCredentials, error) {
	cr := &restCredentials{headers: map[string]string{}, query: map[string]string{}, cookies: map[string]string{}}
	var ferr error
	value := func(name string) string {
		if o.opts.Keychain == nil {
			ferr = &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Secret: name,
				Err: fmt.Errorf("secret %q is needed but no keychain is available", name)}
			return ""
		}
		val, err := o.opts.Keychain.Get(config.SecretKey(source, conn, name))
		switch {
		case errors.Is(err, keychain.ErrNotFound):
			ferr = &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Secret: name,
				Err: fmt.Errorf("secret %q is not in the keychain", name)}
		case err != nil:
			ferr = &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnavailable, Err: fmt.Errorf("reading secret %q: %w", name, err)}
		}
		if val != "" {
			cr.secrets = append(cr.secrets, val)
		}
		return val
	}
	expand := func(dst, m map[string]string) error {
		for k, v := range m {
			if dst[k] = config.ReplaceSecretRefs(v, value); ferr != nil {
				return ferr
			}
		}
		return nil
	}
	if err := expand(cr.headers, def.Headers); err != nil {
		return nil, err
	}
	if strings.Contains(def.BaseURL, "${secret:") {
		// A key in the API's path (https://host/bot<key>/), which an
		// error quoting the URL writes escaped.
		n := len(cr.secrets)
		if cr.baseURL = config.FillURL(strings.TrimRight(def.BaseURL, "/"), value); ferr != nil {
			return nil, ferr
		}
		for _, v := range cr.secrets[n:] {
			cr.secrets = append(cr.secrets, secrets.URLForms(v)...)
		}
	}
	if c != nil {
		for _, p := range []struct{ dst, src map[string]string }{{cr.headers, c.Headers}, {cr.query, c.Query}, {cr.cookies, c.Cookies}} {
			if err := expand(p.dst, p.src); err != nil {
				return nil, err
			}
		}
	}
	if rs != nil {
		tokens, used, err := o.oauthHeader(rs, def, source, conn, cr.headers)
		if err != nil {
			return nil, err
		}
		cr.secrets, cr.signInToken = append(cr.secrets, tokens...), used
	}
	sort.Slice(cr.secrets, func(i, j int) bool { return len(cr.secrets[i]) > len(cr.secrets[j]) })
	// A basic credential's encoded form is a secret too.
	for _, v := range cr.headers {
		if rest, ok := strings.CutPrefix(v, "Basic "); ok && rest != "" {
			cr.secrets = append(cr.secrets, rest)
		}
	}
	o.opts.Secrets.Set(secrets.ConnectionOwner(source, conn), cr.secrets...)
	return cr, nil
}

// provides reports whether a connection's values satisfy scheme s.
func provides(s *openapiScheme, headers, query, cookies map[string]string, signedIn func() bool) bool {
	hasFold := func(m map[string]string, k string) bool {
		for key := range m {
			if strings.EqualFold(key, k) {
				return true
			}
		}
		return false
	}
	switch s.typ {
	case "apiKey":
		switch strings.ToLower(s.in) {
		case "header":
			return hasFold(headers, s.key)
		case "query":
			_, ok := query[s.key]
			return ok
		case "cookie":
			_, ok := cookies[s.key]
			return ok
		}
	case "http":
		return hasFold(headers, "Authorization")
	case "oauth2", "openIdConnect":
		// A static token, or a sign-in of the connection (oauth.go).
		return hasFold(headers, "Authorization") || signedIn()
	}
	return false
}

// AuthNeed says what operation tool of source needs that connection conn
// does not provide: "" when it needs nothing more (or the source is not an
// OpenAPI source, or its document is not loaded yet: the call then says
// so). The heart asks it before a call of an OpenAPI source goes out.
func (o *Sources) AuthNeed(source, tool, conn string) string {
	doc, def := o.loaded(source)
	if doc == nil || def == nil {
		return ""
	}
	op := doc.ops[tool]
	if op == nil || op.security == nil {
		return ""
	}
	return o.need(doc, def, source, conn, op.security)
}

// loaded is source's document and definition; the document is nil
// before it is loaded.
func (o *Sources) loaded(source string) (*openapiDoc, *config.Source) {
	if o == nil {
		return nil, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	rs := o.srcs[source]
	if rs == nil || rs.doc == nil {
		return nil, nil
	}
	return rs.doc, o.cfg.Sources[source]
}

// need is AuthNeed for one operation's security alternatives.
func (o *Sources) need(doc *openapiDoc, def *config.Source, source, conn string, security [][]string) string {
	if conn == "" {
		conn = def.DefaultConnection()
	}
	headers, query, cookies := map[string]string{}, map[string]string{}, map[string]string{}
	for k, v := range def.Headers {
		headers[k] = v
	}
	if c := def.Connections[conn]; c != nil {
		for k, v := range c.Headers {
			headers[k] = v
		}
		query, cookies = c.Query, c.Cookies
	}
	signed := -1
	signedIn := func() bool { // read from the keychain only when asked
		if signed < 0 {
			signed = 0
			if rec, _ := o.signIn(doc, def, source, conn); rec != nil {
				signed = 1
			}
		}
		return signed == 1
	}
	var wants []string
	for _, alt := range security {
		ok := true
		var miss []string
		for _, name := range alt {
			s := doc.schemes[name]
			if s == nil || !provides(s, headers, query, cookies, signedIn) {
				ok = false
				miss = append(miss, schemeHowTo(source, conn, name, s))
			}
		}
		if ok {
			return ""
		}
		wants = append(wants, strings.Join(miss, " and "))
	}
	return strings.Join(wants, "; or ")
}

// Needs says what source's default connection does not provide that its
// operations' security schemes ask for: how many of its operations wait
// for credentials, of how many, and the need of the most of them, worded
// as AuthNeed words it. Operations that ask for the same schemes are
// looked at once. Zero and "" when every operation can be called, or the
// document is not loaded yet.
func (o *Sources) Needs(source string) (waiting, of int, need string) {
	doc, def := o.loaded(source)
	if doc == nil || def == nil {
		return 0, 0, ""
	}
	type group struct {
		security [][]string
		ops      int
	}
	groups := map[string]*group{}
	for _, op := range doc.ops {
		if len(op.security) == 0 || !doc.serves(def, op) {
			continue
		}
		var key strings.Builder
		for _, alt := range op.security {
			key.WriteString(strings.Join(alt, "\x00") + "\x01")
		}
		g := groups[key.String()]
		if g == nil {
			g = &group{security: op.security}
			groups[key.String()] = g
		}
		g.ops++
	}
	most := 0
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		n := o.need(doc, def, source, "", g.security)
		if n == "" {
			continue
		}
		waiting += g.ops
		if g.ops > most {
			most, need = g.ops, n
		}
	}
	return waiting, len(doc.ops), need
}

// schemeHowTo tells the person how to give connection conn scheme s.
func schemeHowTo(source, conn, name string, s *openapiScheme) string {
	if conn == "" {
		conn = "default"
	}
	if s == nil {
		return fmt.Sprintf("the security scheme %q, which the document does not define", name)
	}
	switch s.typ {
	case "apiKey":
		switch strings.ToLower(s.in) {
		case "header":
			return fmt.Sprintf("an API key in header %s (%s): capabilities connection add %s %s --header %s", s.key, name, source, conn, s.key)
		case "query":
			return fmt.Sprintf("an API key in query parameter %s (%s): capabilities connection add %s %s --query %s", s.key, name, source, conn, s.key)
		case "cookie":
			return fmt.Sprintf("an API key in cookie %s (%s): capabilities connection add %s %s --cookie %s", s.key, name, source, conn, s.key)
		}
	case "http":
		if s.http == "basic" {
			return fmt.Sprintf("a user and password (%s, HTTP basic): capabilities connection add %s %s --header Authorization --prefix 'Basic ' with base64 of user:password", name, source, conn)
		}
		return fmt.Sprintf("a bearer token (%s): capabilities connection add %s %s --header Authorization --prefix 'Bearer '", name, source, conn)
	case "oauth2", "openIdConnect":
		token := fmt.Sprintf("capabilities connection add %s %s --header Authorization --prefix 'Bearer '", source, conn)
		if s.canSignIn() {
			return fmt.Sprintf("an OAuth sign-in (%s): capabilities connection login %s %s (or an access token: %s)", name, source, conn, token)
		}
		if s.clientTokenURL != "" {
			return fmt.Sprintf("an OAuth client of the API (%s): capabilities connection login %s %s --client-id ID --client-secret-stdin (or an access token: %s)", name, source, conn, token)
		}
		return fmt.Sprintf("an OAuth access token (%s): %s", name, token)
	}
	return fmt.Sprintf("the %s scheme %s, which the hub cannot provide", s.typ, name)
}

// SecretPlace is where one secret of a connection goes in an operation's
// request, as its security scheme says: In is "header", "query" or
// "cookie", Name the header, parameter or cookie, Prefix what precedes the
// secret ("Bearer " for a bearer token). OAuth marks an OAuth scheme's
// place: its secret is an access token, sent as a bearer token, for a
// connection that does not sign in (oauth.go).
type SecretPlace struct {
	In, Name, Prefix string
	OAuth            bool
}

// Where names the place in words for a person: "header X-API-Key",
// "query parameter api_key", "cookie session".
func (p SecretPlace) Where() string {
	in := p.In
	if in == "query" {
		in = "query parameter"
	}
	return in + " " + p.Name
}

// Put is the config change that makes connection c reference the secret
// Name where the document wants it, after Prefix.
func (p SecretPlace) Put(c *config.Connection) {
	m := map[string]*map[string]string{"header": &c.Headers, "query": &c.Query, "cookie": &c.Cookies}[p.In]
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[p.Name] = p.Prefix + "${secret:" + p.Name + "}"
}

// SecretPlace says where the one secret operation tool of source needs
// goes: the first alternative of its security that one secret fulfils
// (an OAuth scheme's secret being its access token). With tool "" (or one the document does not have) it
// looks at the source's operations in name order, and a secret the person
// is giving goes where one of them takes an API key or bearer token before
// it is read as an OAuth access token: a document whose writes take OAuth
// and whose reads take an API key wants the key. ok is false when no
// operation needs such a secret, the document is not loaded, or its
// schemes need more than one value (HTTP basic: a user and a password).
func (o *Sources) SecretPlace(source, tool string) (SecretPlace, bool) {
	doc, _ := o.loaded(source)
	return doc.secretPlace(tool)
}

// secretPlace is Sources.SecretPlace over doc; nil has no place.
func (doc *openapiDoc) secretPlace(tool string) (SecretPlace, bool) {
	if doc == nil {
		return SecretPlace{}, false
	}
	ops := []*openapiOp{doc.ops[tool]}
	if ops[0] == nil {
		ops = ops[:0]
		for _, name := range slices.Sorted(maps.Keys(doc.ops)) {
			ops = append(ops, doc.ops[name])
		}
	}
	var token *SecretPlace // an OAuth scheme's, kept in case no key comes
	for _, op := range ops {
		for _, alt := range op.security {
			if len(alt) != 1 {
				continue
			}
			p, ok := placeOf(doc.schemes[alt[0]])
			switch {
			case !ok:
			case !p.OAuth || len(ops) == 1:
				return p, true
			case token == nil:
				token = &p
			}
		}
	}
	if token != nil {
		return *token, true
	}
	return SecretPlace{}, false
}

// placeOf is where scheme s takes its one secret.
func placeOf(s *openapiScheme) (SecretPlace, bool) {
	if s == nil {
		return SecretPlace{}, false
	}
	switch s.typ {
	case "apiKey":
		switch in := strings.ToLower(s.in); in {
		case "header", "query", "cookie":
			return SecretPlace{In: in, Name: s.key}, s.key != ""
		}
	case "http":
		if strings.EqualFold(s.http, "bearer") {
			return SecretPlace{In: "header", Name: "Authorization", Prefix: "Bearer "}, true
		}
	case "oauth2", "openIdConnect":
		return SecretPlace{In: "header", Name: "Authorization", Prefix: "Bearer ", OAuth: true}, true
	}
	return SecretPlace{}, false
}

// ConnectionMessage is what the model hears when an operation waits
// for credentials.
func ConnectionMessage(source, need string) string {
	return fmt.Sprintf("The API of %s needs %s. Ask the user to add it in a terminal (the secret is read from stdin; never ask for it in chat). Then resume.", source, need)
}

// Call sends one operation of an OpenAPI source. When want is not nil the
// call is sent only if the operation's request is still want (what the
// catalog listed and the person consented to); else it fails, and the
// source's tools are listed again.
func (o *Sources) Call(ctx context.Context, source, conn, name string, args json.RawMessage, want *upstream.RESTRequest) (*mcp.CallToolResult, error) {
	var in map[string]json.RawMessage
	if len(strings.TrimSpace(string(args))) > 0 {
		if err := json.Unmarshal(args, &in); err != nil || in == nil {
			return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol,
				Err: fmt.Errorf("calling %s: arguments must be a JSON object", name)}
		}
	}
	def, conn, c, err := o.connection(source, conn)
	if err != nil {
		return nil, err
	}
	doc, rs, err := o.doc(ctx, source)
	if err != nil {
		return nil, err
	}
	op := doc.ops[name]
	if op == nil {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Err: fmt.Errorf("calling %s: %w", name, errNoOperation)}
	}
	if !doc.serves(def, op) {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol,
			Err: fmt.Errorf("calling %s: not sent: %s", name, doc.elsewhereWhy(doc.elsewhere(op)))}
	}
	if need := o.AuthNeed(source, name, conn); need != "" {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret,
			Err: fmt.Errorf("calling %s: the connection has no credentials for it; it needs %s", name, need)}
	}
	cr, err := o.credentials(rs, source, conn, def, c)
	if err != nil {
		return nil, err
	}
	base := restEndpoint(strings.TrimRight(def.BaseURL, "/"), doc, op)
	if base == "" {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnavailable, Err: fmt.Errorf("calling %s: %s", name, doc.serverProblem)}
	}
	if got := (upstream.RESTRequest{Method: op.method, Path: op.path, Server: base}); want != nil && !want.SameCall(got) {
		o.toolsChanged(source)
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Retryable: true,
			Err: fmt.Errorf("calling %s: the operation changed since it was listed (now %s, listed as %s); nothing was sent, and its new definition asks until accepted", name, got, want)}
	}
	if cr.any() {
		if why := secrets.InsecureHTTP(base, def.AllowInsecureHTTP); why != "" {
			return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnavailable,
				Err: fmt.Errorf("calling %s: the hub did not send it: %s", name, why)}
		}
	}
	if cr.baseURL != "" {
		// The baseUrl with its secrets filled in, where restEndpoint sends
		// the call.
		base = restEndpoint(cr.baseURL, doc, op)
	}
	req, err := buildRESTRequest(base, op, in, cr)
	if err != nil {
		kind := upstream.KindArguments
		var se setupError
		if errors.As(err, &se) {
			kind = upstream.KindProtocol
		}
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: kind, Err: fmt.Errorf("calling %s: %w", name, err)}
	}
	callCtx, cancel := context.WithTimeout(ctx, o.opts.CallTimeout)
	defer cancel()
	refreshed := false
	for attempt := 0; ; attempt++ {
		res, retryIn, err := o.send(ctx, callCtx, rs.client, req, source, conn, name, cr.secrets)
		var ue *upstream.Error
		if cr.signInToken != "" && !refreshed && errors.As(err, &ue) && ue.Status == http.StatusUnauthorized {
			// The API refused the sign-in's token: renewed, the request
			// goes once more; else the connection needs a sign-in.
			refreshed = true
			tok, rerr := o.renewSignIn(rs, source, conn, cr.signInToken)
			if rerr != nil && !errors.Is(rerr, oauth.ErrNeedsSignIn) {
				return nil, signInFailed(source, conn, fmt.Errorf("calling %s: %w", name, rerr))
			}
			if rerr != nil {
				return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret,
					Err: fmt.Errorf("calling %s: %w; sign in again: capabilities connection login %s %s", name, rerr, source, connOrDefault(conn))}
			}
			cr.secrets = append(cr.secrets, tok.AccessToken)
			if tok.RefreshToken != "" {
				cr.secrets = append(cr.secrets, tok.RefreshToken)
			}
			o.opts.Secrets.Set(secrets.ConnectionOwner(source, conn), cr.secrets...)
			req.headers.Set("Authorization", "Bearer "+tok.AccessToken)
			attempt--
			continue
		}
		if err == nil || retryIn < 0 || attempt >= 1 {
			return res, err
		}
		dl, ok := callCtx.Deadline()
		if ok && time.Until(dl) < retryIn {
			return nil, err
		}
		t := time.NewTimer(retryIn)
		select {
		case <-t.C:
		case <-callCtx.Done():
			t.Stop()
			return nil, err
		}
	}
}

// restRequest is a request built once and sent once or twice.
type restRequest struct {
	method  string
	url     string
	headers http.Header
	body    []byte
}

// setupError is a request buildRESTRequest cannot make whatever the
// arguments: the API's base URL or the operation's path. Every other
// failure of it is the arguments' (upstream.KindArguments).
type setupError struct{ error }

// buildRESTRequest writes the operation's request from the arguments:
// parameters per style and explode, the JSON or form body, the
// credentials. The request stays on base's origin: the path template must
// start with "/", a path parameter cannot make a "." or ".." segment (nor
// a "/", "?" or "#"), and no parameter can set a query key, cookie or
// header that the credentials or another parameter set. Any of these is an
// error that names the parameter.
func buildRESTRequest(base string, op *openapiOp, in map[string]json.RawMessage, cr *restCredentials) (*restRequest, error) {
	baseURL, err := url.Parse(base)
	if err != nil || secrets.OriginOf(baseURL) == "" || baseURL.RawQuery != "" || baseURL.Fragment != "" {
		return nil, setupError{fmt.Errorf("the API's base URL %q is not an http(s) URL without query", base)}
	}
	if problem := pathTemplateProblem(op.path); problem != "" {
		return nil, setupError{fmt.Errorf("the path template %q %s", op.path, problem)}
	}
	if cr == nil {
		cr = &restCredentials{}
	}
	if err := unknownArgument(op, in); err != nil {
		return nil, err
	}
	pathValues := map[string]string{}
	var rawQuery []string
	h := http.Header{}
	var cookies []string
	cookieSet := map[string]string{}
	for _, p := range op.params {
		raw, ok := in[p.arg]
		if !ok || string(raw) == "null" {
			if p.in == "path" {
				return nil, fmt.Errorf("path parameter %q is missing", p.arg)
			}
			continue
		}
		var v any
		if p.json {
			v = string(raw)
		} else if err := decodeNumber(raw, &v); err != nil {
			return nil, fmt.Errorf("parameter %q: %w", p.arg, err)
		}
		switch p.in {
		case "path":
			pathValues[p.name] = serializePath(p, v)
		case "query":
			pairs := serializeQuery(p, v)
			for _, kv := range pairs {
				k, _, _ := strings.Cut(kv, "=")
				key, err := url.QueryUnescape(k)
				if err != nil {
					key = k
				}
				if _, ok := cr.query[key]; ok {
					return nil, fmt.Errorf("parameter %q would set the query key %q, which the connection's credentials set", p.arg, key)
				}
				if owner := queryKeyOwner(op, key); owner != "" && owner != p.arg {
					return nil, fmt.Errorf("parameter %q would set the query key %q of parameter %q", p.arg, key, owner)
				}
			}
			rawQuery = append(rawQuery, pairs...)
		case "header":
			val := serializeSimple(v, p.explode, false)
			if strings.ContainsAny(val, "\r\n\x00") {
				return nil, fmt.Errorf("header parameter %q holds a line break or NUL", p.arg)
			}
			for k := range cr.headers {
				if strings.EqualFold(k, p.name) {
					return nil, fmt.Errorf("parameter %q would set the header %s, which the connection's credentials set", p.arg, p.name)
				}
			}
			h.Set(p.name, val)
		case "cookie":
			if !validCookieName(p.name) {
				return nil, fmt.Errorf("cookie parameter %q has a name that is not a cookie name", p.arg)
			}
			if _, ok := cr.cookies[p.name]; ok {
				return nil, fmt.Errorf("parameter %q would set the cookie %s, which the connection's credentials set", p.arg, p.name)
			}
			if other, ok := cookieSet[p.name]; ok {
				return nil, fmt.Errorf("parameter %q would set the cookie %s of parameter %q", p.arg, p.name, other)
			}
			cookieSet[p.name] = p.arg
			// Each part escaped as in a path segment: no ";", "," or space
			// is left to start another cookie.
			cookies = append(cookies, p.name+"="+serializeSimple(v, false, true))
		}
	}
	path, err := expandPath(op, pathValues)
	if err != nil {
		return nil, err
	}
	query := url.Values{}
	for k, v := range cr.query {
		query.Set(k, v)
	}
	if enc := query.Encode(); enc != "" {
		rawQuery = append(rawQuery, enc)
	}
	for _, k := range slices.Sorted(maps.Keys(cr.cookies)) {
		cookies = append(cookies, k+"="+cr.cookies[k])
	}
	for k, v := range cr.headers {
		h.Set(k, v)
	}
	if len(cookies) > 0 {
		h.Set("Cookie", strings.Join(cookies, "; "))
	}
	h.Set("Accept", "application/json")
	r := &restRequest{method: op.method, url: strings.TrimRight(base, "/") + path, headers: h}
	if len(rawQuery) > 0 {
		r.url += "?" + strings.Join(rawQuery, "&")
	}
	if built, err := url.Parse(r.url); err != nil || secrets.OriginOf(built) != secrets.OriginOf(baseURL) {
		return nil, setupError{fmt.Errorf("the request's URL would leave the API's origin %s", secrets.OriginOf(baseURL))}
	}
	if op.hasBody && textMedia(op.bodyType) != "" {
		var text string
		raw, ok := in[op.bodyArg]
		if ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, fmt.Errorf("argument %q is the %s body: it must be a string", op.bodyArg, op.bodyType)
			}
		}
		if ok && string(raw) != "null" || op.bodyRequired {
			r.body = []byte(text)
			h.Set("Content-Type", op.bodyType+"; charset=utf-8")
		}
		return r, nil
	}
	if op.hasBody && binaryMedia(op.bodyType) != "" {
		raw, ok := in[op.bodyArg]
		if ok && string(raw) != "null" || op.bodyRequired {
			body, err := binaryBody(raw)
			if err != nil {
				return nil, fmt.Errorf("argument %q is the %s body: %v", op.bodyArg, op.bodyType, err)
			}
			r.body = body
			h.Set("Content-Type", op.bodyType)
		}
		return r, nil
	}
	if op.hasBody && op.bodyType == multipartMedia {
		fields, values, err := bodyFields(op, in, "multipart")
		if err != nil {
			return nil, err
		}
		if len(fields) > 0 || op.bodyRequired {
			body, ctype, err := multipartBody(fields, values)
			if err != nil {
				return nil, err
			}
			r.body = body
			h.Set("Content-Type", ctype)
		}
		return r, nil
	}
	if op.hasBody && op.bodyType == formMedia {
		body, err := formBody(op, in)
		if err != nil {
			return nil, err
		}
		if body != "" || op.bodyRequired {
			r.body = []byte(body)
			h.Set("Content-Type", formMedia)
		}
		return r, nil
	}
	if op.hasBody {
		var body []byte
		switch {
		case op.bodyArg != "":
			if raw, ok := in[op.bodyArg]; ok {
				body = raw
			}
		default:
			var b strings.Builder
			n := 0
			for _, name := range op.bodyProps {
				raw, ok := in[name]
				if !ok {
					continue
				}
				if n == 0 {
					b.WriteByte('{')
				} else {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(name)
				b.Write(k)
				b.WriteByte(':')
				b.Write(raw)
				n++
			}
			if n > 0 {
				b.WriteByte('}')
				body = []byte(b.String())
			} else if op.bodyRequired {
				body = []byte("{}")
			}
		}
		if body != nil {
			r.body = body
			h.Set("Content-Type", "application/json")
		}
	}
	return r, nil
}

// binaryBody decodes a bytes body's argument: a string of base64, in the
// standard or the URL alphabet, padded or not, line breaks ignored (as
// MIME writes it); no argument is no bytes.
func binaryBody(raw json.RawMessage) ([]byte, error) {
	if raw == nil || string(raw) == "null" {
		return []byte{}, nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, errors.New("it must be a string of base64")
	}
	return decodeBase64(text)
}

// decodeBase64 reads base64 in the standard or the URL alphabet, padded
// or not, line breaks ignored.
func decodeBase64(text string) ([]byte, error) {
	text = strings.NewReplacer("\r", "", "\n", "").Replace(text)
	text = strings.TrimRight(text, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(text, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("it must be a string of base64: %v", err)
	}
	return b, nil
}

// multipartBody writes a multipart/form-data body of the fields given
// (bodyFields), each a part: a string as its text, another value as JSON
// (typed application/json when an object or array), a file as its bytes
// with its name and media type, the pairs of a styled field each as a
// part. It returns the body and its Content-Type, with the boundary.
func multipartBody(fields []openapiParam, values []json.RawMessage) ([]byte, string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part := func(name, filename, ctype string, content []byte) error {
		for _, s := range []string{name, filename, ctype} {
			if strings.ContainsAny(s, "\r\n\x00") {
				return fmt.Errorf("holds a line break or NUL in %q", s)
			}
		}
		// As Go's writer and browsers write it: quoted, quotes escaped.
		disposition := multipart.FileContentDisposition(name, filename)
		if filename == "" {
			disposition = strings.TrimSuffix(disposition, `; filename=""`)
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", disposition)
		if ctype != "" {
			h.Set("Content-Type", ctype)
		}
		w, err := mw.CreatePart(h)
		if err == nil {
			_, err = w.Write(content)
		}
		return err
	}
	for i, f := range fields {
		raw := values[i]
		switch {
		case f.file:
			files := []json.RawMessage{raw}
			if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
				files = nil
				if err := json.Unmarshal(raw, &files); err != nil {
					return nil, "", fmt.Errorf("multipart field %q: %v", f.arg, err)
				}
			}
			for _, fr := range files {
				var file struct {
					Filename    string  `json:"filename"`
					Base64      *string `json:"base64"`
					ContentType string  `json:"contentType"`
				}
				if err := json.Unmarshal(fr, &file); err != nil || file.Filename == "" || file.Base64 == nil {
					return nil, "", fmt.Errorf("multipart field %q is a file: it must be {filename, base64, contentType?}", f.arg)
				}
				content, err := decodeBase64(*file.Base64)
				if err != nil {
					return nil, "", fmt.Errorf("multipart field %q, file %q: %v", f.arg, file.Filename, err)
				}
				ctype := cmp.Or(file.ContentType, f.contentType, "application/octet-stream")
				if t, _, err := mime.ParseMediaType(ctype); err != nil || strings.Contains(t, "*") {
					return nil, "", fmt.Errorf("multipart field %q, file %q: %q is no media type", f.arg, file.Filename, ctype)
				}
				if err := part(f.name, file.Filename, ctype, content); err != nil {
					return nil, "", fmt.Errorf("multipart field %q: %v", f.arg, err)
				}
			}
		case f.styled:
			var v any
			if err := decodeNumber(raw, &v); err != nil {
				return nil, "", fmt.Errorf("multipart field %q: %w", f.arg, err)
			}
			for _, kv := range serializeQuery(f, v) {
				k, v, _ := strings.Cut(kv, "=")
				key, err1 := url.QueryUnescape(k)
				val, err2 := url.QueryUnescape(v)
				if err := cmp.Or(err1, err2); err != nil {
					return nil, "", fmt.Errorf("multipart field %q: %v", f.arg, err)
				}
				if err := part(key, "", f.contentType, []byte(val)); err != nil {
					return nil, "", fmt.Errorf("multipart field %q: %v", f.arg, err)
				}
			}
		default:
			content, ctype := []byte(raw), f.contentType
			var text string
			switch t := bytes.TrimSpace(raw); {
			case json.Unmarshal(raw, &text) == nil:
				content = []byte(text)
			case len(t) > 0 && (t[0] == '{' || t[0] == '[') && ctype == "":
				ctype = "application/json"
			}
			if err := part(f.name, "", ctype, content); err != nil {
				return nil, "", fmt.Errorf("multipart field %q: %v", f.arg, err)
			}
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), mw.FormDataContentType(), nil
}

// bodyFields are the form or multipart (kind) body's fields given in
// in, with their values: the op's form fields, or each key of the bodyArg
// object, in order, written the default way.
func bodyFields(op *openapiOp, in map[string]json.RawMessage, kind string) ([]openapiParam, []json.RawMessage, error) {
	var fields []openapiParam
	var values []json.RawMessage
	if op.bodyArg == "" {
		for _, f := range op.form {
			if raw, ok := in[f.arg]; ok && string(raw) != "null" {
				fields = append(fields, f)
				values = append(values, raw)
			}
		}
		return fields, values, nil
	}
	raw, ok := in[op.bodyArg]
	if !ok || string(raw) == "null" {
		return nil, nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, nil, fmt.Errorf("argument %q is the %s body: it must be an object", op.bodyArg, kind)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		fields = append(fields, openapiParam{name: k, arg: op.bodyArg + "." + k, in: kind, style: "form", explode: true})
		values = append(values, obj[k])
	}
	return fields, values, nil
}

// formBody writes a URL-encoded form body from the arguments: each body
// property as its encoding says (formField), or the keys of the bodyArg
// object each as a form field, exploded. A null or absent property is left
// out; a key two properties would both write is an error, as a query key
// is.
func formBody(op *openapiOp, in map[string]json.RawMessage) (string, error) {
	fields, values, err := bodyFields(op, in, "form")
	if err != nil {
		return "", err
	}
	var pairs []string
	owner := map[string]string{}
	for i, f := range fields {
		var v any
		if f.json {
			v = string(values[i])
		} else if err := decodeNumber(values[i], &v); err != nil {
			return "", fmt.Errorf("form field %q: %w", f.arg, err)
		}
		for _, kv := range serializeQuery(f, v) {
			k, _, _ := strings.Cut(kv, "=")
			if o, ok := owner[k]; ok && o != f.arg {
				key, _ := url.QueryUnescape(k)
				return "", fmt.Errorf("form field %q would set the key %q of form field %q", f.arg, key, o)
			}
			owner[k] = f.arg
			pairs = append(pairs, kv)
		}
	}
	return strings.Join(pairs, "&"), nil
}

// unknownArgument refuses an argument the operation would not send: the
// request is made of its parameters and its body's properties (or its one
// body argument), and any other key, a misspelt "lables" say, would be
// left out without a word while the call went on. A null sends nothing
// either way, as for a parameter.
func unknownArgument(op *openapiOp, in map[string]json.RawMessage) error {
	var takes, unknown []string
	for k, v := range in {
		if string(v) == "null" {
			continue
		}
		if takes == nil {
			takes = op.arguments()
		}
		if !slices.Contains(takes, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	list := "no arguments"
	if len(takes) > 0 {
		const shown = 30
		list = strings.Join(takes[:min(len(takes), shown)], ", ")
		if len(takes) > shown {
			list += fmt.Sprintf(" and %d more", len(takes)-shown)
		}
	}
	return fmt.Errorf("argument %q is not one the operation takes, so it would not be sent; it takes %s", secrets.Cap(slices.Min(unknown), 100), list)
}

// arguments are the names of the arguments op takes, each once, in
// order: its parameters', its body's or its body properties'.
func (op *openapiOp) arguments() []string {
	var args []string
	add := func(a string) {
		if a != "" && !slices.Contains(args, a) {
			args = append(args, a)
		}
	}
	for _, p := range op.params {
		add(p.arg)
	}
	add(op.bodyArg)
	for _, b := range op.bodyProps {
		add(b)
	}
	for _, f := range op.form {
		add(f.arg)
	}
	return args
}

// queryKeyOwner is the argument of the query parameter of op that a query
// key belongs to: its name, or name[...] for a deepObject; "" for none.
func queryKeyOwner(op *openapiOp, key string) string {
	for _, p := range op.params {
		if p.in != "query" {
			continue
		}
		if key == p.name || p.style == "deepObject" && strings.HasPrefix(key, p.name+"[") {
			return p.arg
		}
	}
	return ""
}

// expandPath fills the operation's path template with the serialised path
// parameters, in one pass, segment by segment. A segment that comes out "."
// or ".." (in any escaping) is refused: it would name another path.
func expandPath(op *openapiOp, values map[string]string) (string, error) {
	segs := strings.Split(op.path, "/")
	for i, seg := range segs {
		var b strings.Builder
		var names []string
		rest := seg
		for {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				writePathLiteral(&b, rest)
				break
			}
			end := strings.IndexByte(rest[open:], '}')
			if end < 0 {
				writePathLiteral(&b, rest)
				break
			}
			name := rest[open+1 : open+end]
			v, ok := values[name]
			if !ok {
				return "", fmt.Errorf("path parameter %q is missing", name)
			}
			writePathLiteral(&b, rest[:open])
			b.WriteString(v)
			names = append(names, name)
			rest = rest[open+end+1:]
		}
		out := b.String()
		if dotSegment(out) {
			if len(names) == 0 {
				return "", fmt.Errorf("the path template %q has a %q segment", op.path, seg)
			}
			return "", fmt.Errorf("path parameter %q makes the path segment %q, which would name another path", strings.Join(names, `", "`), out)
		}
		segs[i] = out
	}
	return strings.Join(segs, "/"), nil
}

// writePathLiteral writes a path template's literal text as a valid
// escaped path segment: a byte a segment may hold (RFC 3986 pchar) and a
// well-formed percent-escape stay as written, anything else (a space, a
// quote, a lone "%", a non-ASCII byte) is escaped. Written raw, such a byte
// makes the whole escaped path invalid, and the URL is then re-escaped from
// its decoded form, which turns a parameter's "%2F" into a real "/".
func writePathLiteral(b *strings.Builder, lit string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == '%' && i+2 < len(lit) && isHex(lit[i+1]) && isHex(lit[i+2]):
			b.WriteByte(c)
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// pathTemplateProblem says what is wrong with an operation's path
// template for a URL on its server's origin; "" when nothing. It must
// start with "/", and hold no "?", "#", backslash, control character, or
// "." or ".." segment.
func pathTemplateProblem(path string) string {
	if !strings.HasPrefix(path, "/") {
		return "does not start with \"/\""
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; c < ' ' || c == 0x7f || c == '?' || c == '#' || c == '\\' {
			return fmt.Sprintf("holds %q", c)
		}
	}
	for _, seg := range strings.Split(path, "/") {
		if dotSegment(seg) {
			return fmt.Sprintf("has a %q segment", seg)
		}
	}
	return ""
}

// dotSegment reports whether a path segment means "." or ".." once its
// percent-escapes are decoded.
func dotSegment(seg string) bool {
	if dec, err := url.PathUnescape(seg); err == nil {
		seg = dec
	}
	return seg == "." || seg == ".."
}

// validCookieName reports whether name is a cookie name (an RFC 6265
// token).
func validCookieName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// send sends r once. retryIn >= 0 means the answer asked to come back
// after that long (Retry-After on a 429 or 503, within maxRetryAfter); it
// is -1 otherwise.
func (o *Sources) send(ctx, callCtx context.Context, client *http.Client, r *restRequest, source, conn, name string, values []string) (*mcp.CallToolResult, time.Duration, error) {
	var body io.Reader
	if r.body != nil {
		body = strings.NewReader(string(r.body))
	}
	req, err := http.NewRequestWithContext(callCtx, r.method, r.url, body)
	if err != nil {
		return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Err: fmt.Errorf("calling %s: %v", name, secrets.ScrubValues(err.Error(), values))}
	}
	req.Header = r.headers.Clone()
	req.Header.Set("User-Agent", "capabilities/"+o.opts.Version)
	resp, err := client.Do(req)
	if err != nil {
		var re *secrets.RedirectError
		if errors.As(err, &re) {
			return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Status: re.Status,
				Err: fmt.Errorf("calling %s: %s", name, secrets.ScrubValues(re.Error(), values))}
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, -1, fmt.Errorf("source %q: calling %s: %w", source, name, ctx.Err())
		}
		// A request that found no server (the dial failed) never left.
		var op *net.OpError
		sent := !errors.As(err, &op) || op.Op != "dial"
		if callCtx.Err() != nil {
			return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindTimeout, Retryable: true, Sent: sent,
				Err: fmt.Errorf("calling %s: no answer within %v", name, o.opts.CallTimeout)}
		}
		return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnavailable, Retryable: true, Sent: sent,
			Err: fmt.Errorf("calling %s: %s", name, secrets.ScrubValues(err.Error(), values))}
	}
	defer resp.Body.Close()
	data, err := readBounded(resp.Body, maxRESTResponse, "the answer")
	if err != nil {
		if callCtx.Err() != nil {
			return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindTimeout, Retryable: true, Sent: true,
				Err: fmt.Errorf("calling %s: the answer did not arrive within %v", name, o.opts.CallTimeout)}
		}
		return nil, -1, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Sent: true, Err: fmt.Errorf("calling %s: %v", name, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		code := resp.StatusCode
		retryable := code == http.StatusTooManyRequests || code >= 500
		retryIn := time.Duration(-1)
		if ra := resp.Header.Get("Retry-After"); ra != "" && (code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable) {
			if d, ok := retryAfter(ra, time.Now()); ok && d <= maxRetryAfter {
				retryIn = d
			}
		}
		excerpt := secrets.ScrubValues(strings.Join(strings.Fields(string(data)), " "), values)
		msg := fmt.Sprintf("calling %s: HTTP %d %s", name, code, http.StatusText(code))
		if excerpt != "" {
			msg += ": " + truncateUTF8(excerpt, restExcerpt)
		}
		// A gateway that got no answer from the server behind it (502,
		// 504) cannot say whether the server acted.
		sent := code == http.StatusBadGateway || code == http.StatusGatewayTimeout
		return nil, retryIn, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindProtocol, Status: code, Retryable: retryable, Sent: sent, Err: errors.New(msg)}
	}
	res := &mcp.CallToolResult{}
	ct := resp.Header.Get("Content-Type")
	trimmed := strings.TrimSpace(string(data))
	switch {
	case trimmed == "":
		res.StructuredContent = json.RawMessage("null")
	case (isJSONMedia(ct) || ct == "") && json.Valid([]byte(trimmed)):
		res.StructuredContent = json.RawMessage(trimmed)
	default:
		text := string(data)
		if !utf8.ValidString(text) {
			text = base64.StdEncoding.EncodeToString(data)
		}
		b, _ := json.Marshal(text)
		res.StructuredContent = json.RawMessage(b)
	}
	return res, -1, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

// decodeNumber decodes JSON keeping numbers as written.
func decodeNumber(raw json.RawMessage, v *any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	return dec.Decode(v)
}

// scalarString writes a primitive value as a parameter's text.
func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// pairs lists an object's keys and values, keys sorted.
func pairs(m map[string]any) [][2]string {
	keys := slices.Sorted(maps.Keys(m))
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, scalarString(m[k])}
	}
	return out
}

// maxDeepObject is how deep deepPairs writes brackets; a value deeper
// goes as JSON text.
const maxDeepObject = 16

// deepPairs appends to out the pairs of style deepObject for v under the
// (escaped) key: an object's properties as key[name], sorted, an array's
// items as key[0], key[1]..., a scalar as key=value.
func deepPairs(out []string, key string, v any, depth int) []string {
	q := url.QueryEscape
	if depth >= maxDeepObject {
		return append(out, key+"="+q(scalarString(v)))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = deepPairs(out, key+"%5B"+q(k)+"%5D", x[k], depth+1)
		}
		return out
	case []any:
		for i, it := range x {
			out = deepPairs(out, key+"%5B"+strconv.Itoa(i)+"%5D", it, depth+1)
		}
		return out
	}
	return append(out, key+"="+q(scalarString(v)))
}

// serializeSimple is style simple (and form's value part): a,b,c; an
// object as k,v,k2,v2, or k=v,k2=v2 exploded. esc escapes each part for a
// URL path.
func serializeSimple(v any, explode, esc bool) string {
	e := func(s string) string {
		if esc {
			return url.PathEscape(s)
		}
		return s
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = e(scalarString(it))
		}
		return strings.Join(parts, ",")
	case map[string]any:
		var parts []string
		for _, kv := range pairs(x) {
			if explode {
				parts = append(parts, e(kv[0])+"="+e(kv[1]))
			} else {
				parts = append(parts, e(kv[0]), e(kv[1]))
			}
		}
		return strings.Join(parts, ",")
	}
	return e(scalarString(v))
}

func serializePath(p openapiParam, v any) string {
	switch p.style {
	case "label":
		sep := ","
		if p.explode {
			sep = "."
		}
		if _, isObj := v.(map[string]any); isObj && p.explode {
			return "." + strings.ReplaceAll(serializeSimple(v, true, true), ",", ".")
		}
		return "." + strings.ReplaceAll(serializeSimple(v, false, true), ",", sep)
	case "matrix":
		name := url.PathEscape(p.name)
		switch x := v.(type) {
		case []any:
			if p.explode {
				var b strings.Builder
				for _, it := range x {
					b.WriteString(";" + name + "=" + url.PathEscape(scalarString(it)))
				}
				return b.String()
			}
		case map[string]any:
			if p.explode {
				var b strings.Builder
				for _, kv := range pairs(x) {
					b.WriteString(";" + url.PathEscape(kv[0]) + "=" + url.PathEscape(kv[1]))
				}
				return b.String()
			}
		}
		return ";" + name + "=" + serializeSimple(v, false, true)
	}
	return serializeSimple(v, p.explode, true)
}

// serializeQuery writes one query parameter as name=value pairs, escaped.
func serializeQuery(p openapiParam, v any) []string {
	q := url.QueryEscape
	name := q(p.name)
	if p.style == "deepObject" {
		switch v.(type) {
		case map[string]any, []any:
			// Nested as the bracket convention does (Stripe, Rails,
			// qs): address[city]=x, expand[0]=a,
			// tax_id_data[0][type]=eu_vat.
			return deepPairs(nil, name, v, 0)
		}
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = q(scalarString(it))
		}
		switch {
		case p.style == "form" && p.explode:
			out := make([]string, len(parts))
			for i, s := range parts {
				out[i] = name + "=" + s
			}
			return out
		case p.style == "spaceDelimited":
			return []string{name + "=" + strings.Join(parts, "%20")}
		case p.style == "pipeDelimited":
			return []string{name + "=" + strings.Join(parts, "|")}
		}
		return []string{name + "=" + strings.Join(parts, ",")}
	case map[string]any:
		var out []string
		switch {
		case p.explode:
			for _, kv := range pairs(x) {
				out = append(out, q(kv[0])+"="+q(kv[1]))
			}
		default:
			var parts []string
			for _, kv := range pairs(x) {
				parts = append(parts, q(kv[0]), q(kv[1]))
			}
			out = append(out, name+"="+strings.Join(parts, ","))
		}
		return out
	}
	return []string{name + "=" + q(scalarString(v))}
}
