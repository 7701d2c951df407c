package hub

// The local API.
//
// One hub serves each CAPABILITIES_HOME, on one unix socket, Paths.Socket().
// The socket is the permission boundary of the hub (as tailscale's local API
// is for tailscaled): whoever can speak on it can run the person's tools and
// decide approvals. Three walls stand in front of it:
//
//  1. the socket file has mode 0600 and is created 0600 (it is bound under a
//     temporary name, chmodded and only then renamed into place), and a home
//     folder the hub creates is 0700;
//  2. every accepted connection's peer uid is read from the kernel
//     (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS) and a connection from
//     another user is answered 403 and closed, for every request, reads
//     included;
//  3. a request with an Origin header, or with a Host other than the local
//     marker, is refused. A browser cannot open a unix socket, so this is
//     defence in depth against a forwarding proxy, not the main wall.
//
// On Windows the socket is an AF_UNIX socket (Windows 10 1803 and later
// support them through net.Listen("unix", ...)). Windows has no peer
// credentials for AF_UNIX, so there the boundary is the ACL of the home
// folder, which sits in the person's profile; a named pipe with an explicit
// DACL is the planned replacement.
//
// MCP travels on the same socket: GET /v1/mcp with "Connection: Upgrade" and
// "Upgrade: mcp-stdio" switches the connection to newline-delimited JSON-RPC,
// exactly what stdio carries, and each upgraded connection is one MCP session
// of the hub's server. The stdio shim (shim.go) is such a client.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrHubRunning reports that another hub holds the home. Errors matching it
// are *[HubRunningError], which names the pid and the socket.
var ErrHubRunning = errors.New("a hub already runs")

// ErrNoHub reports that no hub listens on the home's socket: the socket file
// is missing or nothing accepts connections on it.
var ErrNoHub = errors.New("no hub is running")

// HubRunningError is the error [Listen] returns when another hub holds the
// single-instance lock of the home. It matches [ErrHubRunning].
type HubRunningError struct {
	Home   string
	PID    int // 0 when the running hub's pid could not be read
	Socket string
}

func (e *HubRunningError) Error() string {
	pid := "unknown"
	if e.PID > 0 {
		pid = strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("a hub already runs for %s (pid %s, socket %s)", e.Home, pid, e.Socket)
}

// Is makes errors.Is(err, ErrHubRunning) hold.
func (e *HubRunningError) Is(target error) bool { return target == ErrHubRunning }

// apiHost is the Host every local API request carries. Anything else is
// refused: a request that names another host was not made for this socket.
const apiHost = "local-capabilities.sock"

// mcpUpgrade is the Upgrade token that switches a local API connection to
// newline-delimited JSON-RPC.
const mcpUpgrade = "mcp-stdio"

// mcpPath is the local API route for MCP sessions.
const mcpPath = "/v1/mcp"

// ServiceOptions configure [Listen].
type ServiceOptions struct {
	Paths Paths
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
	// MCPServer serves the MCP sessions of upgraded connections; every
	// connection is its own session of this one server. Nil refuses upgrades
	// with 503.
	MCPServer *mcp.Server
	// Handler serves the rest of the local API (routes such as /v1/status
	// and /v1/approve). It sees only requests that passed the peer, Host and
	// Origin checks. Nil answers 404 to everything but /v1/mcp.
	Handler http.Handler
}

// Service is the hub's local API on its unix socket.
//
// A Service owns the home's single-instance lock and the socket from
// [Listen] until [Service.Serve] returns or [Service.Close] is called. Its
// methods are safe for concurrent use.
type Service struct {
	opts   ServiceOptions
	log    *slog.Logger
	lock   *os.File
	ln     net.Listener
	socket string

	mu       sync.Mutex
	serving  bool
	closing  bool
	closed   bool
	sessions map[net.Conn]struct{} // upgraded MCP connections
	wg       sync.WaitGroup        // one per upgraded MCP connection
	requests inflight              // API requests (not MCP sessions) in progress
}

// inflight counts the requests in progress so that a shutdown waits for the
// last one to return before the hub closes what they use (the store). The
// HTTP server's Shutdown waits only for a grace period; its Close does not
// wait at all.
type inflight struct {
	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
}

// enter counts a request in; false once the server is shutting down.
func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return false
	}
	f.wg.Add(1)
	return true
}

