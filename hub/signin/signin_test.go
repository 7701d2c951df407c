package signin

import (
	"context"
	"strings"
	"sync"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/internal/hubtest"
)

// A sign-in made in a terminal (Note) is told to the hub's subscribers
// and has the source listed again, in the background; once the Service
// is closed, nothing starts in the background any more, and Close has
// waited for what had started.
func TestNoteListsAgainUntilClosed(t *testing.T) {
	kc := &hubtest.MemKeychain{}
	src := &config.Source{URL: "https://mcp.example.test/mcp"}
	cfg := &config.Config{Sources: map[string]*config.Source{"p": src}}
	if err := oauth.SaveRecord(kc, "p", "", &oauth.Record{AccessToken: "at-1", ClientID: "c", SourceURL: src.URL}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var listed, events []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := New(Options{
		Keychain:      kc,
		Config:        func() *config.Config { return cfg },
		UpstreamNeeds: func(string, string) bool { return false },
		Publish: func(kind, source, conn string) {
			mu.Lock()
			events = append(events, kind+" "+source+"/"+conn)
			mu.Unlock()
		},
		Invalidate: func() {},
		SignedIn: func(_ context.Context, source string) {
			mu.Lock()
			listed = append(listed, source)
			mu.Unlock()
		},
		Context: ctx,
	})
	if err := s.Note(ctx, "p", ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	mu.Lock()
	if strings.Join(listed, ",") != "p" || strings.Join(events, ",") != EventSignedIn+" p/" {
		t.Errorf("after Note: listed %q, events %q; want p listed once and one %s", listed, events, EventSignedIn)
	}
	mu.Unlock()

	if err := s.Note(ctx, "p", ""); err != nil {
		t.Fatal(err)
	}
	s.Offer("p", "")
	mu.Lock()
	defer mu.Unlock()
	if len(listed) != 1 {
		t.Errorf("listed %q after Close, want nothing more", listed)
	}
	if err := s.Note(ctx, "nope", ""); err == nil || !strings.Contains(err.Error(), `no source "nope"`) {
		t.Errorf("Note of an unknown source: %v", err)
	}
}
