package localapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

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

// Client speaks to the local API of one home's hub. It is safe for
// concurrent use; Close releases its idle connections.
type Client struct {
	paths config.Paths
	http  *http.Client
}

// Dial returns a client for the hub of paths, after checking that one
// answers: when nothing listens on the socket the error matches [ErrNoHub].
func Dial(ctx context.Context, paths config.Paths) (*Client, error) {
	c := newClient(paths)
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	conn.Close()
	return c, nil
}

func newClient(paths config.Paths) *Client {
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

// The routes the CLI and the tray use most, typed.

// Status is the running hub at a glance (GET /v1/status).
func (c *Client) Status(ctx context.Context) (hub.Status, error) {
	var st hub.Status
	err := c.Do(ctx, http.MethodGet, "/v1/status", nil, &st)
	return st, err
}

// NoteSignIn tells the hub that connection conn of source signed in
// outside it (POST /v1/signed-in): a sign-in page it opened for a waiting
// run closes, and its window and status say signed in at once.
func (c *Client) NoteSignIn(ctx context.Context, source, conn string) error {
	return c.Do(ctx, http.MethodPost, "/v1/signed-in", map[string]string{"source": source, "connection": conn}, nil)
}

// Stop asks the hub to stop (POST /v1/stop); it answers first.
func (c *Client) Stop(ctx context.Context) error {
	return c.Do(ctx, http.MethodPost, "/v1/stop", struct{}{}, nil)
}

// Open asks the hub to show its window on tab, "" for the one it shows
// (POST /v1/open). A hub without a window answers an *APIError.
func (c *Client) Open(ctx context.Context, tab string) error {
	return c.Do(ctx, http.MethodPost, "/v1/open", map[string]string{"tab": tab}, nil)
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
	return c.UpgradeMCPProfile(ctx, "")
}

// UpgradeMCPProfile is UpgradeMCP for a session in profile ("" for the
// whole hub). A profile the hub's config does not have fails with an
// *APIError of status 404 that names those it has.
func (c *Client) UpgradeMCPProfile(ctx context.Context, profile string) (net.Conn, error) {
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	target := "http://" + apiHost + mcpPath
	if profile != "" {
		target += "?" + url.Values{"profile": {profile}}.Encode()
	}
	req, _ := http.NewRequest(http.MethodGet, target, nil)
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
