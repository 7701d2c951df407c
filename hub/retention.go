package hub

// Retention.
//
// Runs and their journals are kept for a while after they end, so a resume,
// `hub runs` and the window can show them, and then deleted: config.json's
// "retention" bounds them by age and by size, and the store vacuums the
// space back. Runs that wait for a person are kept until their inputs
// expire.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/store"
)

// retentionEvery is how often the hub applies retention.
const retentionEvery = time.Hour

// storeRetention is r with its defaults (config.Retention.Bounds), for the
// store.
func storeRetention(r config.Retention) store.Retention {
	maxAge, maxBytes := r.Bounds()
	return store.Retention{
		MaxAge:   maxAge,
		MaxBytes: maxBytes,
		Finished: []string{StatusCompleted, StatusFailed, StatusCancelled},
		MaxAudit: store.AuditKept,
	}
}

// Prune applies the config's retention now: finished runs beyond its age
// or size are deleted with their journals and pending inputs, and the
// database gives the space back.
func (h *Hub) Prune(ctx context.Context) (store.Pruned, error) {
	h.stored.mu.Lock()
	defer h.stored.mu.Unlock()
	return h.prune(ctx, storeRetention(h.Config().Retention))
}

// prune applies r; the caller holds h.stored.mu.
func (h *Hub) prune(ctx context.Context, r store.Retention) (store.Pruned, error) {
	p, err := h.db.Prune(ctx, r, h.now())
	if err != nil {
		return p, fmt.Errorf("applying retention: %w", err)
	}
	h.stored.used, h.stored.known = p.Kept, true
	if p.Runs+p.Audit > 0 {
		h.log.Info("retention deleted finished runs", "runs", p.Runs, "bytes", p.Bytes, "kept", p.Kept, "auditEntries", p.Audit, "fileBefore", p.FileBefore, "fileAfter", p.FileAfter)
		h.events.Publish(Event{Kind: EventRun})
	}
	return p, nil
}

// Retention within runs: what a run stores (its journal's outcomes and its
// result kept as a handle) is counted before it is written, against two
// bounds of retention.maxSizeMB. The store in total: when a write would
// take it past the budget, retention runs then and there, deleting the
// oldest finished runs down to three quarters of it; what runs are kept
// anyway (running, or waiting for a person) may not pass it. One run: its
// share, a quarter of the budget. An outcome over either is replaced by a
// store_full error, which is journaled in its place, so the run goes on
// and a resume replays the same error.
const runShareOfStore = 4

// storeBudget counts the bytes of runs the store holds: as the last prune
// found them, plus what was written since.
type storeBudget struct {
	mu    sync.Mutex
	used  int64
	known bool // used was measured by a prune
}

// add counts n bytes stored outside reserveStore (a run's row).
func (b *storeBudget) add(n int64) { b.mu.Lock(); b.used += n; b.mu.Unlock() }

// storeLimitWords names the limit in errors.
func storeLimitWords(max int64) string {
	return fmt.Sprintf("retention.maxSizeMB, %s", config.HumanBytes(max))
}

// reserveStore accounts n more bytes for run r, which has stored runBytes
// so far, or says why they cannot be stored.
func (h *Hub) reserveStore(ctx context.Context, runID string, runBytes, n int64) string {
	ret := storeRetention(h.Config().Retention)
	max := ret.MaxBytes
	if share := max / runShareOfStore; runBytes+n > share {
		return fmt.Sprintf("storing %s more would take run %s to %s, above its share of the store: %s, a quarter of %s", config.HumanBytes(n), runID, config.HumanBytes(runBytes+n), config.HumanBytes(share), storeLimitWords(max))
	}
	b := &h.stored
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.known && b.used+n <= max {
		b.used += n
		return ""
	}
	ret.MaxBytes = max*3/4 - n
	if ret.MaxBytes <= 0 {
		ret.MaxBytes = 1
	}
	if _, err := h.prune(context.WithoutCancel(ctx), ret); err != nil {
		// Keeping the outcome matters more than the budget: the next
		// write tries again.
		h.log.Warn("retention within a run failed", "run", runID, "err", err)
		return ""
	}
	if b.used+n > max {
		return fmt.Sprintf("storing %s more would take the store to %s, above %s: the runs it holds are running or waiting for a person, and are kept", config.HumanBytes(n), config.HumanBytes(b.used+n), storeLimitWords(max))
	}
	b.used += n
	return ""
}

// retentionLoop applies retention when the hub starts and every hour.
func (h *Hub) retentionLoop(ctx context.Context) {
	t := time.NewTicker(retentionEvery)
	defer t.Stop()
	for {
		if _, err := h.Prune(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("retention failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
