package upstream

// Upstream sessions.
//
// The hub keeps at most one MCP client session per (source, connection). A
// session starts on first use, is watched for death, restarts on the next
// use after a back-off that doubles with each consecutive failure, and closes
// after IdleTimeout without calls. Secrets come from the keychain only while a
// session starts: they go into the child's environment (stdio) or the request
// headers (HTTP) and are scrubbed from everything the hub says about the
// session: its log lines, its errors and its state. A source whose config
// says "openapi" has no session: the Backend of Options.OpenAPI
// serves it (backend.go).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/internal/proc"
	"capabilities.sh/capabilities/keychain"
)

// Defaults of [Options].
const (
	DefaultIdleTimeout    = 10 * time.Minute
	DefaultCallTimeout    = 30 * time.Second
	DefaultStartTimeout   = 30 * time.Second
	DefaultRestartBackoff = time.Second
	maxRestartBackoff     = time.Minute
	// upstreamTerminate is how long a stdio child gets after its stdin
	// closes before it is signalled.
	upstreamTerminate = 2 * time.Second
	// upstreamStderrTail is how many of a child's last stderr lines an error
	// quotes when the child fails.
	upstreamStderrTail = 3
	upstreamMaxLogLine = 4096
	// maxUpstreamError caps an upstream error's message: the default
	// inline budget (inlineResultBytes), which the execute path may lower.
	maxUpstreamError = 24 << 10
)

// Options configures [New]. The zero value works: no
// keychain (secret references fail as missing), the default logger and
// timeouts, and an empty base environment.
type Options struct {
	// Keychain holds the secrets a connection references as ${secret:NAME},
	// under config.SecretKey(source, conn, NAME).
	Keychain keychain.Keychain
	// Secrets receives the values of each connection's secrets when its
	// session starts, so the hub can scrub them wherever they turn up.
	Secrets *secrets.Secrets
	Logger  *slog.Logger
	// IdleTimeout closes a session after this long without calls
	// (default 10 minutes).
	IdleTimeout time.Duration
	// CallTimeout bounds one tools/call or one complete tools/list
	// (upstreamTimeoutMs, default 30s). Callers may pass a shorter context.
	CallTimeout time.Duration
	// StartTimeout bounds starting a session: spawning or connecting plus
	// the MCP handshake (default 30s).
	StartTimeout time.Duration
	// RestartBackoff is the wait after a session's first consecutive
	// failure before it may start again; it doubles with each further
	// failure up to one minute, and resets after a successful call
	// (default 1s).
	RestartBackoff time.Duration
	// OnToolsChanged is called when an upstream sends
	// notifications/tools/list_changed.
	OnToolsChanged func(source string)
	// OnState is called when a source's state changes.
	OnState func(source string, st SourceState)
	// Env is the hub's own environment (the hub passes os.Environ()).
	// A stdio child gets only the variables every process needs from it
	// (PATH, HOME, USER, LANG, TMPDIR and a few more; on Windows SYSTEMROOT,
	// APPDATA, PATH and the like), then its source's and connection's env.
	Env []string
	// Version is the client version the hub announces to upstreams
	// (default "dev").
	Version string
	// OpenAPI serves the sources whose config says "openapi"; Upstreams
	// hands it the config, routes their listings, calls and state to it,
	// and closes it on Close. Without it those sources are unavailable.
	OpenAPI Backend
}

// SourceState is one source's state. The model (search, describe and the
// ToolErrors of execute), `hub status`, the tray and doctor all read it
// from here, so they say the same thing.
type SourceState struct {
	State SourceStateKind
	// Err is the last failure, scrubbed of secrets, with the server's own
	// last output when it had any; "" when none.
	Err string
	// Retryable reports whether the source may come back without the
	// person doing anything (a server that died restarts on the next use);
	// false when they must act (a missing secret, a command not found, a
	// disabled source).
	Retryable bool
	Since     time.Time // when State last changed
	Sessions  int       // sessions up (one per connection in use)
}

// Kinds of [Error].
const (
	KindTimeout           = "timeout"
	KindUnavailable       = "unavailable"
	KindProtocol          = "protocol"
	KindMissingSecret     = "missing_secret"
	KindUnknownSource     = "unknown_source"
	KindUnknownConnection = "unknown_connection"
	KindNeedsSignIn       = "needs_sign_in"
	// KindArguments: the hub did not send the call, its arguments being
	// none the tool can take as given (an OpenAPI operation's request
	// cannot be made of them).
	KindArguments = "arguments"
	// KindTooLarge: the server's answer to the call was over the most one
	// message may hold (maxMessageBytes); asking the same again fails the
	// same way.
	KindTooLarge = "too_large"
)