func (f *inflight) leave() { f.wg.Done() }

// wait refuses new requests and waits for those in progress.
func (f *inflight) wait() {
	f.mu.Lock()
	f.closing = true
	f.mu.Unlock()
	f.wg.Wait()
}

// handler counts next's requests in f and answers 503 once f is closing.
func (f *inflight) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !f.enter() {
			w.Header().Set("Connection", "close")
			WriteAPIError(w, http.StatusServiceUnavailable, "the hub is stopping", "")
			return
		}
		defer f.leave()
		next.ServeHTTP(w, r)
	})
}

// Listen takes the single-instance lock of opts.Paths (an exclusive flock on
// Paths.Lock(), held for the life of the Service, with the holder's pid
// written in the file) and binds the socket.
//
// A second hub on the same home gets an error matching [ErrHubRunning] that
// names the pid and socket of the first. A socket file left behind by a hub
// that died is removed, but only after a connection attempt proves that no
// hub answers on it.
func Listen(opts ServiceOptions) (*Service, error) {
	if opts.Paths.Home == "" {
		return nil, errors.New("local api: no CAPABILITIES_HOME given")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	home, sock := opts.Paths.Home, opts.Paths.Socket()
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("local api: creating %s: %w", home, err)
	}
	lock, err := lockHome(opts.Paths.Lock())
	if errors.Is(err, errLocked) {
		return nil, &HubRunningError{Home: home, PID: readLockPID(opts.Paths.Lock()), Socket: sock}
	}
	if err != nil {
		return nil, fmt.Errorf("local api: locking %s: %w", opts.Paths.Lock(), err)
	}
	fail := func(err error) (*Service, error) {
		lock.Close() // releases the lock
		return nil, err
	}
	if err := writeLockPID(lock); err != nil {
		return fail(fmt.Errorf("local api: writing pid to %s: %w", opts.Paths.Lock(), err))
	}
	if err := removeStaleSocket(sock); err != nil {
		if errors.Is(err, ErrHubRunning) {
			return fail(&HubRunningError{Home: home, Socket: sock})
		}
		return fail(err)
	}
	ln, err := listenSocket(sock)
	if err != nil {
		return fail(fmt.Errorf("local api: listening on %s: %w", sock, err))
	}
	return &Service{
		opts:     opts,
		log:      logger,
		lock:     lock,
		ln:       ln,
		socket:   sock,
		sessions: make(map[net.Conn]struct{}),
	}, nil
}

// removeStaleSocket removes a socket file nobody answers on. It returns
// ErrHubRunning when something does answer: a hub that serves the socket
// without holding the lock (one whose lock file was deleted under it).
func removeStaleSocket(sock string) error {
	if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "unix", sock)
	if err == nil {
		c.Close()
		return ErrHubRunning
	}
	if !isNoListener(err) {
		return fmt.Errorf("local api: probing %s: %w", sock, err)
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("local api: removing stale socket %s: %w", sock, err)
	}
	return nil
}

func readLockPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}

func writeLockPID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// Addr is the path of the socket the Service listens on.
func (s *Service) Addr() string { return s.socket }

// Serve answers the local API until ctx is done or the listener fails.
// Then it stops accepting, ends every MCP session (closing its connection
// cancels the session's in-flight requests), waits for the handlers and the
// sessions to return, removes the socket and releases the lock.
//
// Serve runs once per Service; it returns nil after a shutdown caused by
// ctx, and the listener's error otherwise.
func (s *Service) Serve(ctx context.Context) error {
	s.mu.Lock()
	if s.serving || s.closed {
		s.mu.Unlock()
		return errors.New("local api: Serve called twice or after Close")
	}
	s.serving = true
	s.mu.Unlock()

	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, peerKey{}, checkPeer(c))
		},
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.log.Info("local api listening", "socket", s.socket)
	// Shutdown closes the listener and waits for plain requests; hijacked
	// MCP connections are ours to end.
	err := serveUntil(ctx, srv, s.ln)
	s.endSessions()
	s.wg.Wait()
	s.requests.wait()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("local api: %w", err)
	}
	s.log.Info("local api stopped", "socket", s.socket)
	return nil
}

