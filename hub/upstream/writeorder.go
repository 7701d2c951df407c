package upstream

// Writes to one upstream go one at a time.
//
// A tool that is not read-only may read what it keeps, change it and write
// it back (the memory server does so with its file on every call), so two
// such calls at once can lose one of them while both answer ok. The hub
// sends the calls that are not read-only (by the tool's annotations; an
// OpenAPI operation's come from its method) to one (source, connection)
// one at a time: those of a run in the order the run issued them (their
// seq, a WriteOrder per attempt), and those of different runs in the order
// they come (WriteLanes, one for the hub). Reads stay parallel. A source
// whose config says "concurrentWrites": true is sent its writes as they
// come.

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// ConnKey names one connection of one source: the unit writes are ordered
// by, and a session is kept for; the heart also reads missing secrets and
// runs sign-ins per ConnKey.
type ConnKey struct{ Source, Conn string }

// SerialWrites reports whether calls of a tool with annotations ann on src
// wait for the writes before them.
func SerialWrites(ann *mcp.ToolAnnotations, src *config.Source) bool {
	if src != nil && src.ConcurrentWrites {
		return false
	}
	return ann == nil || !ann.ReadOnlyHint
}

// WriteOrder lets one run's writes to an upstream go in seq order: a write
// goes once every call before it is known (settled as something other than
// a write, or begun as a write) and no earlier write to the same upstream
// is still under way.
//
// Concurrency: safe for concurrent use. Every seq the run issues must be
// settled or begun, or the writes after it wait until their ctx ends; the
// sandbox hands every seq it issues to the heart's run host, which settles
// each call and read when it returns.
type WriteOrder struct {
	mu      sync.Mutex
	known   map[int]bool    // seqs settled or begun
	writing map[int]ConnKey // writes begun and not done
	changed chan struct{}   // closed and replaced on every change
}

// NewWriteOrder returns the order of one attempt's writes, none known yet.
func NewWriteOrder() *WriteOrder {
	return &WriteOrder{known: map[int]bool{}, writing: map[int]ConnKey{}, changed: make(chan struct{})}
}

func (w *WriteOrder) wakeLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// Settle records that call seq is not (or no longer) a write waiting or
// under way. Calling it again is harmless.
func (w *WriteOrder) Settle(seq int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, writing := w.writing[seq]
	if w.known[seq] && !writing {
		return
	}
	w.known[seq] = true
	delete(w.writing, seq)
	w.wakeLocked()
}

// Begin records call seq as a write to key and waits for its turn. The
// write is done when the returned func is called (or when the call is
// settled); on an error (ctx ended first) it is done already.
func (w *WriteOrder) Begin(ctx context.Context, seq int, key ConnKey) (func(), error) {
	w.mu.Lock()
	w.known[seq] = true
	w.writing[seq] = key
	w.wakeLocked()
	for !w.turnLocked(seq, key) {
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			w.Settle(seq)
			return nil, context.Cause(ctx)
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
	return func() { w.Settle(seq) }, nil
}

func (w *WriteOrder) turnLocked(seq int, key ConnKey) bool {
	for k := 1; k < seq; k++ {
		if !w.known[k] {
			return false
		}
		if wk, ok := w.writing[k]; ok && wk == key {
			return false
		}
	}
	return true
}

// WriteLanes lets one write at a time go to each upstream, across runs.
// The zero value is ready; safe for concurrent use. A lane lives only while
// a write holds or waits for it.
type WriteLanes struct {
	mu    sync.Mutex
	lanes map[ConnKey]*writeLane
}

type writeLane struct {
	turn  chan struct{} // holds a token while the lane is free
	users int           // holding or waiting; guarded by WriteLanes.mu
}

// Acquire waits for key's lane and returns its release, or ctx's cause.
func (l *WriteLanes) Acquire(ctx context.Context, key ConnKey) (func(), error) {
	l.mu.Lock()
	if l.lanes == nil {
		l.lanes = map[ConnKey]*writeLane{}
	}
	lane := l.lanes[key]
	if lane == nil {
		lane = &writeLane{turn: make(chan struct{}, 1)}
		lane.turn <- struct{}{}
		l.lanes[key] = lane
	}
	lane.users++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if lane.users--; lane.users == 0 {
			delete(l.lanes, key)
		}
		l.mu.Unlock()
	}
	select {
	case <-lane.turn:
		return func() { lane.turn <- struct{}{}; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, context.Cause(ctx)
	}
}