// Error is a failure to reach or use an upstream. The execute path
// maps Kind to a ToolError code. Its message never holds a secret value.
type Error struct {
	Source string
	Conn   string // the connection used; "" when the source has none
	Kind   string // one of the UpstreamKind constants
	// Retryable reports whether the same call may succeed if repeated
	// (a timeout, a server that died or is restarting).
	Retryable bool
	// Sent reports that the request left the hub and no answer came back
	// (a timeout, a connection that broke in flight, an answer that could
	// not be read): the server may have acted on it.
	Sent bool
	// Secret names the missing secret (Kind missing_secret).
	Secret string
	// Cause is, for a call refused in the back-off window after a failure,
	// that failure.
	Cause *Error
	// Status is the upstream's HTTP status when an HTTP source answered the
	// call with an error status, else the JSON-RPC error code when the
	// upstream answered with one; 0 when neither.
	Status int
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source %q", e.Source)
	if e.Conn != "" {
		fmt.Fprintf(&b, " (connection %q)", e.Conn)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(strings.ReplaceAll(e.Kind, "_", " "))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Reason is the error without the source's name: what went wrong, and the
// connection when one was used.
func (e *Error) Reason() string {
	msg := e.Kind
	if e.Err != nil {
		msg = e.Err.Error()
	} else {
		msg = strings.ReplaceAll(msg, "_", " ")
	}
	if e.Conn != "" {
		return fmt.Sprintf("connection %q: %s", e.Conn, msg)
	}
	return msg
}

// Hint tells the person or the model what to do about the error.
func (e *Error) Hint() string {
	switch e.Kind {
	case KindTimeout:
		return "The tool's server did not answer in time. Retry, or ask for less at once."
	case KindUnavailable:
		if e.Retryable {
			return "The tool's server is not reachable right now. Retry in a moment; tell the user if it persists."
		}
		return "The tool's server cannot be used as configured; tell the user (`capabilities hub status` shows why)."
	case KindProtocol:
		if e.Retryable {
			return "The API is busy or failing right now; retry in a moment, and tell the user if it persists."
		}
		return "The tool's server rejected the request. Check the arguments against describe."
	case KindArguments:
		return "The call was not sent. Fix the named argument; describe the tool to see its exact type."
	case KindTooLarge:
		return "The tool's answer is too large for one message. Ask for less at once: a page, a filter, a range, a smaller file."
	case KindMissingSecret:
		conn := e.Conn
		if conn == "" {
			conn = "NAME"
		}
		return fmt.Sprintf("The connection's secret %s is not in the keychain; the user can store it with `capabilities connection add %s %s`. Never ask for it in chat.", e.Secret, e.Source, conn)
	case KindNeedsSignIn:
		return oauth.SignInHint(e.Source, e.Conn)
	case KindUnknownSource:
		return "Search for the tool again; its source is no longer configured."
	case KindUnknownConnection:
		return "Use a connection listed by search, or omit { connection } to use the default one."
	}
	return ""
}

// Upstreams owns the hub's sessions with its upstream MCP servers.
//
// All methods are safe for concurrent use. Sessions start in goroutines
// owned by Upstreams, so a caller whose context ends stops waiting without
// aborting a start other callers share. Callbacks (OnState, OnToolsChanged)
// run one at a time, in order, on a goroutine of their own; they may call
// back into Upstreams. Close stops every goroutine and child process.
type Upstreams struct {
	opts   Options
	log    *slog.Logger
	ctx    context.Context // cancelled by Close; parent of every start
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine Upstreams starts
	now    func() time.Time

	events upstreamEvents

	mu     sync.Mutex
	cfg    *config.Config
	slots  map[ConnKey]*upstreamSlot
	states map[string]SourceState
	hooks  []func(source string) // internal list_changed listeners (the catalog)
	// listed is the fingerprint of the tools ListTools last returned, by
	// the session it listed them through (a source's default connection):
	// the definitions the catalog, and so the person's consent, knows.
	listed map[ConnKey]string
	closed bool
}

// upstreamSlot is the lasting record of one (source, connection): its
// current session and its failure history, which outlives sessions.
type upstreamSlot struct {
	cur      *upstreamSession
	failures int       // consecutive failures
	retryAt  time.Time // no start before this
	lastErr  *Error
	// stderr is the last session's stderr, kept after it ended so the
	// window can show why it stopped.
	stderr *upstreamStderr
}

// upstreamSession is one MCP client session. Fields below mu are guarded by
// Upstreams.mu; the rest are set before the session is published.
type upstreamSession struct {
	key    ConnKey
	def    *config.Source
	ready  chan struct{} // closed when the start finished, either way
	stderr *upstreamStderr
	// cancelStart aborts the start; the start goroutine then cleans up.
	cancelStart context.CancelFunc

	status   SourceStateKind // SourceStarting, SourceUp or SourceDown
	cs       *mcp.ClientSession
	cmd      *exec.Cmd
	httpTr   *http.Transport
	err      *Error // why it is down
	inflight int
	lastUsed time.Time
	ended    bool // closed by us or found dead; cleanup done or under way
	secrets  []string
	// tools is the fingerprint of the tools this session's server listed
	// when it started, or since through ListTools; "" when not known (the
	// first session, listed by the catalog itself). A call is sent only
	// while it is the source's listed one.
	tools string
	// relist is set once this session asked the catalog to list again.
	relist bool
}

// New returns an Upstreams with no config; call SetConfig.
func New(opts Options) *Upstreams {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.RestartBackoff <= 0 {
		opts.RestartBackoff = DefaultRestartBackoff
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &Upstreams{
		opts:   opts,
		log:    opts.Logger,
		ctx:    ctx,
		cancel: cancel,
		now:    time.Now,
		cfg:    &config.Config{Sources: map[string]*config.Source{}},
		slots:  map[ConnKey]*upstreamSlot{},
		states: map[string]SourceState{},
	}
	u.events.wake = make(chan struct{}, 1)
	u.wg.Add(2)
	go func() { defer u.wg.Done(); u.events.run(ctx) }()
	go func() { defer u.wg.Done(); u.reap(ctx) }()
	return u
}

// SetConfig installs a new config. Sessions of sources that were removed,
// disabled or whose definition changed are closed (in the background; calls
// in flight on them finish first), and their failure history is forgotten.
// Safe to call at any time.
func (u *Upstreams) SetConfig(cfg *config.Config) {
	if cfg == nil {
		cfg = &config.Config{Sources: map[string]*config.Source{}}
	}
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return
	}
	old := u.cfg
	u.cfg = cfg
	var stale []*upstreamSession
	for k, slot := range u.slots {
		nd := cfg.Sources[k.Source]
		if nd != nil && !nd.Disabled && SameSource(old.Sources[k.Source], nd) {
			continue
		}
		if s := u.endLocked(slot); s != nil {
			stale = append(stale, s)
		}
		delete(u.slots, k)
	}
	u.wg.Add(len(stale))
	changed := map[string]bool{}
	for name := range old.Sources {
		changed[name] = true
	}
	for name := range cfg.Sources {
		changed[name] = true
	}
	if b := u.opts.OpenAPI; b != nil {
		b.SetConfig(cfg)
	}
	for name := range changed {
		u.updateStateLocked(name)
	}
	u.mu.Unlock()
	for _, s := range stale {
		go func() {
			defer u.wg.Done()
			u.shutdown(s, "config changed")
		}()
	}
}

// Restart ends every session of source (in the background; calls in
// flight on them finish first) and forgets its failure history, so the
// next use starts it again at once. Safe to call at any time.
func (u *Upstreams) Restart(source string) {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return
	}
	var stale []*upstreamSession
	for k, slot := range u.slots {
		if k.Source != source {
			continue
		}
		if s := u.endLocked(slot); s != nil {
			stale = append(stale, s)
		}
		delete(u.slots, k)
	}
	u.wg.Add(len(stale))
	u.updateStateLocked(source)
	u.mu.Unlock()
	for _, s := range stale {
		go func() {
			defer u.wg.Done()
			u.shutdown(s, "restarted by the person")
		}()
	}
}

// endLocked marks the current session of slot ended and returns it when it
// is up and needs shutting down. A session still starting is cancelled
// instead; its start goroutine cleans up.
func (u *Upstreams) endLocked(slot *upstreamSlot) *upstreamSession {
	s := slot.cur
	if s == nil || s.ended {
		return nil
	}
	s.ended = true
	if s.status == SourceStarting {
		s.cancelStart()
		return nil
	}
	return s
}

// SameSource reports whether two source definitions start the same session:
// a source for which it is false is another server, which may list other
// tools.
func SameSource(a, b *config.Source) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// ListTimeout is the longest one listing of a source may take: starting its
// session, then a complete tools/list.
func (u *Upstreams) ListTimeout() time.Duration { return u.opts.StartTimeout + u.opts.CallTimeout }

// Call calls tool name (the upstream MCP name) on source with connection
// conn ("" means the source's default connection), with args as the JSON
// object of arguments (empty means none).
//
// The session of (source, conn) starts on first use. A session that died
// restarts on the next call unless that falls within its back-off window,
// in which case Call returns a retryable unavailable error at once. The call
// is bounded by CallTimeout and ctx. A tool that reports failure
// (IsError) is a result, not an error. Errors are *Error, except
// when ctx is cancelled: then the error wraps context.Canceled.
//
// Safe for concurrent use; calls on one session run concurrently.
func (u *Upstreams) Call(ctx context.Context, source, conn, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if b, ok := u.backendOf(source); ok {
		if b == nil {
			return nil, unserved(source, conn)
		}
		return b.Call(ctx, source, conn, name, args, nil)
	}
	return u.callMCP(ctx, source, conn, name, args)
}

// CallListed is Call for a tool as the catalog lists it: an OpenAPI
// operation is sent only while its request is still req, the one its
// definition holds (nil, for a definition without one, is never). An MCP
// tool is called as Call does.
func (u *Upstreams) CallListed(ctx context.Context, source, conn, name string, args json.RawMessage, req *RESTRequest) (*mcp.CallToolResult, error) {
	if b, ok := u.backendOf(source); ok {
		if b == nil {
			return nil, unserved(source, conn)
		}
		if req == nil {
			req = &RESTRequest{}
		}
		return b.Call(ctx, source, conn, name, args, req)
	}
	return u.callMCP(ctx, source, conn, name, args)
}

// backendOf returns the Backend of source and true when its config makes
// it a source of a Backend (it says "openapi"); the Backend is nil when
// Upstreams has none. It returns false for an MCP server, and for a
// source not in the config (acquire says so).
func (u *Upstreams) backendOf(source string) (Backend, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	def := u.cfg.Sources[source]
	if def == nil || def.OpenAPI == "" {
		return nil, false
	}
	return u.opts.OpenAPI, true
}

// errUnserved is why a source of a Backend is unavailable when Upstreams
// has none.
var errUnserved = errors.New("OpenAPI sources are not served here")

func unserved(source, conn string) error {
	return &Error{Source: source, Conn: conn, Kind: KindUnavailable, Err: errUnserved}
}

func (u *Upstreams) callMCP(ctx context.Context, source, conn, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var arguments any
	if len(bytes.TrimSpace(args)) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			return nil, &Error{Source: source, Conn: conn, Kind: KindProtocol,
				Err: fmt.Errorf("calling %s: arguments must be a JSON object", name)}
		}
		arguments = json.RawMessage(args)
	}
	s, err := u.acquire(ctx, source, conn)
	if err != nil {
		return nil, err
	}
	if err := u.changedSince(s); err != nil {
		u.release(s, nil)
		return nil, err
	}
	callCtx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	exact := &exactResult{}
	status := &httpStatus{}
	reqCtx := context.WithValue(withExactResult(callCtx, exact), httpStatusKey{}, status)
	returned := u.watchStuck(reqCtx, s)
	res, err := s.cs.CallTool(reqCtx, &mcp.CallToolParams{Name: name, Arguments: arguments})
	returned()
	exact.done()
	err = u.classify(ctx, callCtx, s, "calling "+name, err)
	var ue *Error
	if code := status.get(); code != 0 && errors.As(err, &ue) {
		ue.Status = code // the HTTP status over the JSON-RPC code it may carry
		// A server too busy for the request says it did not act on it.
		ue.Sent = ue.Sent && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable
	}
	u.release(s, err)
	if err != nil {
		return nil, err
	}
	// The structured content as the server wrote it, numbers exact, rather
	// than as the client decoded it.
	if res.StructuredContent != nil {
		if sc := exact.structured(); sc != nil {
			res.StructuredContent = sc
		}
	}
	return res, nil
}

