package hub

import "sync"

// Event kinds the hub publishes.
const (
	EventApprovalAdded   = "approval_added"
	EventApprovalDecided = "approval_decided"
	EventApprovalExpired = "approval_expired"
	EventRun             = "run"
	EventSource          = "source"
	EventCatalog         = "catalog"
	EventConfig          = "config"
	EventPaused          = "paused"
)

// Event tells subscribers that something changed; they read the details
// through the hub's API. ID is the approval, run or source concerned.
type Event struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
}

// eventBus delivers events to subscribers. publish never blocks on a
// subscriber: each has a buffered queue drained by its own goroutine, and a
// subscriber that falls far behind loses events rather than stalling the
// hub (events are hints to re-read state, so a lost one is repaired by the
// next).
type eventBus struct {
	mu   sync.Mutex
	subs map[int]chan Event
	next int
}

// Subscribe calls fn for each event, on a goroutine of its own, until cancel
// is called. cancel waits for fn's goroutine to finish.
func (h *Hub) Subscribe(fn func(Event)) (cancel func()) {
	return h.events.subscribe(fn)
}

func (b *eventBus) subscribe(fn func(Event)) func() {
	ch := make(chan Event, 256)
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[int]chan Event{}
	}
	id := b.next
	b.next++
	b.subs[id] = ch
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			fn(ev)
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

func (b *eventBus) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range b.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}
