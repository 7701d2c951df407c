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
	p, err := h.db.Prune(ctx, h.Config().Retention.storeRetention(), h.now())
	if err != nil {
		return p, fmt.Errorf("applying retention: %w", err)
	}
	if p.Runs > 0 {
		h.log.Info("retention deleted finished runs", "runs", p.Runs, "bytes", p.Bytes, "kept", p.Kept, "fileBefore", p.FileBefore, "fileAfter", p.FileAfter)
		h.events.publish(Event{Kind: EventRun})
	}
	return p, nil
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
