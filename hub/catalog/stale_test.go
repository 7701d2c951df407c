package catalog

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// heldLister lists each source's tools, holding "slow" until release
// closes (announcing on listing, which holds two, that it started).
type heldLister struct {
	mapLister
	listing, release chan struct{}
}

func (l heldLister) ListTools(ctx context.Context, source string) ([]*mcp.Tool, error) {
	if source == "slow" {
		l.listing <- struct{}{}
		<-l.release
	}
	return l.mapLister.ListTools(ctx, source)
}

// A refresh started before a source was enabled, which waited for
// another refresh, lists with the config as it is when its turn comes:
// it does not drop the tools of the source the person just enabled.
func TestRefreshThatWaitedUsesTheConfigOfNow(t *testing.T) {
	ctx := context.Background()
	l := heldLister{mapLister: mapLister{"slow": catalogTools("slow", 1, 10), "fake": catalogTools("fake", 2, 10)},
		listing: make(chan struct{}, 2), release: make(chan struct{})}
	enabled := &config.Config{Sources: map[string]*config.Source{"slow": {Command: "slow"}, "fake": {Command: "fake"}}}
	disabled := &config.Config{Sources: map[string]*config.Source{"slow": {Command: "slow"}, "fake": {Command: "fake", Disabled: true}}}
	var mu sync.Mutex
	now := enabled
	c := New(hubtest.OpenStore(t), l, &Options{Config: func() *config.Config { mu.Lock(); defer mu.Unlock(); return now }})
	defer c.Close()

	held := make(chan map[string]error, 1)
	go func() { held <- c.Refresh(ctx, enabled, "slow") }()
	<-l.listing // the first refresh lists, holding the catalog's turn
	mu.Lock()
	now = disabled
	mu.Unlock()
	stale := make(chan map[string]error, 1)
	go func() { stale <- c.Refresh(ctx, disabled) }() // as the disabling's reload starts one, of every source
	testwait.For(t, 0, "the second refresh to wait its turn", func() bool {
		st, _ := c.Listings().Get("slow")
		return st.Queued == 2
	})
	mu.Lock()
	now = enabled // the person enabled it again before that refresh's turn
	mu.Unlock()
	close(l.release)
	if errs := <-held; errs["slow"] != nil {
		t.Fatal(errs)
	}
	if errs := <-stale; errs["fake"] != nil {
		t.Fatal(errs)
	}
	if got := len(c.Snapshot().BySource("fake")); got != 2 {
		t.Errorf("fake has %d tools after the refresh that waited, want its 2: it listed with the older config", got)
	}
}
