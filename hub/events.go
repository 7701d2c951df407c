package hub

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

// Subscribe calls fn for each event, on a goroutine of its own, until cancel
// is called. cancel waits for fn's goroutine to finish. Events are hints
// to re-read state: a subscriber that falls far behind loses some rather
// than stalling the hub (internal/pubsub).
func (h *Hub) Subscribe(fn func(Event)) (cancel func()) {
	return h.events.Subscribe(fn)
}
