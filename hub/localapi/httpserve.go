package localapi

// The optional streamable HTTP endpoint (`capabilities hub --http :PORT`),
// for clients that speak only HTTP. It is off by default.
//
// Loopback is not a security argument: any local process, and any web page
// through DNS rebinding, can reach 127.0.0.1. So every request must carry the
// bearer token kept in the keychain, must name a loopback Host with the
// endpoint's port, and, when a browser sends an Origin, must come from the
// endpoint's own origin.

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/keychain"
)

// HTTPTokenKey is the keychain key of the HTTP endpoint's bearer token.
const HTTPTokenKey = "hub/http-token"

// HTTPOptions configure [ServeHTTP].
type HTTPOptions struct {
	// Addr is ":PORT" or "127.0.0.1:PORT"; the endpoint binds 127.0.0.1
	// only, and any other host is refused. Port 0 picks a free port.
	Addr string
	// Token is the bearer token every request must carry, asked for each
	// request so that a rotated token takes effect at once; see
	// [HTTPBearer]. A request is refused while it returns "".
	Token func() string
	// MCPServer serves the endpoint's MCP sessions.
	MCPServer *mcp.Server
	// Profiles returns the MCP server of a profile, for the path
	// /mcp/p/NAME; its error (a profile the config does not have) answers
	// 404. Nil answers 404 to every such path.
	Profiles func(name string) (*mcp.Server, error)
	// Logger receives the endpoint's logs; nil discards them.
	Logger *slog.Logger
	// MaxBodyBytes is the most one request's body may hold (413 past
	// it); 0 is the SDK's 4 MiB. A direct-mode client's call carries
	// arguments as large as a run's call may send, so the hub sets it
	// above that bound, whose error then names it.
	MaxBodyBytes int64
}

// ServeHTTP serves MCP over streamable HTTP on opts.Addr until ctx is
// done. It returns once the listener is bound, with the address it bound
// ("127.0.0.1:PORT") and a channel that receives the server's end: nil after
// a shutdown caused by ctx, or the error that stopped it. The channel is
// sent to exactly once, after the server's goroutines have returned or
// after a 5-second grace for open streams has passed and they were cut.
//
// The handler is the go-sdk's stateless streamable handler: 2026-07-28
// clients get their stateless requests, and older clients are served
// without a session (server-to-client requests are not available to them,
// which the hub does not need: approvals reach them another way).
func ServeHTTP(ctx context.Context, opts HTTPOptions) (addr string, done <-chan error, err error) {
	if opts.Token == nil || opts.Token() == "" {
		return "", nil, errors.New("http endpoint: no token")
	}
	if opts.MCPServer == nil {
		return "", nil, errors.New("http endpoint: no MCP server")
	}
	bind, err := loopbackAddr(opts.Addr)
	if err != nil {
		return "", nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return "", nil, fmt.Errorf("http endpoint: %w", err)
	}
	addr = ln.Addr().String()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	sdk := mcp.StreamableHTTPOptions{Stateless: true, Logger: logger, MaxRequestBodyBytes: opts.MaxBodyBytes}
	mcpHandler := profileRoutes(opts.Profiles, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return opts.MCPServer }, &sdk), sdk)
	var requests inflight
	srv := &http.Server{
		Handler:           requests.handler(httpGuard(opts.Token, port, mcpHandler)),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	out := make(chan error, 1)
	go func() {
		err := serveUntil(ctx, srv, ln)
		requests.wait()
		if err != nil {
			err = fmt.Errorf("http endpoint: %w", err)
		}
		logger.Info("http endpoint stopped", "addr", addr)
		out <- err
	}()
	logger.Info("http endpoint listening", "addr", addr)
	return addr, out, nil
}

// profilePath is where the endpoint serves a profile: /mcp/p/NAME.
const profilePath = "/mcp/p/"

// profileRoutes serves the path /mcp/p/NAME with profile NAME's server,
// and 404 when there is no such profile; every other path goes to all,
// the whole hub.
func profileRoutes(profiles func(string) (*mcp.Server, error), all http.Handler, sdk mcp.StreamableHTTPOptions) http.Handler {
	byProfile := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		srv, _ := r.Context().Value(profileServerKey{}).(*mcp.Server)
		return srv
	}, &sdk)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, profilePath) {
			all.ServeHTTP(w, r)
			return
		}
		name := profileOf(r)
		if profiles == nil {
			http.Error(w, fmt.Sprintf("not found: no profile named %q", name), http.StatusNotFound)
			return
		}
		srv, err := profiles(name)
		if err != nil {
			http.Error(w, "not found: "+err.Error(), http.StatusNotFound)
			return
		}
		byProfile.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), profileServerKey{}, srv)))
	})
}

// profileServerKey carries the server of the request's profile from the
// check of its path to the handler.
type profileServerKey struct{}

func profileOf(r *http.Request) string {
	return strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, profilePath), "/")
}