// ListTools returns the tools of source (every page), through its default
// connection, within the config's config.CatalogLimits. It starts the session like
// Call does, and is bounded by CallTimeout and ctx. A listing served in part
// (a bound reached, definitions too large skipped) returns the tools kept
// with a *ListingLimitError. Safe for concurrent use.
func (u *Upstreams) ListTools(ctx context.Context, source string) ([]*mcp.Tool, error) {
	if b, ok := u.backendOf(source); ok {
		if b == nil {
			return nil, unserved(source, "")
		}
		return b.ListTools(ctx, source)
	}
	s, err := u.acquire(ctx, source, "")
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	lim := u.cfg.Catalog
	u.mu.Unlock()
	listCtx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	tools, err := ListBounded(listCtx, source, lim, listExact(s.cs))
	var partial *ListingLimitError
	if errors.As(err, &partial) {
		err = nil
	}
	err = u.classify(ctx, listCtx, s, "listing tools", err)
	u.release(s, err)
	if err != nil {
		return nil, err
	}
	tools = u.opts.Secrets.ScrubTools(tools)
	fp := toolsFingerprint(tools)
	u.mu.Lock()
	if u.listed == nil {
		u.listed = map[ConnKey]string{}
	}
	u.listed[s.key] = fp
	s.tools = fp
	u.mu.Unlock()
	if partial != nil {
		return tools, partial
	}
	return tools, nil
}

// toolsFingerprint identifies a listing: every definition as listed, its
// schemas' members in key order, whether a session's transport kept them
// as written (listExact) or they were decoded.
func toolsFingerprint(tools []*mcp.Tool) string {
	decoded := func(schema any) any {
		var v any
		if raw, ok := schema.(json.RawMessage); ok && json.Unmarshal(raw, &v) == nil {
			return v
		}
		return schema
	}
	sorted := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		c := *t
		c.InputSchema, c.OutputSchema = decoded(t.InputSchema), decoded(t.OutputSchema)
		sorted[i] = &c
	}
	b, err := json.Marshal(sorted)
	if err != nil {
		return "unlistable"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// listedAgain lists the tools of a session that starts after the catalog
// listed them through an earlier session of the same connection, so that a
// server whose definitions changed across a restart is not called on the
// consent given to the old ones: its fingerprint is the session's tools.
func (u *Upstreams) listedAgain(ctx context.Context, s *upstreamSession, cs *mcp.ClientSession) {
	u.mu.Lock()
	_, known := u.listed[s.key]
	lim := u.cfg.Catalog
	u.mu.Unlock()
	if !known {
		return
	}
	listCtx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	tools, err := ListBounded(listCtx, s.key.Source, lim, listExact(cs))
	var partial *ListingLimitError
	if err != nil && !errors.As(err, &partial) {
		s.tools = "unlisted: " + err.Error()
		return
	}
	s.tools = toolsFingerprint(u.opts.Secrets.ScrubTools(tools))
}

// changedSince refuses a call on session s when its server's tools are not
// the ones the catalog listed, and asks the catalog (once per session) to
// list them again: the call can be made again once they are, and the
// gate then sees the new definitions (a changed one asks).
func (u *Upstreams) changedSince(s *upstreamSession) error {
	u.mu.Lock()
	listed, known := u.listed[s.key]
	stale := known && s.tools != "" && s.tools != listed
	first := stale && !s.relist
	if first {
		s.relist = true
	}
	u.mu.Unlock()
	if !stale {
		return nil
	}
	if first {
		u.log.Warn("upstream tools differ from the listed ones; listing them again", "source", s.key.Source, "connection", s.key.Conn)
		u.ToolsChanged(s.key.Source)
	}
	return &Error{Source: s.key.Source, Conn: s.key.Conn, Kind: KindUnavailable, Retryable: true,
		Err: errors.New("its server restarted and now lists other tool definitions than the hub knows; the hub is listing them again, and a changed tool asks the user before it runs: call again")}
}

// State returns the state of every configured source. Safe for concurrent
// use.
func (u *Upstreams) State() map[string]SourceState {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[string]SourceState, len(u.cfg.Sources))
	for name := range u.cfg.Sources {
		out[name] = u.stateLocked(name)
	}
	return out
}