// serveUntil serves ln with srv until ctx is done or serving fails, then
// shuts srv down, giving requests in progress 5 seconds. It returns nil
// after a shutdown caused by ctx, else the serving error.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	if serr := srv.Shutdown(sctx); serr != nil {
		srv.Close()
	}
	cancel()
	if err == nil {
		<-errc // http.ErrServerClosed
	}
	return err
}

// Close releases the socket and the lock. A Service that is serving is
// stopped by cancelling the context given to Serve instead; Close is for a
// Service that never served, and is idempotent.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	// The socket was renamed into place, so the listener does not unlink it;
	// the lock (still held here) proves the file is ours.
	if rerr := os.Remove(s.socket); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	if lerr := s.lock.Close(); lerr != nil && err == nil {
		err = lerr
	}
	return err
}

// endSessions closes every upgraded connection and refuses new ones.
func (s *Service) endSessions() {
	s.mu.Lock()
	s.closing = true
	conns := make([]net.Conn, 0, len(s.sessions))
	for c := range s.sessions {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

type peerKey struct{}

// handler is the local API: the permission checks, then /v1/mcp, then the
// caller's Handler.
func (s *Service) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err, _ := r.Context().Value(peerKey{}).(error); err != nil {
			// Every request of a foreign connection is refused, and the
			// connection with it.
			w.Header().Set("Connection", "close")
			s.log.Warn("local api: refused a connection", "error", err)
			WriteAPIError(w, http.StatusForbidden, err.Error(), "the hub serves only the user it runs as")
			return
		}
		if r.Host != apiHost {
			WriteAPIError(w, http.StatusForbidden, fmt.Sprintf("unexpected Host %q", r.Host), "use the capabilities CLI or hub.Dial")
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			WriteAPIError(w, http.StatusForbidden, fmt.Sprintf("requests from web origins are refused (Origin %q)", o), "")
			return
		}
		if r.URL.Path == mcpPath {
			s.serveMCP(w, r)
			return
		}
		if s.opts.Handler == nil {
			WriteAPIError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path, "")
			return
		}
		s.requests.handler(s.opts.Handler).ServeHTTP(w, r)
	})
}

// serveMCP upgrades the connection and serves one MCP session on it until
// the peer closes it or the service ends it. It runs on the HTTP server's
// goroutine for the connection, and is counted in s.wg.
func (s *Service) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		WriteAPIError(w, http.StatusMethodNotAllowed, "use GET with Upgrade: "+mcpUpgrade, "")
		return
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !strings.EqualFold(r.Header.Get("Upgrade"), mcpUpgrade) {
		w.Header().Set("Upgrade", mcpUpgrade)
		WriteAPIError(w, http.StatusUpgradeRequired, "this endpoint needs Connection: Upgrade and Upgrade: "+mcpUpgrade, "")
		return
	}
	if s.opts.MCPServer == nil {
		WriteAPIError(w, http.StatusServiceUnavailable, "this hub serves no MCP", "")
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		WriteAPIError(w, http.StatusInternalServerError, "connection cannot be upgraded", "")
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		WriteAPIError(w, http.StatusServiceUnavailable, "the hub is stopping", "")
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	conn, rw, err := hj.Hijack()
	if err != nil {
		s.log.Warn("local api: upgrading", "error", err)
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: "+mcpUpgrade+"\r\n\r\n"); err != nil {
		return
	}
	var rd io.Reader = conn
	if n := rw.Reader.Buffered(); n > 0 {
		// A client that wrote ahead of the 101 has bytes in the server's
		// buffer; they come first.
		b, _ := rw.Reader.Peek(n)
		rd = io.MultiReader(bytes.NewReader(bytes.Clone(b)), conn)
	}

	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.sessions[conn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.sessions, conn)
		s.mu.Unlock()
	}()

	ss, err := s.opts.MCPServer.Connect(context.WithoutCancel(r.Context()), &mcp.IOTransport{
		Reader: readCloser{rd, conn},
		Writer: conn,
	}, nil)
	if err != nil {
		s.log.Warn("local api: starting an MCP session", "error", err)
		return
	}
	s.log.Debug("mcp session started", "session", ss.ID())
	err = ss.Wait()
	s.log.Info("client disconnected", "client", sessionClient(ss), "session", ss.ID(), "error", err)
}

type readCloser struct {
	io.Reader
	io.Closer
}

