package localapi

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
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/mcpserver"
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
	// Closing: the hub stopped serving but did not finish closing within
	// ServiceOptions.CloseWait.
	Closing bool
}

func (e *HubRunningError) Error() string {
	pid := "unknown"
	if e.PID > 0 {
		pid = strconv.Itoa(e.PID)
	}
	if e.Closing {
		return fmt.Sprintf("a hub for %s (pid %s) stopped serving but has not finished closing", e.Home, pid)
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
	Paths config.Paths
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
	// MCPServer serves the MCP sessions of upgraded connections; every
	// connection is its own session of this one server. Nil refuses upgrades
	// with 503.
	MCPServer *mcp.Server
	// Profiles returns the MCP server of a profile, for upgrades that
	// select one (/v1/mcp?profile=NAME); its error (a profile the config
	// does not have) answers 404. Nil refuses every profile with 404.
	Profiles func(name string) (*mcp.Server, error)
	// Handler serves the rest of the local API (routes such as /v1/status
	// and /v1/approve). It sees only requests that passed the peer, Host and
	// Origin checks. Nil answers 404 to everything but /v1/mcp.
	Handler http.Handler
	// CloseWait is how long Listen waits for a hub that holds the home's
	// lock but no longer answers on its socket: one that stopped and is
	// closing (hub stop, then hub). Zero means 15 seconds.
	CloseWait time.Duration
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
			writeAPIError(w, http.StatusServiceUnavailable, "the hub is stopping", "")
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
	if errors.Is(err, errLocked) && !answers(sock) {
		// Its holder stopped serving and is closing its runs, sources
		// and database; the lock is free once it has.
		deadline := time.Now().Add(cmp.Or(opts.CloseWait, 15*time.Second))
		for errors.Is(err, errLocked) && time.Now().Before(deadline) && !answers(sock) {
			time.Sleep(50 * time.Millisecond)
			lock, err = lockHome(opts.Paths.Lock())
		}
		if errors.Is(err, errLocked) && !answers(sock) {
			return nil, &HubRunningError{Home: home, PID: readLockPID(opts.Paths.Lock()), Socket: sock, Closing: true}
		}
	}
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

// answers reports whether something accepts connections on the socket.
func answers(sock string) bool {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
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
// sessions to return, and removes the socket. It keeps the home's lock:
// Close releases it, once the hub behind the Service has closed too, so
// that no second hub takes the home while this one still finishes its
// runs and closes its sources and database.
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
	if cerr := s.closeSocket(); err == nil {
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

// Close releases the socket and the home's lock: after Serve returned and
// the hub closed, or for a Service that never served (a serving one stops
// when the context given to Serve ends). It is idempotent.
func (s *Service) Close() error {
	err := s.closeSocket()
	s.mu.Lock()
	lock := s.lock
	s.lock = nil
	s.mu.Unlock()
	if lock == nil {
		return err
	}
	if lerr := lock.Close(); lerr != nil && err == nil {
		err = lerr
	}
	return err
}

// closeSocket stops listening and removes the socket file, once.
func (s *Service) closeSocket() error {
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
			writeAPIError(w, http.StatusForbidden, err.Error(), "the hub serves only the user it runs as")
			return
		}
		if r.Host != apiHost {
			writeAPIError(w, http.StatusForbidden, fmt.Sprintf("unexpected Host %q", r.Host), "use the capabilities CLI or localapi.Dial")
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			writeAPIError(w, http.StatusForbidden, fmt.Sprintf("requests from web origins are refused (Origin %q)", o), "")
			return
		}
		if r.URL.Path == mcpPath {
			s.serveMCP(w, r)
			return
		}
		if s.opts.Handler == nil {
			writeAPIError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path, "")
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
		writeAPIError(w, http.StatusMethodNotAllowed, "use GET with Upgrade: "+mcpUpgrade, "")
		return
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || !strings.EqualFold(r.Header.Get("Upgrade"), mcpUpgrade) {
		w.Header().Set("Upgrade", mcpUpgrade)
		writeAPIError(w, http.StatusUpgradeRequired, "this endpoint needs Connection: Upgrade and Upgrade: "+mcpUpgrade, "")
		return
	}
	srv := s.opts.MCPServer
	if profile := r.URL.Query().Get("profile"); profile != "" {
		if s.opts.Profiles == nil {
			writeAPIError(w, http.StatusNotFound, fmt.Sprintf("no profile named %q: this hub serves no profiles", profile), "")
			return
		}
		ps, err := s.opts.Profiles(profile)
		if err != nil {
			writeAPIError(w, http.StatusNotFound, err.Error(), "capabilities profile list")
			return
		}
		srv = ps
	}
	if srv == nil {
		writeAPIError(w, http.StatusServiceUnavailable, "this hub serves no MCP", "")
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		writeAPIError(w, http.StatusInternalServerError, "connection cannot be upgraded", "")
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		writeAPIError(w, http.StatusServiceUnavailable, "the hub is stopping", "")
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

	ss, err := srv.Connect(context.WithoutCancel(r.Context()), &mcp.IOTransport{
		Reader: readCloser{rd, conn},
		Writer: conn,
	}, nil)
	if err != nil {
		s.log.Warn("local api: starting an MCP session", "error", err)
		return
	}
	s.log.Debug("mcp session started", "session", ss.ID())
	err = ss.Wait()
	s.log.Info("client disconnected", "client", mcpserver.SessionClient(ss), "session", ss.ID(), "error", err)
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

type apiErrorBody struct {
	Error string `json:"error"`
	Hint  string `json:"hint,omitempty"`
}

// writeAPIError writes the local API's error body, {"error": msg, "hint":
// hint}, with status. [Client.Do] decodes it into an *[APIError].
func writeAPIError(w http.ResponseWriter, status int, msg, hint string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(apiErrorBody{Error: msg, Hint: hint})
}
