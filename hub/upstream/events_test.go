package upstream

import (
	"sync"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestToolsChangedQueuesOncePerSource: a server that sends
// notifications/tools/list_changed in a loop while the hub's callback is
// busy adds one entry to the queue, not one per message, and no change is
// lost: one that comes once the callback has begun is delivered after it.
func TestToolsChangedQueuesOncePerSource(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []string
	u := newTestUpstreams(t, Options{OnToolsChanged: func(source string) {
		mu.Lock()
		got = append(got, source)
		first := len(got) == 1
		mu.Unlock()
		if first {
			<-release
		}
	}}, hubtest.Config(map[string]*config.Source{}))
	delivered := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(got)
	}
	u.ToolsChanged("a")
	testwait.For(t, 10*time.Second, "the first callback to begin", func() bool { return delivered() == 1 })
	for range 100_000 {
		u.ToolsChanged("a")
		u.ToolsChanged("b")
	}
	u.events.mu.Lock()
	queued := len(u.events.queue)
	u.events.mu.Unlock()
	if queued != 2 {
		t.Errorf("%d callbacks queued for 200,000 notifications of two sources, want 2", queued)
	}
	close(release)
	testwait.For(t, 10*time.Second, "the queued callbacks", func() bool { return delivered() == 3 })
	mu.Lock()
	defer mu.Unlock()
	if got[0] != "a" || got[1] != "a" || got[2] != "b" {
		t.Errorf("delivered %v, want a, a, b", got)
	}
}
