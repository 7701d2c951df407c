package mcpserver

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

// ProfileHub is what serving profiles needs of the heart besides [Hub]:
// what a profile is. *hub.Hub satisfies it.
type ProfileHub interface {
	Hub
	// Profile describes a profile, or fails with *hub.UnknownProfileError.
	Profile(name string) (*hub.ProfileInfo, error)
}

var _ ProfileHub = (*hub.Hub)(nil)

// Servers hands out the MCP server of the whole hub and of each profile a
// client selects (capabilities mcp --profile NAME, the HTTP path
// /mcp/p/NAME). A profile's server makes every request in the profile,
// which the heart enforces, and its instructions name the profile, its
// sources and those not connected now. A code-mode profile's tools are
// the same three; a direct-mode profile's are its own tools (direct.go).
// The profile is chosen outside the model's reach, and no tool switches it.
//
// Safe for concurrent use.
type Servers struct {
	hub  ProfileHub
	opts Options
	all  *mcp.Server

	mu        sync.Mutex
	byProfile map[string]profileServer
	direct    map[string]*directProfile
	// unsubscribe ends the subscription that keeps direct-mode profiles'
	// tools current; nil until the first one is served.
	unsubscribe func()
}

type profileServer struct {
	instructions string
	srv          *mcp.Server
}

// NewServers returns the servers of h: Server("") is New(h, opts).
func NewServers(h ProfileHub, opts Options) *Servers {
	return &Servers{hub: h, opts: opts, all: New(h, opts), byProfile: map[string]profileServer{}, direct: map[string]*directProfile{}}
}

// Close stops keeping the tools of direct-mode profiles current. Their
// servers keep the tools they have.
func (s *Servers) Close() {
	s.mu.Lock()
	cancel := s.unsubscribe
	s.unsubscribe = func() {}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// changed brings every direct-mode profile's tools up to an event that may
// change them: the catalog, the config (policy and profiles among it), a
// source, or a remembered decision.
func (s *Servers) changed(ev hub.Event) {
	switch ev.Kind {
	case hub.EventCatalog, hub.EventConfig, hub.EventSource, hub.EventApprovalDecided:
	default:
		return
	}
	s.mu.Lock()
	profiles := make([]*directProfile, 0, len(s.direct))
	for _, d := range s.direct {
		profiles = append(profiles, d)
	}
	s.mu.Unlock()
	for _, d := range profiles {
		d.sync()
	}
}

// directServer is the server of direct-mode profile name, whose
// instructions are text.
func (s *Servers) directServer(name, text string) (*mcp.Server, error) {
	dh, ok := s.hub.(DirectHub)
	if !ok {
		return nil, fmt.Errorf("profile %s is in direct mode, which this hub does not serve; set its mode to %q", name, config.ProfileCode)
	}
	s.mu.Lock()
	d := s.direct[name]
	if d == nil {
		log := s.opts.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		d = &directProfile{hub: dh, opts: s.opts, log: log, name: name}
		s.direct[name] = d
	}
	if s.unsubscribe == nil {
		s.unsubscribe = dh.Subscribe(s.changed)
	}
	s.mu.Unlock()
	return d.server(text), nil
}

// All is the server of the whole hub, for clients that select no profile.
func (s *Servers) All() *mcp.Server { return s.all }

// Server returns the server of profile ("" for the whole hub). A profile
// the config does not have fails with *hub.UnknownProfileError, which
// names those it has. A profile's server is made again when what its
// instructions say changes; sessions of the one before keep it.
func (s *Servers) Server(profile string) (*mcp.Server, error) {
	if profile == "" {
		return s.all, nil
	}
	info, err := s.hub.Profile(profile)
	if err != nil {
		return nil, err
	}
	text := ProfileInstructions(info)
	switch info.Mode {
	case config.ProfileDirect:
		return s.directServer(profile, text)
	case config.ProfileCode:
	default:
		return nil, fmt.Errorf("profile %s is in %s mode, which this hub does not serve; set its mode to %q", profile, info.Mode, config.ProfileCode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ps, ok := s.byProfile[profile]; ok && ps.instructions == text {
		return ps.srv, nil
	}
	srv := newServer(s.hub, s.opts, profile, text)
	s.byProfile[profile] = profileServer{instructions: text, srv: srv}
	return srv, nil
}

// ProfileInstructions are the server instructions of a profile's
// sessions: the instructions of its mode, then the profile, its sources
// and those not connected now.
func ProfileInstructions(info *hub.ProfileInfo) string {
	var b strings.Builder
	if info.Mode == config.ProfileDirect {
		b.WriteString(directInstructions)
	} else {
		b.WriteString(instructions)
	}
	fmt.Fprintf(&b, "\n\nProfile %s: only its sources exist here: %s.", info.Name, strings.Join(info.Sources, ", "))
	if info.ReadOnly {
		b.WriteString(" It is read-only: calls to tools that change data are refused.")
	}
	if len(info.Unavailable) > 0 {
		fmt.Fprintf(&b, " Not connected now: %s.", strings.Join(info.Unavailable, ", "))
	}
	return b.String()
}