// HTTPProfileURL is the URL of profile's MCP endpoint on addr.
func HTTPProfileURL(addr, profile string) (string, error) {
	u, err := HTTPEndpointURL(addr)
	if err != nil {
		return "", err
	}
	return u + "/p/" + url.PathEscape(profile), nil
}

// HTTPEndpointURL is the URL clients use for the endpoint served on addr
// (":PORT" or "127.0.0.1:PORT").
func HTTPEndpointURL(addr string) (string, error) {
	bind, err := loopbackAddr(addr)
	if err != nil {
		return "", err
	}
	if _, port, _ := net.SplitHostPort(bind); port == "0" {
		return "", fmt.Errorf("http endpoint: address %q: name the port the hub serves", addr)
	}
	return "http://" + bind + "/mcp", nil
}

// loopbackAddr checks an --http address and returns what to bind.
func loopbackAddr(a string) (string, error) {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", fmt.Errorf("http endpoint: address %q: %w (hint: use :PORT or 127.0.0.1:PORT)", a, err)
	}
	if host != "" && host != "127.0.0.1" {
		return "", fmt.Errorf("http endpoint: address %q: the endpoint binds 127.0.0.1 only (hint: use :%s)", a, port)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("http endpoint: address %q: bad port", a)
	}
	return net.JoinHostPort("127.0.0.1", port), nil
}

// httpGuard admits a request only with a loopback Host on port, no Origin
// or the endpoint's own, and the bearer token.
func httpGuard(token func() string, port string, next http.Handler) http.Handler {
	hosts := map[string]bool{
		"127.0.0.1:" + port: true,
		"localhost:" + port: true,
		"[::1]:" + port:     true,
	}
	origins := map[string]bool{
		"http://127.0.0.1:" + port: true,
		"http://localhost:" + port: true,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Host and Origin first: a page that rebinds a name to 127.0.0.1
		// learns nothing about the token scheme.
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, fmt.Sprintf("forbidden: unexpected Host %q", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !origins[strings.ToLower(o)] {
			http.Error(w, fmt.Sprintf("forbidden: unexpected Origin %q", o), http.StatusForbidden)
			return
		}
		tok := token()
		got := []byte(r.Header.Get("Authorization"))
		if tok == "" || subtle.ConstantTimeCompare(got, []byte("Bearer "+tok)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="capabilities"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HTTPToken returns the HTTP endpoint's bearer token from kc, under
// [HTTPTokenKey]. The first call generates it: 32 random bytes, base64url
// without padding.
func HTTPToken(kc keychain.Keychain) (string, error) {
	tok, err := kc.Get(HTTPTokenKey)
	if err == nil && tok != "" {
		return tok, nil
	}
	if err != nil && !errors.Is(err, keychain.ErrNotFound) {
		return "", fmt.Errorf("reading the http token: %w", err)
	}
	tok = newHTTPToken()
	if err := kc.Set(HTTPTokenKey, tok); err != nil {
		return "", fmt.Errorf("storing the http token: %w", err)
	}
	return tok, nil
}

// newHTTPToken is 32 random bytes, base64url without padding.
func newHTTPToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics if it cannot read)
	return base64.RawURLEncoding.EncodeToString(b)
}

// RotateHTTPToken replaces the HTTP endpoint's bearer token in kc with a new
// one and returns both (old is "" when there was none). A running hub
// takes the new one when told through its local API ([HTTPBearer.Reload]).
func RotateHTTPToken(kc keychain.Keychain) (old, token string, err error) {
	old, err = kc.Get(HTTPTokenKey)
	if err != nil && !errors.Is(err, keychain.ErrNotFound) {
		return "", "", fmt.Errorf("reading the http token: %w", err)
	}
	token = newHTTPToken()
	if err := kc.Set(HTTPTokenKey, token); err != nil {
		return "", "", fmt.Errorf("storing the new http token: %w", err)
	}
	return old, token, nil
}

// HTTPBearer is the bearer token a running hub's HTTP endpoint accepts: the
// keychain's when the hub started, and again after each Reload. Safe for
// concurrent use.
type HTTPBearer struct {
	kc  keychain.Keychain
	tok atomic.Pointer[string]
}

// NewHTTPBearer reads (or on first use makes) the token in kc.
func NewHTTPBearer(kc keychain.Keychain) (*HTTPBearer, error) {
	tok, err := HTTPToken(kc)
	if err != nil {
		return nil, err
	}
	b := &HTTPBearer{kc: kc}
	b.tok.Store(&tok)
	return b, nil
}

// Token is the token requests must carry now.
func (b *HTTPBearer) Token() string { return *b.tok.Load() }

// Reload reads the token from the keychain again, after `hub token
// --rotate` replaced it there: from then on only the new token is
// accepted. A keychain that cannot be read leaves the current token.
func (b *HTTPBearer) Reload() error {
	tok, err := b.kc.Get(HTTPTokenKey)
	if err != nil {
		return fmt.Errorf("reading the http token: %w", err)
	}
	if tok == "" {
		return errors.New("reading the http token: the keychain entry is empty")
	}
	b.tok.Store(&tok)
	return nil
}
