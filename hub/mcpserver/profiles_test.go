package mcpserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

// profileFake is fakeHub with profiles, recording the profile each
// search, describe and execute was made in.
type profileFake struct {
	fakeHub
	mu       sync.Mutex
	profiles map[string]*hub.ProfileInfo
	asked    []string
}

func (f *profileFake) Profile(name string) (*hub.ProfileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.profiles[name]; p != nil {
		return p, nil
	}
	return nil, &hub.UnknownProfileError{Name: name, Known: []string{"work"}}
}

func (f *profileFake) record(what, profile string) {
	f.mu.Lock()
	f.asked = append(f.asked, what+"@"+profile)
	f.mu.Unlock()
}

func (f *profileFake) Search(_ context.Context, req hub.SearchRequest) (string, error) {
	f.record("search", req.Profile)
	return "found", nil
}

func (f *profileFake) Describe(_ context.Context, req hub.DescribeRequest) (string, error) {
	f.record("describe", req.Profile)
	return "declared", nil
}

func (f *profileFake) Execute(_ context.Context, req hub.ExecuteRequest) (*hub.Envelope, error) {
	f.record("execute", req.Profile)
	return nil, errors.New("profileFake: execute")
}

func TestServersServeEachProfile(t *testing.T) {
	f := &profileFake{profiles: map[string]*hub.ProfileInfo{
		"work":  {Name: "work", Mode: config.ProfileCode, Sources: []string{"github", "linear"}, ReadOnly: true, Unavailable: []string{"linear (needs a secret)"}},
		"tools": {Name: "tools", Mode: config.ProfileDirect, Sources: []string{"github"}},
	}}
	s := NewServers(f, Options{Version: "test"})
	if _, err := s.Server("nope"); !errors.Is(err, hub.ErrUnknownProfile) || !strings.Contains(err.Error(), "profiles: work") {
		t.Errorf("Server(nope) = %v", err)
	}
	if _, err := s.Server("tools"); err == nil || !strings.Contains(err.Error(), "direct mode") {
		t.Errorf("Server(tools) = %v, want a refusal of direct mode", err)
	}
	if srv, err := s.Server(""); srv != s.All() || err != nil {
		t.Errorf("Server(\"\") = %v, %v; want All()", srv, err)
	}
	srv, err := s.Server("work")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Server("work"); again != srv {
		t.Error("the profile's server was made again though nothing changed")
	}
	bothVersions(t, func(t *testing.T, version string) {
		cs := connectServer(t, srv, "c", version, nil)
		want := instructions + "\n\nProfile work: only its sources exist here: github, linear. It is read-only: calls to tools that change data are refused. Not connected now: linear (needs a secret)."
		if got := cs.InitializeResult().Instructions; got != want {
			t.Errorf("instructions:\n%s\nwant\n%s", got, want)
		}
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(tools.Tools) != 3 {
			t.Fatalf("tools/list: %v %v", err, tools)
		}
		callText(t, cs, "search", map[string]any{"query": "x"})
		callText(t, cs, "describe", map[string]any{"targets": []string{"github"}})
		callText(t, cs, "execute", map[string]any{"code": "return 1"})
		// The model cannot name another profile in its arguments.
		if out, isErr := callText(t, cs, "describe", map[string]any{"targets": []string{"github"}, "profile": ""}); !isErr || !strings.Contains(out, "profile: unknown field") {
			t.Errorf("describe with a profile argument: %q", out)
		}
	})
	f.mu.Lock()
	asked := append([]string(nil), f.asked...)
	f.mu.Unlock()
	for _, a := range asked {
		if !strings.HasSuffix(a, "@work") {
			t.Errorf("a request of the work server was made as %s", a)
		}
	}
	if len(asked) != 6 {
		t.Errorf("asked %v; want three requests per version", asked)
	}
	// Another state of the profile is another server for new sessions.
	f.mu.Lock()
	f.profiles["work"] = &hub.ProfileInfo{Name: "work", Mode: config.ProfileCode, Sources: []string{"github", "linear"}}
	f.mu.Unlock()
	if again, _ := s.Server("work"); again == srv {
		t.Error("the server was kept though its instructions changed")
	}
}