// StderrTail returns the last lines (at most upstreamStderrTail) a stdio
// source's latest session wrote to stderr, scrubbed of its secrets: its
// default connection's, else any connection's; nil when none wrote any.
// Safe for concurrent use.
func (u *Upstreams) StderrTail(source string) []string {
	u.mu.Lock()
	var w *upstreamStderr
	def := u.cfg.Sources[source]
	for k, slot := range u.slots {
		if k.Source != source || slot.stderr == nil {
			continue
		}
		if w == nil || def == nil || k.Conn == def.DefaultConnection() {
			w = slot.stderr
		}
	}
	u.mu.Unlock()
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.lines)
}

// Close closes every session, kills the children's process groups, closes
// the OpenAPI Backend, stops every goroutine Upstreams started and waits
// for them. Calls in flight fail. Later calls fail as unavailable. Close is
// idempotent and returns the Backend's error.
func (u *Upstreams) Close() error {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil
	}
	u.closed = true
	var open []*upstreamSession
	for k, slot := range u.slots {
		if s := u.endLocked(slot); s != nil {
			open = append(open, s)
		}
		delete(u.slots, k)
	}
	u.mu.Unlock()
	var err error
	if b := u.opts.OpenAPI; b != nil {
		err = b.Close()
	}
	var wg sync.WaitGroup
	for _, s := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.shutdown(s, "hub closing")
		}()
	}
	wg.Wait()
	u.cancel()
	u.wg.Wait()
	return err
}

// OnToolsChanged registers fn, called with a source's name when its tools
// changed (the catalog's list_changed listener). fn runs on the callback
// goroutine and must not block.
func (u *Upstreams) OnToolsChanged(fn func(source string)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.hooks = append(u.hooks, fn)
}

// acquire returns an up session of (source, conn) with its in-flight count
// raised; release lowers it.
func (u *Upstreams) acquire(ctx context.Context, source, conn string) (*upstreamSession, error) {
	u.mu.Lock()
	for {
		if u.closed {
			u.mu.Unlock()
			return nil, &Error{Source: source, Conn: conn, Kind: KindUnavailable, Err: errors.New("the hub is shutting down")}
		}
		def := u.cfg.Sources[source]
		if def == nil {
			u.mu.Unlock()
			return nil, &Error{Source: source, Conn: conn, Kind: KindUnknownSource, Err: errors.New("no such source in the config")}
		}
		if def.Disabled {
			u.mu.Unlock()
			return nil, &Error{Source: source, Conn: conn, Kind: KindUnavailable, Err: errors.New("the source is disabled in the config")}
		}
		if def.OpenAPI != "" {
			u.mu.Unlock()
			return nil, &Error{Source: source, Conn: conn, Kind: KindUnavailable, Err: errors.New("an OpenAPI source has no MCP session")}
		}
		if conn == "" {
			conn = def.DefaultConnection()
			if conn == "" && len(def.Connections) > 0 {
				u.mu.Unlock()
				return nil, &Error{Source: source, Kind: KindUnknownConnection,
					Err: fmt.Errorf("no default connection; pick one of %s", strings.Join(def.ConnectionNames(), ", "))}
			}
		} else if def.Connections[conn] == nil {
			u.mu.Unlock()
			names := def.ConnectionNames()
			avail := "it has none"
			if len(names) > 0 {
				avail = "connections: " + strings.Join(names, ", ")
			}
			return nil, &Error{Source: source, Conn: conn, Kind: KindUnknownConnection,
				Err: fmt.Errorf("no connection %q (%s)", conn, avail)}
		}
		k := ConnKey{Source: source, Conn: conn}
		slot := u.slots[k]
		if slot == nil {
			slot = &upstreamSlot{}
			u.slots[k] = slot
		}
		s := slot.cur
		switch {
		case s != nil && s.status == SourceUp:
			s.inflight++
			s.lastUsed = u.now()
			u.mu.Unlock()
			return s, nil
		case s != nil && s.status == SourceStarting:
			u.mu.Unlock()
			select {
			case <-s.ready:
			case <-ctx.Done():
				return nil, ContextError(ctx, source, conn, "waiting for the server to start")
			}
			u.mu.Lock()
			if s.status == SourceDown && slot.cur == s && s.err != nil {
				err := s.err
				u.mu.Unlock()
				return nil, err
			}
			continue
		}
		// A connection waiting for a sign-in is tried again at once: the
		// person may have signed in meanwhile, and trying reads only the
		// keychain until they have.
		if now := u.now(); s != nil && now.Before(slot.retryAt) && slot.lastErr.Kind != KindNeedsSignIn {
			wait := slot.retryAt.Sub(now).Round(time.Millisecond)
			if wait >= time.Second {
				wait = wait.Round(time.Second)
			}
			err := &Error{Source: source, Conn: conn, Kind: KindUnavailable, Retryable: true, Cause: slot.lastErr,
				Err: fmt.Errorf("restarting in %v after a failure: %v", wait, slot.lastErr.Err)}
			u.mu.Unlock()
			return nil, err
		}
		startCtx, cancel := context.WithTimeout(u.ctx, u.opts.StartTimeout)
		s = &upstreamSession{key: k, def: def, ready: make(chan struct{}), status: SourceStarting, cancelStart: cancel}
		s.stderr = &upstreamStderr{log: u.log.With("source", source, "connection", conn)}
		slot.cur = s
		slot.stderr = s.stderr
		u.updateStateLocked(source)
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			defer cancel()
			u.start(startCtx, s)
		}()
	}
}

// release ends one use of s. A success clears the failure history.
func (u *Upstreams) release(s *upstreamSession, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	s.inflight--
	s.lastUsed = u.now()
	if err == nil {
		if slot := u.slots[s.key]; slot != nil && slot.cur == s {
			slot.failures = 0
		}
	}
}

// start connects s and publishes the outcome. It runs on its own goroutine.
func (u *Upstreams) start(ctx context.Context, s *upstreamSession) {
	cs, err := u.connect(ctx, s)
	var ue *Error
	if err != nil {
		ue = u.startError(ctx, s, err)
	} else {
		u.listedAgain(ctx, s, cs)
	}
	u.mu.Lock()
	slot := u.slots[s.key]
	current := slot != nil && slot.cur == s && !s.ended && !u.closed
	if err == nil && current {
		s.cs = cs
		s.status = SourceUp
		s.lastUsed = u.now()
		u.updateStateLocked(s.key.Source)
		close(s.ready)
		u.mu.Unlock()
		u.log.Info("upstream session up", "source", s.key.Source, "connection", s.key.Conn)
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			werr := cs.Wait()
			u.died(s, werr)
		}()
		return
	}
	if err == nil {
		// The config changed or the hub closed while this session started.
		s.cs = cs
		ue = &Error{Source: s.key.Source, Conn: s.key.Conn, Kind: KindUnavailable, Retryable: true,
			Err: errors.New("the session was closed while starting")}
	}
	s.status = SourceDown
	s.err = ue
	s.ended = true
	if current {
		// Missing secrets and bad definitions are the person's to fix; they
		// do not count against the server.
		if ue.Retryable {
			u.failLocked(slot, ue)
		} else {
			slot.lastErr = ue
		}
		u.updateStateLocked(s.key.Source)
	}
	close(s.ready)
	u.mu.Unlock()
	u.log.Warn("upstream session failed to start", "source", s.key.Source, "connection", s.key.Conn, "error", ue.Error())
	u.cleanup(s)
}

