package hub

// What the catalog knows of each source's listings.
//
// A source is listed by a Refresh: at start, on a config change, when its
// upstream says its tools changed, and when a start-up wait or a call asks
// for it. The heart's start-up waits (startup.go) read this record to know
// whether a source is being listed for the first time, whether it ever was,
// and whether a listing of this process has compared its tools with the
// pinned definitions since its definition last changed in the config.

import "sync"

// listings is what the catalog knows of each source's listings. The zero
// value is ready; safe for concurrent use.
type listings struct {
	mu   sync.Mutex
	by   map[string]*listState
	wake chan struct{} // closed and replaced on every change
}

// listState is one source's listing history in this process.
type listState struct {
	queued int  // Refresh calls that will list it or are listing it
	tried  bool // a listing finished, either way
	listed bool // the catalog holds a listing of it: this process's, or one stored before
	// fresh: a listing by this process, since its definition last changed
	// in the config, succeeded, so the catalog's definitions of it were
	// compared with the pinned ones. Stored tools alone are never fresh.
	fresh  bool
	gen    int  // grows when the source's definition changes in the config
	kicked bool // a start-up wait asked for its first listing
	// waitedOut: a start-up wait gave up on the listing under way, so
	// later requests answer at once until it ends.
	waitedOut bool
	err       error // the last listing's failure; nil after a success
}

func (l *listings) stateLocked(name string) *listState {
	if l.by == nil {
		l.by = map[string]*listState{}
	}
	st := l.by[name]
	if st == nil {
		st = &listState{}
		l.by[name] = st
	}
	return st
}

func (l *listings) broadcastLocked() {
	if l.wake != nil {
		close(l.wake)
	}
	l.wake = make(chan struct{})
}

// get returns a copy of name's state and a channel closed at the next
// change.
func (l *listings) get(name string) (listState, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wake == nil {
		l.wake = make(chan struct{})
	}
	return *l.stateLocked(name), l.wake
}

// markListed records that the catalog holds tools of these sources.
func (l *listings) markListed(bySource map[string][]*Tool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	for name := range bySource {
		if st := l.stateLocked(name); !st.listed {
			st.listed, changed = true, true
		}
	}
	if changed {
		l.broadcastLocked()
	}
}

// kick marks the sources nobody has listed or is listing as asked for and
// queued, and returns them: the caller lists them, then calls release.
// With force, every source not being listed now is returned.
func (l *listings) kick(names []string, force bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, name := range names {
		st := l.stateLocked(name)
		if st.queued > 0 || (!force && (st.listed || st.tried || st.kicked)) {
			continue
		}
		st.kicked, st.waitedOut = true, false
		st.queued++
		out = append(out, name)
	}
	return out
}

// kickFresh queues a listing of name unless one is queued or under way, or
// a listing of this process already succeeded. It reports whether it
// queued one: the caller lists name, then calls release.
func (l *listings) kickFresh(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.stateLocked(name)
	if st.fresh || st.queued > 0 {
		return false
	}
	st.queued++
	return true
}

// stale records that these sources' definitions changed in the config: what
// the catalog holds of them was listed from what they were before.
func (l *listings) stale(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		st := l.stateLocked(name)
		st.fresh = false
		st.gen++
	}
	l.broadcastLocked()
}

// gaveUp records that a start-up wait timed out on these sources.
func (l *listings) gaveUp(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		l.stateLocked(name).waitedOut = true
	}
}

// release ends what kick queued.
func (l *listings) release(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		l.stateLocked(name).queued--
	}
	l.broadcastLocked()
}

// listingBatch is the sources one Refresh lists.
type listingBatch struct {
	l       *listings
	pending map[string]bool
	gens    map[string]int // each source's gen when the batch was queued
}

// queueListings records that a Refresh is about to list the enabled
// sources among names.
func (c *Catalog) queueListings(cfg *Config, names []string) *listingBatch {
	b := &listingBatch{l: &c.listings, pending: map[string]bool{}, gens: map[string]int{}}
	c.listings.mu.Lock()
	defer c.listings.mu.Unlock()
	for _, name := range names {
		if def := cfg.Sources[name]; def != nil && !def.Disabled && !b.pending[name] {
			b.pending[name] = true
			st := c.listings.stateLocked(name)
			st.queued++
			b.gens[name] = st.gen
		}
	}
	c.listings.broadcastLocked()
	return b
}

// done records the end of one source's listing: err is nil when its tools
// are in the catalog now.
func (b *listingBatch) done(name string, err error) {
	b.l.mu.Lock()
	defer b.l.mu.Unlock()
	if !b.pending[name] {
		return
	}
	delete(b.pending, name)
	st := b.l.stateLocked(name)
	st.queued--
	st.tried, st.err, st.waitedOut = true, err, false
	if err == nil {
		// A listing queued before the source's definition changed lists
		// what it was.
		st.listed, st.fresh = true, st.gen == b.gens[name]
	}
	b.l.broadcastLocked()
}

// finish ends the listings the batch did not report (the Refresh ended
// early).
func (b *listingBatch) finish() {
	b.l.mu.Lock()
	defer b.l.mu.Unlock()
	for name := range b.pending {
		b.l.stateLocked(name).queued--
	}
	clear(b.pending)
	b.l.broadcastLocked()
}
