package mcpserver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/testwait"
)

// The registry lists each session from its initialize, by the client's
// name and version, with its profile and mode, and forgets it when it
// closes.
func TestSessionsListConnectedClients(t *testing.T) {
	f := &profileFake{profiles: map[string]*hub.ProfileInfo{
		"work": {Name: "work", Mode: config.ProfileCode, Sources: []string{"github"}},
	}}
	reg := NewSessions()
	var changes atomic.Int32
	unwatch := reg.Watch(func() { changes.Add(1) })
	s := NewServers(f, Options{Version: "test", Sessions: reg})
	work, err := s.Server("work")
	if err != nil {
		t.Fatal(err)
	}
	bothVersions(t, func(t *testing.T, version string) {
		connect := func(srv *mcp.Server, name, v string) (*mcp.ServerSession, *mcp.ClientSession) {
			t.Helper()
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: v}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			return ss, cs
		}
		if got := reg.Connected(); len(got) != 0 {
			t.Fatalf("before any client: %+v", got)
		}
		ss1, cs1 := connect(s.All(), "claude-code", "2.1.0")
		ss2, cs2 := connect(work, "cursor", "1.7")
		got := reg.Connected()
		if len(got) != 2 {
			t.Fatalf("Connected = %+v, want two sessions", got)
		}
		byName := map[string]ConnectedClient{}
		for _, c := range got {
			byName[c.Name] = c
		}
		if c := byName["claude-code"]; c.Version != "2.1.0" || c.Profile != "" || c.Mode != config.ProfileCode || c.Session != ss1.ID() {
			t.Errorf("the whole hub's client: %+v", c)
		}
		if c := byName["cursor"]; c.Version != "1.7" || c.Profile != "work" || c.Mode != config.ProfileCode || c.Session != ss2.ID() {
			t.Errorf("the profile's client: %+v", c)
		}
		cs1.Close()
		testwait.For(t, 10*time.Second, "the closed session to leave the registry", func() bool {
			got := reg.Connected()
			return len(got) == 1 && got[0].Name == "cursor"
		})
		cs2.Close()
		ss1.Wait()
		ss2.Wait()
		testwait.For(t, 10*time.Second, "the registry to be empty", func() bool { return len(reg.Connected()) == 0 })
	})
	// Each session was watched coming and going: two per protocol version.
	testwait.For(t, 10*time.Second, "Watch to see each session come and go", func() bool {
		return changes.Load() == int32(4*len(clientVersions))
	})
	unwatch()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.All().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ss.Wait()
	if n := changes.Load(); n != int32(4*len(clientVersions)) {
		t.Errorf("Watch saw %d changes after cancel", n)
	}
	var none *Sessions
	if none.Connected() != nil {
		t.Error("a nil registry lists sessions")
	}
}

// A direct-mode profile's sessions are listed in direct mode.
func TestSessionsListDirectModeClients(t *testing.T) {
	var writes atomic.Int32
	reg := NewSessions()
	s := NewServers(directHub(t, &writes), Options{Version: "test", Sessions: reg})
	t.Cleanup(s.Close)
	srv, err := s.Server("d")
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct-client", Version: "3"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := reg.Connected()
	if len(got) != 1 || got[0].Name != "direct-client" || got[0].Version != "3" || got[0].Profile != "d" || got[0].Mode != config.ProfileDirect {
		t.Fatalf("Connected = %+v, want the direct-mode client", got)
	}
	cs.Close()
	testwait.For(t, 10*time.Second, "the registry to be empty", func() bool { return len(reg.Connected()) == 0 })
}
