// Package pubsub delivers messages to subscribers without ever blocking
// the publisher: each subscriber has a buffered queue drained by its own
// goroutine, and one that falls far behind loses messages rather than
// stalling the one who publishes. It suits messages that are hints to
// re-read state, where a lost one is repaired by the next; the hub's
// events to the tray and window are such hints.
package pubsub

import "sync"

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
