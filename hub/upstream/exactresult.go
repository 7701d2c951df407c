package upstream

// Exact tool results.
//
// The go-sdk client decodes a tools/call result's structuredContent into
// `any`, so its numbers arrive as float64: 9007199254740993 becomes
// 9007199254740992 before the hub sees it. To hand the guest the numbers the
// upstream wrote, a call carries an exactResult in its context, and the
// transport records the bytes of the result that answers that call's request:
// the stdio connection at the message it reads (exactConn), the HTTP
// transport from the response body it passes on (upstreamHeaders).
// Upstreams.Call then replaces the decoded structuredContent with those
// bytes.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxExactBody bounds the HTTP response bytes kept for one call; a larger
// result is delivered as the go-sdk decoded it.
const maxExactBody = 64 << 20

type exactResultKey struct{}

// exactResult receives the bytes of one call's result. Safe for concurrent
// use: the transport fills it on its own goroutines, the caller reads it
// after the call returned.
type exactResult struct {
	mu     sync.Mutex
	id     jsonrpc.ID // the request's, once it was written
	hasID  bool
	raw    json.RawMessage // stdio: the result as read
	body   bytes.Buffer    // HTTP: the response body as read
	sse    bool            // the body is an event stream
	tooBig bool
	conn   *exactConn // the stdio connection waiting for the response
}

func withExactResult(ctx context.Context, r *exactResult) context.Context {
	return context.WithValue(ctx, exactResultKey{}, r)
}

func exactResultOf(ctx context.Context) *exactResult {
	r, _ := ctx.Value(exactResultKey{}).(*exactResult)
	return r
}

// result returns the result as the upstream wrote it, or nil when it is
// not known.
func (r *exactResult) result() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw := r.raw
	if raw == nil && r.hasID && !r.tooBig && r.body.Len() > 0 {
		raw = responseResult(r.body.Bytes(), r.sse, r.id)
	}
	return raw
}

// structured returns the structuredContent of the result as the upstream
// wrote it, or nil when it is not known.
func (r *exactResult) structured() json.RawMessage {
	raw := r.result()
	if raw == nil {
		return nil
	}
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(raw, &res) != nil || len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return nil
	}
	return res.StructuredContent
}

// responseResult finds the result of the response to request id in an HTTP
// response body: one JSON-RPC message, or an event stream of them.
func responseResult(body []byte, sse bool, id jsonrpc.ID) json.RawMessage {
	match := func(msg []byte) json.RawMessage {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(msg, &m) != nil || m.Result == nil {
			return nil
		}
		if got, ok := parseID(m.ID); ok && got == id {
			return m.Result
		}
		return nil
	}
	if !sse {
		return match(body)
	}
	// Events are separated by blank lines; an event's data lines join with
	// newlines.
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if res := match(data); res != nil {
				return res
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	return match(data)
}

func parseID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

// exactMethods are the requests whose results a caller may ask for as
// written: a call's, and a listing's, whose schemas the go-sdk client
// decodes into maps that forget the order of their members.
var exactMethods = map[string]bool{"tools/call": true, "tools/list": true}

// listExact lists through cs as cs.ListTools does, with each tool's schemas
// as the server wrote them (json.RawMessage) where the transport kept the
// page's result: their properties then stay in their author's order,
// which declarations follow. A page it did not keep, or whose tools do not
// line up with the decoded ones, stays as decoded.
func listExact(cs *mcp.ClientSession) func(context.Context, *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	return func(ctx context.Context, params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
		r := &exactResult{}
		res, err := cs.ListTools(withExactResult(ctx, r), params)
		r.done()
		if err == nil && res != nil {
			keepListedSchemas(res.Tools, r.result())
		}
		return res, err
	}
}

// keepListedSchemas gives tools, a listing's page as decoded, the schemas
// of raw, the same page's result as written, when its tools are the same
// by name, in the same order.
func keepListedSchemas(tools []*mcp.Tool, raw json.RawMessage) {
	if raw == nil {
		return
	}
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &page) != nil || len(page.Tools) != len(tools) {
		return
	}
	for i, t := range tools {
		if t == nil || t.Name != page.Tools[i].Name {
			return
		}
	}
	for i, t := range tools {
		w := page.Tools[i]
		if t.InputSchema != nil && len(w.InputSchema) > 0 && string(w.InputSchema) != "null" {
			t.InputSchema = w.InputSchema
		}
		if t.OutputSchema != nil && len(w.OutputSchema) > 0 && string(w.OutputSchema) != "null" {
			t.OutputSchema = w.OutputSchema
		}
	}
}