// failLocked records one failure of slot and opens its back-off window.
func (u *Upstreams) failLocked(slot *upstreamSlot, ue *Error) {
	slot.failures++
	d := u.opts.RestartBackoff
	for i := 1; i < slot.failures && d < maxRestartBackoff; i++ {
		d *= 2
	}
	slot.retryAt = u.now().Add(min(d, maxRestartBackoff))
	slot.lastErr = ue
}

// connect expands the connection's secrets and runs the MCP handshake.
func (u *Upstreams) connect(ctx context.Context, s *upstreamSession) (*mcp.ClientSession, error) {
	source, conn := s.key.Source, s.key.Conn
	var values []string
	x, err := s.def.Expand(conn, func(name string) (string, error) {
		if u.opts.Keychain == nil {
			return "", &Error{Source: source, Conn: conn, Kind: KindMissingSecret, Secret: name,
				Err: fmt.Errorf("secret %q is needed but no keychain is available", name)}
		}
		v, err := u.opts.Keychain.Get(config.SecretKey(source, conn, name))
		switch {
		case errors.Is(err, keychain.ErrNotFound):
			return "", &Error{Source: source, Conn: conn, Kind: KindMissingSecret, Secret: name,
				Err: fmt.Errorf("secret %q is not in the keychain", name)}
		case err != nil:
			return "", &Error{Source: source, Conn: conn, Kind: KindUnavailable,
				Err: fmt.Errorf("reading secret %q: %w", name, err)}
		}
		if v != "" {
			values = append(append(values, v), secrets.URLForms(v)...)
		}
		return v, nil
	})
	if err != nil {
		var ue *Error
		if errors.As(err, &ue) {
			return nil, ue
		}
		return nil, err
	}
	// Longest first, so a secret that contains another is scrubbed whole.
	register := func(extra []string) {
		all := append(slices.Clone(values), extra...)
		sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
		u.mu.Lock()
		s.secrets = all
		u.mu.Unlock()
		s.stderr.setSecrets(all)
		u.opts.Secrets.Set(secrets.ConnectionOwner(source, conn), all...)
	}
	register(nil)

	var transport mcp.Transport
	// Credentials go over plain http only to this machine, unless the
	// source allows it.
	insecure := ""
	if s.def.URL != "" {
		insecure = secrets.InsecureHTTP(s.def.URL, s.def.AllowInsecureHTTP)
	}
	env, headers, query := x.Env, x.Headers, x.Query
	urlSecret := x.URL != s.def.URL // the URL references a secret
	if insecure != "" && (len(headers)+len(query) > 0 || urlSecret || s.def.IsOAuth(conn)) {
		return nil, &Error{Source: source, Conn: conn, Kind: KindUnavailable,
			Err: fmt.Errorf("the hub did not connect with the connection's credentials: %s", insecure)}
	}
	if s.def.URL != "" {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// The transport serves this one server, and a run has up to
		// MaxConcurrent calls in flight (more with several runs). The
		// default of 2 idle connections per host would close the others
		// after each answer and dial again for the next call.
		tr.MaxIdleConnsPerHost = tr.MaxIdleConns
		u.mu.Lock()
		s.httpTr = tr
		u.mu.Unlock()
		// Neither client follows a redirect to another origin: the
		// connection's headers, its bearer token and the request body stay
		// with the server they were given to.
		st := &mcp.StreamableClientTransport{
			Endpoint:   x.URL,
			HTTPClient: &http.Client{Transport: &upstreamHeaders{base: tr, headers: headers, query: query}, CheckRedirect: secrets.SameOriginRedirect},
		}
		// A URL that holds a secret is told to no authorization server.
		if oauth.Applies(headers) && u.opts.Keychain != nil && insecure == "" && !urlSecret {
			oc, err := oauth.NewConn(source, conn, u.opts.Keychain, &http.Client{Transport: tr, CheckRedirect: secrets.SameOriginRedirect}, register)
			var sie *oauth.SignInError
			switch {
			case errors.As(err, &sie):
				return nil, &Error{Source: source, Conn: conn, Kind: KindNeedsSignIn, Err: sie}
			case err != nil && s.def.IsOAuth(conn):
				return nil, &Error{Source: source, Conn: conn, Kind: KindUnavailable, Err: fmt.Errorf("reading the sign-in: %w", err)}
			case err == nil && oc.BoundElsewhere(s.def) != "":
				// Its tokens are for another server: they are not sent here.
				return nil, &Error{Source: source, Conn: conn, Kind: KindNeedsSignIn,
					Err: &oauth.SignInError{Source: source, Conn: conn, Reason: oc.BoundElsewhere(s.def)}}
			case err == nil:
				st.OAuthHandler = oc
			}
		}
		transport = st
	} else {
		cmd := exec.Command(s.def.Command, s.def.Args...)
		cmd.Env = upstreamEnv(runtime.GOOS, u.opts.Env, env)
		cmd.Dir = s.def.Cwd
		cmd.Stderr = s.stderr
		cmd.WaitDelay = upstreamTerminate
		proc.NewGroup(cmd)
		u.mu.Lock()
		s.cmd = cmd
		u.mu.Unlock()
		transport = exactTransport{&mcp.CommandTransport{Command: cmd, TerminateDuration: upstreamTerminate}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "capabilities", Version: u.opts.Version}, &mcp.ClientOptions{
		Logger:       u.log.With("source", source, "connection", conn),
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			u.ToolsChanged(source)
		},
	})
	addSkillsClientMethods(client)
	return client.Connect(ctx, transport, nil)
}

// errStoppedReading is why a session watchStuck ended went down.
var errStoppedReading = errors.New("the server stopped reading what the hub sent, and the hub stopped it")

// StuckGrace is how long a call of a stdio session may go on after its
// context ended before the hub takes it that the server stopped reading
// (watchStuck); a caller's own bound on a call waits that long more.
const StuckGrace = 2 * time.Second

// watchStuck stops the server of stdio session s when a call on it has
// not returned StuckGrace after ctx ended: a server that stops reading its
// input (its one thread stuck in a tool) leaves the call's write blocked
// in a full pipe, where no context reaches, and with it the session and
// its Close. Stopping the server ends the write. The caller calls the
// returned func once the call returned.
func (u *Upstreams) watchStuck(ctx context.Context, s *upstreamSession) (returned func()) {
	cmd := s.cmd // set before the session was up, which acquire saw under u.mu
	if cmd == nil {
		return func() {} // over HTTP a request ends with its context
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(StuckGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			u.log.Warn("upstream server stopped reading what the hub sends; stopping it", "source", s.key.Source, "connection", s.key.Conn)
			if cmd.Process != nil {
				proc.KillGroup(cmd.Process.Pid)
			}
			u.died(s, errStoppedReading)
		}
	})
	return func() {
		close(done)
		stop()
	}
}