func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// APIError is an error answer of the local API: its HTTP status and the
// decoded {"error": ..., "hint": ...} body.
type APIError struct {
	Status  int
	Message string
	Hint    string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = strings.ToLower(http.StatusText(e.Status))
	}
	if e.Hint != "" {
		return fmt.Sprintf("hub: %s (hint: %s)", msg, e.Hint)
	}
	return "hub: " + msg
}

type apiErrorBody struct {
	Error string `json:"error"`
	Hint  string `json:"hint,omitempty"`
}

// WriteAPIError writes the local API's error body, {"error": msg, "hint":
// hint}, with status. [Client.Do] decodes it into an *[APIError].
func WriteAPIError(w http.ResponseWriter, status int, msg, hint string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(apiErrorBody{Error: msg, Hint: hint})
}

// Client speaks to the local API of one home's hub. It is safe for
// concurrent use; Close releases its idle connections.
type Client struct {
	paths Paths
	http  *http.Client
}

// Dial returns a client for the hub of paths, after checking that one
// answers: when nothing listens on the socket the error matches [ErrNoHub].
func Dial(ctx context.Context, paths Paths) (*Client, error) {
	c := newClient(paths)
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	conn.Close()
	return c, nil
}

func newClient(paths Paths) *Client {
	c := &Client{paths: paths}
	// Each request dials: a connection kept idle outlives a hub that stops
	// or restarts, and a POST on it fails with "server closed idle
	// connection" instead of ErrNoHub or reaching the new hub. Dialing the
	// socket costs tens of microseconds; requests here are few.
	c.http = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return c.dial(ctx)
		},
		DisableKeepAlives: true,
	}}
	return c
}

// dial connects to the socket, mapping "nobody listens" to ErrNoHub.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	sock := c.paths.Socket()
	conn, err := (&net.Dialer{}).DialContext(ctx, "unix", sock)
	if err != nil {
		if isNoListener(err) {
			return nil, fmt.Errorf("%w for %s (socket %s)", ErrNoHub, c.paths.Home, sock)
		}
		return nil, fmt.Errorf("connecting to the hub at %s: %w", sock, err)
	}
	return conn, nil
}

// Close releases the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// Do sends one local API request: in (when non-nil) is sent as the JSON
// body, and a 2xx answer's JSON body is decoded into out (when non-nil). An
// error answer is returned as an *[APIError]; a hub that is not running as
// an error matching [ErrNoHub].
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+apiHost+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.Is(err, ErrNoHub) && errors.As(err, &ue) {
			return ue.Err // the dial error names the home and the socket
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeAPIError(resp)
	}
	if out == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}

func decodeAPIError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body apiErrorBody
	if json.Unmarshal(b, &body) == nil && body.Error != "" {
		return &APIError{Status: resp.StatusCode, Message: body.Error, Hint: body.Hint}
	}
	return &APIError{Status: resp.StatusCode, Message: strings.TrimSpace(string(b))}
}

// UpgradeMCP opens a new connection to the hub and switches it to MCP: the
// returned conn carries newline-delimited JSON-RPC, one MCP session, until
// either side closes it. ctx bounds the handshake only.
func (c *Client) UpgradeMCP(ctx context.Context) (net.Conn, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	req, _ := http.NewRequest(http.MethodGet, "http://"+apiHost+mcpPath, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", mcpUpgrade)
	br := bufio.NewReader(conn)
	err = req.Write(conn)
	var resp *http.Response
	if err == nil {
		resp, err = http.ReadResponse(br, req)
	}
	if !stop() {
		conn.Close()
		return nil, fmt.Errorf("upgrading to mcp: %w", ctx.Err())
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("upgrading to mcp: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		return nil, decodeAPIError(resp)
	}
	return &bufferedConn{Conn: conn, r: br}, nil
}

// bufferedConn reads what the handshake's reader buffered before reading
// the connection itself.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if c.r != nil {
		if c.r.Buffered() > 0 {
			return c.r.Read(p)
		}
		c.r = nil // drained: read the connection directly from now on
	}
	return c.Conn.Read(p)
}

// sessionClient is the name and version a client gave at initialize, or
// "unknown", as hub/mcpserver's SessionClient says it.
func sessionClient(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		if n := strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version); n != "" {
			return n
		}
	}
	return "unknown"
}