// exactTransport wraps a stdio transport so its connection records results
// for the calls that ask (exactConn). Only for transports whose connection
// implements nothing beyond mcp.Connection: the wrapper hides the rest.
type exactTransport struct{ mcp.Transport }

func (t exactTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &exactConn{Connection: c, waiting: map[jsonrpc.ID]*exactResult{}}, nil
}

// exactConn hands each response's result to the exactResult of the call
// whose request it answers. Safe for concurrent use, as mcp.Connection.
type exactConn struct {
	mcp.Connection
	mu      sync.Mutex
	waiting map[jsonrpc.ID]*exactResult
}

func (c *exactConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	r := exactResultOf(ctx)
	if !ok || r == nil || !req.IsCall() || !exactMethods[req.Method] {
		return c.Connection.Write(ctx, msg)
	}
	r.mu.Lock()
	r.id, r.hasID, r.conn = req.ID, true, c
	r.mu.Unlock()
	c.mu.Lock()
	c.waiting[req.ID] = r
	c.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.forget(r)
	}
	return err
}

func (c *exactConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		r := c.waiting[resp.ID]
		delete(c.waiting, resp.ID)
		c.mu.Unlock()
		if r != nil {
			r.mu.Lock()
			r.raw = resp.Result
			r.mu.Unlock()
		}
	}
	return msg, err
}

// done ends r's call: a response that comes later is not recorded.
func (r *exactResult) done() {
	r.mu.Lock()
	c := r.conn
	r.mu.Unlock()
	if c != nil {
		c.forget(r)
	}
}

// forget drops r when its call ended without a response.
func (c *exactConn) forget(r *exactResult) {
	r.mu.Lock()
	id, ok := r.id, r.hasID
	r.mu.Unlock()
	if !ok {
		return
	}
	c.mu.Lock()
	if c.waiting[id] == r {
		delete(c.waiting, id)
	}
	c.mu.Unlock()
}

// keepExact makes resp's body record what it passes on into r, when req is
// the POST of a tools/call that asked for its exact result.
func keepExact(req *http.Request, resp *http.Response) {
	r := exactResultOf(req.Context())
	if r == nil || req.Method != http.MethodPost || req.GetBody == nil || resp.StatusCode != http.StatusOK {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	err = json.NewDecoder(io.LimitReader(body, maxExactBody)).Decode(&m)
	body.Close()
	if err != nil || !exactMethods[m.Method] {
		return
	}
	id, ok := parseID(m.ID)
	if !ok {
		return
	}
	r.mu.Lock()
	r.id, r.hasID = id, true
	r.sse = strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	r.body.Reset()
	r.tooBig = false
	r.mu.Unlock()
	resp.Body = &exactBody{ReadCloser: resp.Body, r: r}
}

// exactBody copies what is read through it into its exactResult.
type exactBody struct {
	io.ReadCloser
	r *exactResult
}

func (b *exactBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.r.mu.Lock()
		if b.r.body.Len()+n > maxExactBody {
			b.r.tooBig = true
			b.r.body.Reset()
		}
		if !b.r.tooBig {
			b.r.body.Write(p[:n])
		}
		b.r.mu.Unlock()
	}
	return n, err
}
