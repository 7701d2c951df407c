package catalog

// What the catalog knows of each source's listings.
//
// A source is listed by a Refresh: at start, on a config change, when its
// upstream says its tools changed, and when a start-up wait or a call asks
// for it. The heart's start-up waits read this record to know whether a
// source is being listed for the first time, whether it ever was, and
// whether a listing of this process has compared its tools with the pinned
// definitions since its definition last changed in the config.

import (
	"sync"

	"capabilities.sh/capabilities/hub/config"
)

// Listings is what the catalog knows of each source's listings. The zero
// value is ready; safe for concurrent use.
type Listings struct {
	mu   sync.Mutex
	by   map[string]*Listing
	wake chan struct{} // closed and replaced on every change
}

// Listing is one source's listing history in this process.
type Listing struct {
	Queued int  // Refresh calls that will list it or are listing it
	Tried  bool // a listing finished, either way
	Listed bool // the catalog holds a listing of it: this process's, or one stored before
	// Fresh: a listing by this process, since its definition last changed
	// in the config, succeeded, so the catalog's definitions of it were
	// compared with the pinned ones. Stored tools alone are never fresh.
	Fresh  bool
	gen    int  // grows when the source's definition changes in the config
	kicked bool // a start-up wait asked for its first listing
	// WaitedOut: a start-up wait gave up on the listing under way, so
	// later requests answer at once until it ends.
	WaitedOut bool
	Err       error // the last listing's failure; nil after a success
}

func (l *Listings) stateLocked(name string) *Listing {
	if l.by == nil {
		l.by = map[string]*Listing{}
	}
	st := l.by[name]
	if st == nil {
		st = &Listing{}
		l.by[name] = st
	}
	return st
}

func (l *Listings) broadcastLocked() {
	if l.wake != nil {
		close(l.wake)
	}
	l.wake = make(chan struct{})
}

// Get returns a copy of name's state and a channel closed at the next
// change.
func (l *Listings) Get(name string) (Listing, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wake == nil {
		l.wake = make(chan struct{})
	}
	return *l.stateLocked(name), l.wake
}

// markListed records that the catalog holds tools of these sources.
func (l *Listings) markListed(bySource map[string][]*Tool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	for name := range bySource {
		if st := l.stateLocked(name); !st.Listed {
			st.Listed, changed = true, true
		}
	}
	if changed {
		l.broadcastLocked()
	}
}

// Kick marks the sources nobody has listed or is listing as asked for and
// queued, and returns them: the caller lists them, then calls Release.
// With force, every source not being listed now is returned.
func (l *Listings) Kick(names []string, force bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, name := range names {
		st := l.stateLocked(name)
		if st.Queued > 0 || (!force && (st.Listed || st.Tried || st.kicked)) {
			continue
		}
		st.kicked, st.WaitedOut = true, false
		st.Queued++
		out = append(out, name)
	}
	return out
}

// KickFresh queues a listing of name unless one is queued or under way, or
// a listing of this process already succeeded. It reports whether it
// queued one: the caller lists name, then calls Release.
func (l *Listings) KickFresh(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.stateLocked(name)
	if st.Fresh || st.Queued > 0 {
		return false
	}
	st.Queued++
	return true
}

// Stale records that these sources' definitions changed in the config: what
// the catalog holds of them was listed from what they were before.
func (l *Listings) Stale(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		st := l.stateLocked(name)
		st.Fresh = false
		st.gen++
	}
	l.broadcastLocked()
}

// GaveUp records that a start-up wait timed out on these sources.
func (l *Listings) GaveUp(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		l.stateLocked(name).WaitedOut = true
	}
}

// Release ends what Kick or KickFresh queued.
func (l *Listings) Release(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		l.stateLocked(name).Queued--
	}
	l.broadcastLocked()
}

// listingBatch is the sources one Refresh lists.
type listingBatch struct {
	l       *Listings
	pending map[string]bool
	gens    map[string]int // each source's gen when the batch was queued
}

// queueListings records that a Refresh is about to list the enabled
// sources among names.
func (c *Catalog) queueListings(cfg *config.Config, names []string) *listingBatch {
	b := &listingBatch{l: &c.listings, pending: map[string]bool{}, gens: map[string]int{}}
	c.listings.mu.Lock()
	defer c.listings.mu.Unlock()
	for _, name := range names {
		if def := cfg.Sources[name]; def != nil && !def.Disabled && !b.pending[name] {
			b.pending[name] = true
			st := c.listings.stateLocked(name)
			st.Queued++
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
	st.Queued--
	st.Tried, st.Err, st.WaitedOut = true, err, false
	if err == nil {
		// A listing queued before the source's definition changed lists
		// what it was.
		st.Listed, st.Fresh = true, st.gen == b.gens[name]
	}
	b.l.broadcastLocked()
}

// finish ends the listings the batch did not report (the Refresh ended
// early).
func (b *listingBatch) finish() {
	b.l.mu.Lock()
	defer b.l.mu.Unlock()
	for name := range b.pending {
		b.l.stateLocked(name).Queued--
	}
	clear(b.pending)
	b.l.broadcastLocked()
}
