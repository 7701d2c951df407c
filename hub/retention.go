package hub

// Retention and the home's file modes.
//
// Runs and their journals are kept for a while after they end, so a resume,
// `hub runs` and the window can show them, and then deleted: config.json's
// "retention" bounds them by age and by size, and the store vacuums the
// space back. Runs that wait for a person are kept until their inputs
// expire.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/store"
)

// Retention is config.json's "retention": how long finished runs, with
// their journals and pending inputs, are kept.
type Retention struct {
	// MaxAgeDays deletes finished runs last updated longer ago (default 30).
	MaxAgeDays float64 `json:"maxAgeDays,omitempty"`
	// MaxSizeMB keeps the newest finished runs whose stored size, with
	// the runs still waiting, fits in this many MiB; older ones are deleted
	// (default 256).
	MaxSizeMB float64 `json:"maxSizeMB,omitempty"`
}

// Retention defaults, and how often the hub applies it.
const (
	DefaultRetentionDays   = 30
	DefaultRetentionSizeMB = 256
	retentionEvery         = time.Hour
)

var retentionKeys = []string{"maxAgeDays", "maxSizeMB"}

// IsZero reports a retention with nothing set (every default).
func (r Retention) IsZero() bool { return r == Retention{} }

// storeRetention is r with its defaults, for the store.
func (r Retention) storeRetention() store.Retention {
	days, mb := r.MaxAgeDays, r.MaxSizeMB
	if days <= 0 {
		days = DefaultRetentionDays
	}
	if mb <= 0 {
		mb = DefaultRetentionSizeMB
	}
	return store.Retention{
		MaxAge:   time.Duration(days * float64(24*time.Hour)),
		MaxBytes: int64(mb * (1 << 20)),
		Finished: []string{StatusCompleted, StatusFailed, StatusCancelled},
	}
}

// parseRetention reads the "retention" object; problems go to add.
func parseRetention(raw json.RawMessage, add func(string, string, ...any)) Retention {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		add("retention", `must be an object such as {"maxAgeDays": %d, "maxSizeMB": %d}`, DefaultRetentionDays, DefaultRetentionSizeMB)
		return Retention{}
	}
	var r Retention
	num := func(key string, max float64, dst *float64) {
		v, ok := fields[key]
		if !ok {
			return
		}
		delete(fields, key)
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f <= 0 || f > max || math.IsNaN(f) {
			add("retention."+key, "must be a number above 0 and at most %g", max)
			return
		}
		*dst = f
	}
	num("maxAgeDays", 36500, &r.MaxAgeDays)
	num("maxSizeMB", 1<<30, &r.MaxSizeMB)
	for _, k := range sortedKeys(fields) {
		if near := nearKey(k, retentionKeys); near != "" {
			add("retention."+k, "unknown key; did you mean %q?", near)
		} else {
			add("retention."+k, "unknown key; retention takes maxAgeDays and maxSizeMB")
		}
	}
	return r
}

// Prune applies the config's retention now: finished runs beyond its age
// or size are deleted with their journals and pending inputs, and the
// database gives the space back.
func (h *Hub) Prune(ctx context.Context) (store.Pruned, error) {
	h.stored.mu.Lock()
	defer h.stored.mu.Unlock()
	return h.prune(ctx, h.Config().Retention.storeRetention())
}

// prune applies r; the caller holds h.stored.mu.
func (h *Hub) prune(ctx context.Context, r store.Retention) (store.Pruned, error) {
	p, err := h.db.Prune(ctx, r, h.now())
	if err != nil {
		return p, fmt.Errorf("applying retention: %w", err)
	}
	h.stored.used, h.stored.known = p.Kept, true
	if p.Runs > 0 {
		h.log.Info("retention deleted finished runs", "runs", p.Runs, "bytes", p.Bytes, "kept", p.Kept, "fileBefore", p.FileBefore, "fileAfter", p.FileAfter)
		h.events.publish(Event{Kind: EventRun})
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

// storeLimitWords names the limit in errors.
func storeLimitWords(max int64) string {
	return fmt.Sprintf("retention.maxSizeMB, %s", humanBytes(max))
}

// reserveStore accounts n more bytes for run r, which has stored runBytes
// so far, or says why they cannot be stored.
func (h *Hub) reserveStore(ctx context.Context, runID string, runBytes, n int64) string {
	ret := h.Config().Retention.storeRetention()
	max := ret.MaxBytes
	if share := max / runShareOfStore; runBytes+n > share {
		return fmt.Sprintf("storing %s more would take run %s to %s, above its share of the store: %s, a quarter of %s", humanBytes(n), runID, humanBytes(runBytes+n), humanBytes(share), storeLimitWords(max))
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
		return fmt.Sprintf("storing %s more would take the store to %s, above %s: the runs it holds are running or waiting for a person, and are kept", humanBytes(n), humanBytes(b.used+n), storeLimitWords(max))
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

// secureHome makes the home its owner's alone: the folder and logs/ 0700,
// config.json, the lock and the logs 0600 (the store sets its own files),
// whatever an older version or the person's umask left. The socket is made
// 0600 by Listen. Windows relies on the profile folder's ACL.
func secureHome(p Paths) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fix := func(path string, mode os.FileMode, dir bool) error {
		fi, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 || fi.IsDir() != dir || fi.Mode().Perm() == mode {
			return nil // a link is left alone: its target is not ours to change
		}
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("restricting %s to its owner: %w", path, err)
		}
		return nil
	}
	if err := fix(p.Home, 0o700, true); err != nil {
		return err
	}
	if err := fix(p.Logs(), 0o700, true); err != nil {
		return err
	}
	logs, _ := filepath.Glob(filepath.Join(p.Logs(), "*"))
	for _, f := range append([]string{p.Config(), p.Lock()}, logs...) {
		if err := fix(f, 0o600, false); err != nil {
			return err
		}
	}
	return nil
}