// startError turns a start failure into an *Error with secrets
// scrubbed and the child's last stderr lines attached.
func (u *Upstreams) startError(ctx context.Context, s *upstreamSession, err error) *Error {
	var ue *Error
	if errors.As(err, &ue) {
		return u.scrubError(s, ue)
	}
	ue = &Error{Source: s.key.Source, Conn: s.key.Conn, Kind: KindUnavailable, Retryable: true}
	var sie *oauth.SignInError
	if errors.As(err, &sie) {
		ue.Kind, ue.Retryable, ue.Err = KindNeedsSignIn, false, sie
		return u.scrubError(s, ue)
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ue.Kind = KindTimeout
		ue.Err = fmt.Errorf("the server did not finish starting within %v", u.opts.StartTimeout)
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		ue.Retryable = false
		ue.Err = fmt.Errorf("starting %s: %w", s.def.Command, err)
	case errors.Is(err, mcp.ErrConnectionClosed) && s.exited() != "":
		// The child ended by itself while starting: its exit status says
		// so the same way every time, where how the client saw the pipe
		// close (EOF, or a write's broken pipe) depends on which end
		// noticed first.
		ue.Err = fmt.Errorf("starting the server: it exited (%s)", s.exited())
	default:
		ue.Err = fmt.Errorf("starting the server: %w", err)
	}
	if tail := s.stderr.tail(); tail != "" {
		ue.Err = fmt.Errorf("%w; its last output: %s", ue.Err, tail)
	}
	return u.scrubError(s, ue)
}

// classify maps the error of a request on s to an *Error and ends
// s when the error means the session is gone. ctx is the caller's context,
// reqCtx the request's.
func (u *Upstreams) classify(ctx, reqCtx context.Context, s *upstreamSession, op string, err error) error {
	if err == nil {
		return nil
	}
	source, conn := s.key.Source, s.key.Conn
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("source %q: %s: %w", source, op, ctx.Err())
	}
	if reqCtx.Err() != nil {
		msg := fmt.Errorf("%s: no answer within %v", op, u.opts.CallTimeout)
		if ctx.Err() != nil {
			msg = fmt.Errorf("%s: no answer before the caller's deadline", op)
		}
		return &Error{Source: source, Conn: conn, Kind: KindTimeout, Retryable: true, Sent: true, Err: msg}
	}
	var sie *oauth.SignInError
	if errors.As(err, &sie) {
		u.died(s, sie)
		return &Error{Source: source, Conn: conn, Kind: KindNeedsSignIn, Err: sie}
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return u.scrubError(s, &Error{Source: source, Conn: conn, Kind: KindProtocol, Status: int(werr.Code),
			Err: fmt.Errorf("%s: %w", op, err)})
	}
	if answerTooLarge(err) {
		// The session is gone with it (a stdio stream is cut mid-message),
		// but the call is the cause: retried, it fails again.
		u.died(s, err)
		return &Error{Source: source, Conn: conn, Kind: KindTooLarge, Sent: true, Err: fmt.Errorf("%s: %w", op, errAnswerTooLarge)}
	}
	// Anything else is the transport: the session is gone or unusable.
	ue := &Error{Source: source, Conn: conn, Kind: KindUnavailable, Retryable: true, Sent: true,
		Err: fmt.Errorf("%s: the server connection failed: %w", op, err)}
	u.died(s, err)
	if tail := s.stderr.tail(); tail != "" {
		ue.Err = fmt.Errorf("%w; its last output: %s", ue.Err, tail)
	}
	return u.scrubError(s, ue)
}

// ContextError reports that the caller's context ended while waiting for
// op: a retryable timeout *Error when its deadline passed, else an error
// wrapping the context's.
func ContextError(ctx context.Context, source, conn, op string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Source: source, Conn: conn, Kind: KindTimeout, Retryable: true,
			Err: fmt.Errorf("%s: the caller's deadline passed", op)}
	}
	return fmt.Errorf("source %q: %s: %w", source, op, ctx.Err())
}

// died records that s ended without being asked to (the child exited, the
// connection broke): its slot enters the back-off window, and the session
// is cleaned up on a goroutine of its own. It ignores sessions already ended
// and is safe to call more than once.
func (u *Upstreams) died(s *upstreamSession, cause error) {
	u.mu.Lock()
	if s.ended || u.closed {
		u.mu.Unlock()
		return
	}
	s.ended = true
	s.status = SourceDown
	msg := "the server exited"
	if errors.Is(cause, errStoppedReading) {
		msg = cause.Error()
	} else if cause != nil && answerTooLarge(cause) {
		msg = "the hub ended the session: " + errAnswerTooLarge.Error()
	} else if s.cmd == nil && cause != nil {
		msg = secrets.ScrubValues(fmt.Sprintf("the server connection ended: %v", cause), s.secrets)
	}
	ue := &Error{Source: s.key.Source, Conn: s.key.Conn, Kind: KindUnavailable, Retryable: true, Err: errors.New(msg)}
	var sie *oauth.SignInError
	if errors.As(cause, &sie) {
		ue.Kind, ue.Retryable, ue.Err = KindNeedsSignIn, false, sie
	}
	s.err = ue
	if slot := u.slots[s.key]; slot != nil && slot.cur == s {
		u.failLocked(slot, ue)
		u.updateStateLocked(s.key.Source)
	}
	u.wg.Add(1)
	u.mu.Unlock()
	go func() {
		defer u.wg.Done()
		u.cleanup(s)
		// Once the child is reaped, its exit status and last words are known.
		var detail []string
		if st := s.exitStatus(); st != "" {
			detail = append(detail, st)
		}
		if tail := s.stderr.tail(); tail != "" {
			detail = append(detail, "its last output: "+tail)
		}
		u.mu.Lock()
		if len(detail) > 0 {
			full := *ue
			full.Err = errors.New(secrets.ScrubValues(msg+" ("+strings.Join(detail, "; ")+")", s.secrets))
			s.err = &full
			if slot := u.slots[s.key]; slot != nil && slot.lastErr == ue {
				slot.lastErr = &full
				u.updateStateLocked(s.key.Source)
			}
		}
		err := s.err
		u.mu.Unlock()
		u.log.Warn("upstream session died", "source", s.key.Source, "connection", s.key.Conn, "error", err.Error())
	}()
}

// shutdown closes s on purpose (idle, config change, Close).
func (u *Upstreams) shutdown(s *upstreamSession, why string) {
	u.log.Info("closing upstream session", "source", s.key.Source, "connection", s.key.Conn, "reason", why)
	u.cleanup(s)
}

// cleanup closes s's client session (for stdio, that closes the child's
// stdin and reaps it, signalling it if it lingers), kills what is left of
// its process group and logs its last stderr line. s must be ended first.
func (u *Upstreams) cleanup(s *upstreamSession) {
	u.mu.Lock()
	cs, cmd, tr := s.cs, s.cmd, s.httpTr
	u.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
	if cmd != nil && cmd.Process != nil {
		proc.KillGroup(cmd.Process.Pid)
	}
	if tr != nil {
		tr.CloseIdleConnections()
	}
	s.stderr.flush()
}

