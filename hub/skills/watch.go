package skills

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// skillWatch tells the skill registry when its local folders changed: it
// watches each root and every folder inside each skill, and marks the
// registry's local skills stale at any event (a file written, created,
// removed, renamed or chmod'ed). A root that does not exist is looked for
// again on each check (one stat), and read once it appears.
//
// Concurrency: the registry's lock guards changed and begin; run is the
// one goroutine that reads events, owned by the registry and ended with
// its context.
type skillWatch struct {
	w       *fsnotify.Watcher // nil: the folders cannot be watched
	stale   atomic.Bool       // an event came since begin
	roots   []string          // of the last begin
	missing []string          // roots that were missing at the last begin
	log     *slog.Logger
}

// newSkillWatch starts watching, or returns a watch that is off when the
// system refuses (the registry then compares stamps on each call).
func (r *Registry) newSkillWatch(ctx context.Context) *skillWatch {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		r.log.Warn("the skill folders cannot be watched; they are compared on each search", "err", err)
		return &skillWatch{}
	}
	sw := &skillWatch{w: w, log: r.log}
	sw.stale.Store(true)
	r.goBackground(func() { sw.run(ctx) })
	return sw
}

func (sw *skillWatch) on() bool { return sw != nil && sw.w != nil }

// markStale has the next check read the folders again.
func (sw *skillWatch) markStale() {
	if sw != nil {
		sw.stale.Store(true)
	}
}

func (sw *skillWatch) run(ctx context.Context) {
	defer sw.w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-sw.w.Events:
			if !ok {
				return
			}
			sw.stale.Store(true)
		case err, ok := <-sw.w.Errors:
			if !ok {
				return
			}
			// An overflow, or a watch that failed: read everything again.
			sw.log.Debug("watching the skill folders", "err", err)
			sw.stale.Store(true)
		}
	}
}

// changed reports whether the local skills must be read again for roots.
func (sw *skillWatch) changed(roots []string) bool {
	if sw.stale.Load() || !slices.Equal(roots, sw.roots) {
		return true
	}
	for _, r := range sw.missing {
		if _, err := os.Stat(r); err == nil {
			return true
		}
	}
	return false
}

// begin watches roots and every folder of their skills before they are
// read, so any change from now on marks them stale; watches of folders no
// longer under roots are dropped.
func (sw *skillWatch) begin(roots []string) {
	sw.stale.Store(false)
	sw.roots = slices.Clone(roots)
	sw.missing = sw.missing[:0]
	want := map[string]bool{}
	add := func(dir string) {
		if want[dir] {
			return
		}
		want[dir] = true
		if err := sw.w.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// Out of watches, most likely: this folder's changes would go
			// unseen, so the next check reads everything again.
			sw.log.Warn("watching a skill folder failed", "dir", dir, "err", err)
			sw.stale.Store(true)
		}
	}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				sw.missing = append(sw.missing, root)
			}
			continue
		}
		add(root)
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			add(dir) // a linked skill folder too
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					add(p)
				}
				return nil
			})
		}
	}
	for _, dir := range sw.w.WatchList() {
		if !want[dir] {
			sw.w.Remove(dir)
		}
	}
}
