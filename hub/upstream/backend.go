package upstream

// Backends: other kinds of source behind Upstreams.
//
// Upstreams runs the MCP sessions itself. A source whose config says
// "openapi" is a REST API instead, and a Backend serves it: Upstreams hands
// it the config, and routes the listings, the calls and the state of those
// sources to it, so the catalog, the gate and execute treat both kinds
// alike and never see the difference. A Backend reports what Upstreams
// cannot see through the callbacks its constructor is given: that a
// source's tools changed (Upstreams.ToolsChanged, as an MCP server's
// notifications/tools/list_changed does) and that its state changed
// (Upstreams.StateChanged).

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// Backend serves the sources of one kind that are not MCP servers.
//
// Concurrency: every method is safe for concurrent use. Upstreams calls
// SetConfig and State with its own lock held, so a Backend must not call
// into Upstreams from them, and calls its callbacks without holding a lock
// of its own that these methods take.
type Backend interface {
	// SetConfig installs the hub's whole config; the Backend serves the
	// sources of its kind in it and forgets the others.
	SetConfig(cfg *config.Config)
	// ListTools lists source's tools as Upstreams.ListTools does: a
	// listing served in part returns the tools kept with a
	// *ListingLimitError.
	ListTools(ctx context.Context, source string) ([]*mcp.Tool, error)
	// Call calls tool name of source through connection conn ("" for the
	// default), as Upstreams.Call does. When listed is not nil the call
	// is sent only while the request it makes is still *listed, the one
	// the catalog listed and the person consented to.
	Call(ctx context.Context, source, conn, name string, args json.RawMessage, listed *RESTRequest) (*mcp.CallToolResult, error)
	// State is source's state; Upstreams keeps its Since.
	State(source string) SourceState
	// Close stops the Backend's goroutines and waits for them.
	Close() error
}

// RESTRequest is what a call of an OpenAPI operation sends: the method, the
// path template and the server (base URL) it goes to, and whether the API
// marks the operation deprecated. The catalog pins it with the operation's
// definition, and a Backend's Call checks it.
type RESTRequest struct {
	Method     string `json:"method"`
	Path       string `json:"path"`
	Server     string `json:"server"`
	Deprecated bool   `json:"deprecated,omitempty"`
	// Elsewhere marks an operation whose own server is on another origin
	// than the API's, which the source lists as its own (its "origins"):
	// first seen there, it is pinned as it is, as a new operation on the
	// API's origin is.
	Elsewhere bool `json:"elsewhere,omitempty"`
}

func (r RESTRequest) String() string { return r.Method + " " + r.Server + r.Path }

// SameCall reports whether r and o send the same call: the same method,
// path template and server, whatever their deprecation marks.
func (r RESTRequest) SameCall(o RESTRequest) bool {
	return r.Method == o.Method && r.Path == o.Path && r.Server == o.Server
}

// RequestMeta is the _meta key an OpenAPI source's listing carries an
// operation's request under.
const RequestMeta = "capabilities.sh/request"