// exited is the exit status of s's child when it exited by itself (not
// by a signal), once the client that closed it reaped it; "" otherwise.
func (s *upstreamSession) exited() string {
	if st := s.exitStatus(); st != "" && s.cmd.ProcessState.Exited() {
		return st
	}
	return ""
}

// exitStatus describes how the stdio child ended, once it was reaped.
func (s *upstreamSession) exitStatus() string {
	if s.cmd == nil || s.cmd.ProcessState == nil {
		return ""
	}
	return s.cmd.ProcessState.String()
}

// reap closes sessions idle for IdleTimeout. It runs until ctx ends.
func (u *Upstreams) reap(ctx context.Context) {
	period := min(max(u.opts.IdleTimeout/4, 5*time.Millisecond), time.Minute)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var idle []*upstreamSession
		u.mu.Lock()
		now := u.now()
		for _, slot := range u.slots {
			s := slot.cur
			if s == nil || s.status != SourceUp || s.ended || s.inflight > 0 || now.Sub(s.lastUsed) < u.opts.IdleTimeout {
				continue
			}
			s.ended = true
			slot.cur = nil
			idle = append(idle, s)
			u.updateStateLocked(s.key.Source)
		}
		u.mu.Unlock()
		for _, s := range idle {
			u.shutdown(s, "idle")
		}
	}
}

// ToolsChanged queues the list_changed callbacks for source, as an MCP
// server's notifications/tools/list_changed does; a Backend's sources
// report a change through it. A source's callbacks queued and not yet
// begun are not queued again: a server that sends the notification in a
// loop while a callback is slow adds one entry to the queue, not one per
// message. Safe for concurrent use.
func (u *Upstreams) ToolsChanged(source string) {
	if !u.events.mark(source) {
		return
	}
	u.mu.Lock()
	hooks := append([]func(string){}, u.hooks...)
	u.mu.Unlock()
	if fn := u.opts.OnToolsChanged; fn != nil {
		hooks = append(hooks, fn)
	}
	u.events.push(func() {
		u.events.unmark(source)
		for _, fn := range hooks {
			fn(source)
		}
	})
}

// stateLocked computes the state of source from its slots.
func (u *Upstreams) stateLocked(source string) SourceState {
	prev := u.states[source]
	st := SourceState{State: SourceIdle, Since: prev.Since}
	def := u.cfg.Sources[source]
	if def != nil && def.OpenAPI != "" && !def.Disabled {
		if b := u.opts.OpenAPI; b != nil {
			st = b.State(source)
		} else {
			st.State, st.Err = SourceDown, errUnserved.Error()
		}
		st.Since = prev.Since
		if st.State != prev.State || st.Since.IsZero() {
			st.Since = u.now()
		}
		return st
	}
	var starting, down bool
	var lastErr *Error
	for k, slot := range u.slots {
		if k.Source != source {
			continue
		}
		if s := slot.cur; s != nil {
			switch s.status {
			case SourceUp:
				if !s.ended {
					st.Sessions++
				}
			case SourceStarting:
				starting = true
			case SourceDown:
				down = true
			}
		}
		if slot.lastErr != nil && (slot.cur == nil || slot.cur.status != SourceUp) {
			// The default connection's failure speaks for the source.
			if lastErr == nil || def == nil || k.Conn == def.DefaultConnection() {
				lastErr = slot.lastErr
			}
		}
	}
	switch {
	case def != nil && def.Disabled:
		st.State, st.Err = SourceDisabled, "disabled in the config"
	case st.Sessions > 0:
		st.State = SourceUp
	case starting:
		st.State = SourceStarting
	case down && lastErr != nil && lastErr.Kind == KindMissingSecret:
		st.State = SourceNeedsSecret
	case down && lastErr != nil && lastErr.Kind == KindNeedsSignIn:
		st.State = SourceNeedsSignIn
	case down:
		st.State = SourceDown
	}
	if lastErr != nil && st.State != SourceIdle && st.State != SourceDisabled {
		st.Err = lastErr.Reason()
		st.Retryable = lastErr.Retryable
	}
	if st.State != prev.State || st.Since.IsZero() {
		st.Since = u.now()
	}
	return st
}

// StateChanged recomputes the state of source and queues OnState when it
// changed; a Backend's sources report a change of their state through it.
// Safe for concurrent use.
func (u *Upstreams) StateChanged(source string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.updateStateLocked(source)
}

// NeedsSignIn reports whether the last session of the connection failed
// for want of a sign-in. Safe for concurrent use.
func (u *Upstreams) NeedsSignIn(source, conn string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if conn == "" {
		if def := u.cfg.Sources[source]; def != nil {
			conn = def.DefaultConnection()
		}
	}
	slot := u.slots[ConnKey{Source: source, Conn: conn}]
	return slot != nil && slot.lastErr != nil && slot.lastErr.Kind == KindNeedsSignIn
}

// updateStateLocked recomputes the state of source and queues OnState when
// it changed.
func (u *Upstreams) updateStateLocked(source string) {
	if _, ok := u.cfg.Sources[source]; !ok {
		if _, had := u.states[source]; had {
			delete(u.states, source)
		}
		return
	}
	prev, had := u.states[source]
	st := u.stateLocked(source)
	u.states[source] = st
	if had && prev.State == st.State && prev.Err == st.Err && prev.Sessions == st.Sessions {
		return
	}
	if fn := u.opts.OnState; fn != nil {
		u.events.push(func() { fn(source, st) })
	}
}

// scrubError removes s's secret values from ue's message.
func (u *Upstreams) scrubError(s *upstreamSession, ue *Error) *Error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.scrubErrorLocked(s, ue)
}

