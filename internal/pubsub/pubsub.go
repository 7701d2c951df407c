// Package pubsub delivers messages to subscribers without ever blocking
// the publisher: each subscriber has a buffered queue drained by its own
// goroutine, and one that falls far behind loses messages rather than
// stalling the one who publishes. It suits messages that are hints to
// re-read state, where a lost one is repaired by the next; the hub's
// events to the tray and window are such hints. Handlers are for a message
// someone must act on: it is offered to each at once, and the caller learns
// whether one took it.
package pubsub

import (
	"maps"
	"slices"
	"sync"
)

// queueLen is how many messages a subscriber may fall behind before it
// loses them.
const queueLen = 256

// Bus delivers messages of type T to its subscribers. The zero value is
// ready; safe for concurrent use.
type Bus[T any] struct {
	mu   sync.Mutex
	subs map[int]chan T
	next int
}

// Subscribe calls fn for each message, on a goroutine of its own, until
// cancel is called. cancel waits for fn's goroutine to finish.
func (b *Bus[T]) Subscribe(fn func(T)) (cancel func()) {
	ch := make(chan T, queueLen)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[int]chan T{}
	}
	id := b.next
	b.next++
	b.subs[id] = ch
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ch {
			fn(m)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			close(ch)
			b.mu.Unlock()
			<-done
		})
	}
}

// Publish queues m for every subscriber, dropping it for those whose
// queue is full.
func (b *Bus[T]) Publish(m T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- m:
		default:
		}
	}
}

// Handlers offers a message to every handler, one after the other on the
// caller's goroutine in the order they were added, and reports whether one
// took it: for a message someone must act on (an approval a dialog shows),
// not a hint. The zero value has none; safe for concurrent use.
type Handlers[T any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(T) bool
}

// Add adds fn, which handles a message and reports whether it did. The
// returned function removes it.
func (hs *Handlers[T]) Add(fn func(T) bool) (remove func()) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.fns == nil {
		hs.fns = map[int]func(T) bool{}
	}
	id := hs.next
	hs.next++
	hs.fns[id] = fn
	return func() {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		delete(hs.fns, id)
	}
}

// Offer offers the message m makes to every handler and reports whether
// one took it. m is called once, and only when there is a handler; the
// handlers are called without the lock held, so one may add or remove
// handlers.
func (hs *Handlers[T]) Offer(m func() T) bool {
	hs.mu.Lock()
	fns := make([]func(T) bool, 0, len(hs.fns))
	for _, id := range slices.Sorted(maps.Keys(hs.fns)) {
		fns = append(fns, hs.fns[id])
	}
	hs.mu.Unlock()
	if len(fns) == 0 {
		return false
	}
	msg := m()
	took := false
	for _, fn := range fns {
		if fn(msg) {
			took = true
		}
	}
	return took
}
