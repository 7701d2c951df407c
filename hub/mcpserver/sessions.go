package mcpserver

// The clients connected now, for the window's Clients tab: each MCP
// session from its initialize (or server/discover) until it closes.

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// modeCode is the mode of the code-mode servers' sessions.
const modeCode = config.ProfileCode

// ConnectedClient is one MCP session of a client.
type ConnectedClient struct {
	Session string    `json:"session"`           // the session's id; "" over stdio
	Name    string    `json:"name"`              // clientInfo.name from its initialize
	Version string    `json:"version,omitempty"` // clientInfo.version
	Profile string    `json:"profile,omitempty"` // "" for the whole hub
	Mode    string    `json:"mode"`              // code or direct
	Since   time.Time `json:"since"`
}

// Sessions is the registry of the sessions connected now, shared by the
// servers of a hub (over the socket and over HTTP). The zero value is not
// usable; NewSessions makes one. Safe for concurrent use.
type Sessions struct {
	now func() time.Time

	mu      sync.Mutex
	live    map[*mcp.ServerSession]ConnectedClient
	watches map[int]func()
	next    int
}

// NewSessions returns an empty registry.
func NewSessions() *Sessions {
	return &Sessions{now: time.Now, live: map[*mcp.ServerSession]ConnectedClient{}}
}

// add records ss once, with what its initialize said, and forgets it when
// it closes. A nil registry records nothing.
func (r *Sessions) add(ss *mcp.ServerSession, profile, mode string) {
	if r == nil || ss == nil {
		return
	}
	c := ConnectedClient{Session: ss.ID(), Name: "unknown", Profile: profile, Mode: mode, Since: r.now()}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		if n := clientWords(p.ClientInfo.Name); n != "" {
			c.Name = n
		}
		c.Version = clientWords(p.ClientInfo.Version)
	}
	r.mu.Lock()
	_, had := r.live[ss]
	if had {
		// server/discover after initialize, or again: keep the first.
		r.mu.Unlock()
		return
	}
	r.live[ss] = c
	r.mu.Unlock()
	r.changed()
	go func() {
		ss.Wait()
		r.mu.Lock()
		delete(r.live, ss)
		r.mu.Unlock()
		r.changed()
	}()
}

// Watch calls fn whenever a client connects or goes, until cancel is
// called. fn runs on the goroutine of the change and must not block.
func (r *Sessions) Watch(fn func()) (cancel func()) {
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watches == nil {
		r.watches = map[int]func(){}
	}
	id := r.next
	r.next++
	r.watches[id] = fn
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.watches, id)
	}
}

func (r *Sessions) changed() {
	r.mu.Lock()
	fns := make([]func(), 0, len(r.watches))
	for _, fn := range r.watches {
		fns = append(fns, fn)
	}
	r.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Connected returns the sessions connected now, oldest first.
func (r *Sessions) Connected() []ConnectedClient {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	out := make([]ConnectedClient, 0, len(r.live))
	for _, c := range r.live {
		out = append(out, c)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b ConnectedClient) int {
		return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Session, b.Session))
	})
	return out
}