// scrubErrorLocked is scrubError with u.mu held. The message is also
// capped at maxUpstreamError bytes, after the scrub so
// no part of a secret is left at the cut: a server's error can be of any
// size (a 15 MB JSON-RPC error message), and it is logged, kept in the
// source's state and handed on.
func (u *Upstreams) scrubErrorLocked(s *upstreamSession, ue *Error) *Error {
	if ue.Err == nil {
		return ue
	}
	msg := ue.Err.Error()
	if clean := secrets.Cap(secrets.ScrubValues(msg, s.secrets), maxUpstreamError); clean != msg {
		out := *ue
		out.Err = errors.New(clean)
		return &out
	}
	return ue
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// InheritedEnv names the variables of the hub's environment a stdio
// upstream gets on goos: what any process needs to find programs, its home,
// its user, its locale and a temporary folder. It holds the list of the
// TypeScript SDK's stdio client (DEFAULT_INHERITED_ENV_VARS) and a few more.
func InheritedEnv(goos string) []string {
	if goos == "windows" {
		return []string{"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "SYSTEMDRIVE", "SYSTEMROOT",
			"TEMP", "TMP", "USERNAME", "USERPROFILE", "WINDIR"}
	}
	return []string{"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "USER"}
}

// upstreamEnv is the environment of a stdio upstream on goos: the variables
// of base (the hub's own environment) that InheritedEnv names, then the
// source's and connection's env over them. Nothing else of the hub's
// environment reaches an upstream. A value that starts with "()" (a shell
// function) is not inherited. On Windows names match in any case.
func upstreamEnv(goos string, base []string, env map[string]string) []string {
	keep := map[string]bool{}
	for _, k := range InheritedEnv(goos) {
		keep[k] = true
	}
	norm := func(k string) string {
		if goos == "windows" {
			return strings.ToUpper(k)
		}
		return k
	}
	set := map[string]bool{}
	for k := range env {
		set[norm(k)] = true
	}
	var out []string
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !keep[norm(k)] || set[norm(k)] || strings.HasPrefix(v, "()") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, envList(env)...)
}

// upstreamHeaders adds a connection's headers and query parameters to
// every request, and keeps the response bytes of calls that ask for their
// exact result.
type upstreamHeaders struct {
	base           http.RoundTripper
	headers, query map[string]string
}

func (h *upstreamHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers)+len(h.query) > 0 {
		// A RoundTripper must not modify the caller's request.
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
		if len(h.query) > 0 {
			// The URL's own parameters stay as written, but for one the
			// connection sets.
			set := url.Values{}
			for k, v := range h.query {
				set.Set(k, v)
			}
			var parts []string
			for _, p := range strings.Split(r.URL.RawQuery, "&") {
				name, err := url.QueryUnescape(strings.SplitN(p, "=", 2)[0])
				if p != "" && (err != nil || !set.Has(name)) {
					parts = append(parts, p)
				}
			}
			u := *r.URL
			u.RawQuery = strings.Join(append(parts, set.Encode()), "&")
			r.URL = &u
		}
	}
	resp, err := h.base.RoundTrip(r)
	if err == nil {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
			// The SDK reads a JSON answer, or an error status's body,
			// whole (it tells a stream as this does); its bound for one
			// message holds here too.
			resp.Body = &boundedBody{ReadCloser: resp.Body, left: maxMessageBytes}
		}
		keepExact(r, resp)
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			if st, ok := r.Context().Value(httpStatusKey{}).(*httpStatus); ok {
				st.set(resp.StatusCode)
			}
		}
	}
	return resp, err
}

// maxMessageBytes is the most one message from an upstream may hold: the
// SDK's bound for a line of a stdio session and an SSE event, and the
// hub's for the other answers of a server over HTTP.
const maxMessageBytes = mcp.DefaultMaxLineLength

// boundedBody ends a response body with an error once it has passed more
// than left bytes.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errAnswerTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, errAnswerTooLarge
	}
	return n, err
}

var errAnswerTooLarge = fmt.Errorf("the server's answer is over %s, the most one message may hold", config.HumanBytes(maxMessageBytes))

// sdkFrameTooLarge is the SDK's error, unexported, for a stdio line over
// its bound (maxMessageBytes): told by its text.
const sdkFrameTooLarge = "inbound JSON-RPC frame exceeded the configured maximum line length"

// answerTooLarge reports whether err is the end of an answer over
// maxMessageBytes: an HTTP body's (boundedBody) or a stdio line's.
func answerTooLarge(err error) bool {
	return errors.Is(err, errAnswerTooLarge) || strings.Contains(err.Error(), sdkFrameTooLarge)
}

// httpStatus records the error status an HTTP upstream answered one call
// with; the call's context carries it to upstreamHeaders.
type httpStatus struct {
	mu   sync.Mutex
	code int
}

type httpStatusKey struct{}

func (s *httpStatus) set(code int) {
	s.mu.Lock()
	s.code = code
	s.mu.Unlock()
}

func (s *httpStatus) get() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code
}

// upstreamStderr logs a child's stderr line by line, at debug level, with
// the session's secrets scrubbed, and keeps the last lines for errors.
// exec's copying goroutine calls Write; flush and tail may run on any
// goroutine.
type upstreamStderr struct {
	log *slog.Logger

	mu      sync.Mutex
	secrets []string
	longest int // the longest of secrets
	buf     []byte
	lines   []string
	// dropping: the line being written passed what is kept of it, which
	// was logged; the rest of it is dropped up to its newline.
	dropping bool
}

// setSecrets tells w the values to scrub; it is called before the child
// starts.
func (w *upstreamStderr) setSecrets(values []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.secrets = values
	for _, v := range values {
		w.longest = max(w.longest, len(v))
	}
}

// Write logs each line once its newline comes. A line longer than
// upstreamMaxLogLine is logged cut once it holds as many bytes more as
// the longest secret, so that a secret across the cut is scrubbed whole,
// and the rest of it is dropped.
func (w *upstreamStderr) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := upstreamMaxLogLine + w.longest - len(w.buf); !w.dropping && len(part) > room {
			w.emitLocked(append(w.buf, part[:room]...))
			w.buf, w.dropping = w.buf[:0], true
		} else if !w.dropping {
			w.buf = append(w.buf, part...)
		}
		if i < 0 {
			break
		}
		if !w.dropping {
			w.emitLocked(w.buf)
		}
		w.buf, w.dropping, p = w.buf[:0], false, p[i+1:]
	}
	return n, nil
}

func (w *upstreamStderr) emitLocked(line []byte) {
	// Scrubbed before it is cut, so that no part of a secret is left at
	// the cut.
	text := secrets.ScrubValues(strings.TrimRight(string(line), "\r"), w.secrets)
	if len(text) > upstreamMaxLogLine {
		text = secrets.Shorten(text, upstreamMaxLogLine) + "…"
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	w.log.Debug("upstream stderr", "line", text)
	w.lines = append(w.lines, text)
	if len(w.lines) > upstreamStderrTail {
		w.lines = w.lines[len(w.lines)-upstreamStderrTail:]
	}
}

// flush logs a last line that had no newline.
func (w *upstreamStderr) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 && !w.dropping {
		w.emitLocked(w.buf)
	}
	w.buf, w.dropping = nil, false
}

// tail returns the last stderr lines, joined, already scrubbed.
func (w *upstreamStderr) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, " | ")
}

// upstreamEvents runs callbacks one at a time, in order, off the caller's
// goroutine, so callbacks may call back into Upstreams.
type upstreamEvents struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{}
	// changed holds the sources whose list_changed callbacks are queued
	// and not yet begun.
	changed map[string]bool
}

// mark records that source's list_changed callbacks are queued; false
// when they already were and have not begun.
func (e *upstreamEvents) mark(source string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.changed[source] {
		return false
	}
	if e.changed == nil {
		e.changed = map[string]bool{}
	}
	e.changed[source] = true
	return true
}

// unmark records that source's list_changed callbacks have begun: a
// change from then on queues them again.
func (e *upstreamEvents) unmark(source string) {
	e.mu.Lock()
	delete(e.changed, source)
	e.mu.Unlock()
}

func (e *upstreamEvents) push(fn func()) {
	e.mu.Lock()
	e.queue = append(e.queue, fn)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// run delivers queued callbacks until ctx ends, then delivers what is left.
func (e *upstreamEvents) run(ctx context.Context) {
	for {
		e.mu.Lock()
		q := e.queue
		e.queue = nil
		e.mu.Unlock()
		for _, fn := range q {
			fn()
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-e.wake:
		case <-ctx.Done():
			e.mu.Lock()
			q := e.queue
			e.queue = nil
			e.mu.Unlock()
			for _, fn := range q {
				fn()
			}
			return
		}
	}
}
