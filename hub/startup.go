package hub

// The first seconds.
//
// On a home whose catalog has never listed a source (the first run, a
// newly added source), search, describe and execute wait for that source's
// first listing, about 15 seconds at most for one request, so the model's
// first answers are the same as a minute later. Sources the catalog has
// listed before (stored tools) are never waited for. After the wait each
// answer says which sources are still starting, which are down and why.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
)

// DefaultStartupWait bounds how long one search, describe or execute waits
// for sources that are being listed for the first time
// (Options.StartupWait).
const DefaultStartupWait = 15 * time.Second

type startupDeadlineKey struct{}

// withStartupDeadline makes every start-up wait under ctx end by t, so the
// waits of one request share one bound.
func withStartupDeadline(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, startupDeadlineKey{}, t)
}

func (h *Hub) startupDeadline(ctx context.Context) time.Time {
	if t, ok := ctx.Value(startupDeadlineKey{}).(time.Time); ok {
		return t
	}
	return time.Now().Add(h.startupWait)
}

// awaitSources waits until none of the named sources is being listed for
// the first time (a source the catalog has listed before, this process or
// an earlier one, is never waited for), until the request's start-up
// deadline, or until ctx ends. A source nobody lists yet is listed. With force, the named sources
// are listed again even when they were before (a secret arrived, a source
// that was down may be back). It returns the sources still being listed.
func (h *Hub) awaitSources(ctx context.Context, names []string, force bool) []string {
	if len(names) == 0 {
		return nil
	}
	deadline := h.startupDeadline(ctx)
	if kicked := h.catalog.Listings().Kick(names, force); len(kicked) > 0 {
		h.goBackground(func() {
			defer h.catalog.Listings().Release(kicked)
			h.refresh(h.bg, kicked...)
		})
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		// starting: not listed yet; waiting: of those, the ones this call
		// waits for (not those an earlier wait already gave up on).
		var starting, waiting []string
		// The channel of the first state read: a listing that ends while
		// the others are read closes it. The last one's would be the one
		// after that change, and the wait would miss it until the
		// deadline, reporting the source as still starting.
		var wake <-chan struct{}
		for i, name := range names {
			st, w := h.catalog.Listings().Get(name)
			if i == 0 {
				wake = w
			}
			if !st.Listed && (st.Queued > 0 || !st.Tried) {
				starting = append(starting, name)
				if !st.WaitedOut {
					waiting = append(waiting, name)
				}
			}
		}
		if len(waiting) == 0 {
			return starting
		}
		if timer == nil {
			d := time.Until(deadline)
			if d <= 0 {
				h.catalog.Listings().GaveUp(waiting)
				return starting
			}
			timer = time.NewTimer(d)
		}
		select {
		case <-wake:
		case <-timer.C:
			h.catalog.Listings().GaveUp(waiting)
			return starting
		case <-ctx.Done():
			return starting
		}
	}
}

// awaitFresh waits until source has been listed by this process since its
// definition last changed (so the catalog compared what it lists now with
// the pinned definitions), listing it when no listing is under way. Unlike
// the start-up wait it is not bounded by the start-up deadline: the
// listing is bounded by the source's start and call timeouts, and the wait
// by ctx. It returns whether the listing succeeded, and if not, the last
// listing's error.
//
// A hub that starts knows each source's tools from the store, so search
// and describe answer at once; but a tool may have been redefined while
// the hub was down, and a call that relies on an allow rule or on a
// person's earlier decision must be decided on what the source lists now.
func (h *Hub) awaitFresh(ctx context.Context, source string) (bool, error) {
	if h.catalog.Listings().KickFresh(source) {
		h.goBackground(func() {
			defer h.catalog.Listings().Release([]string{source})
			h.refresh(h.bg, source)
		})
	}
	for {
		st, wake := h.catalog.Listings().Get(source)
		switch {
		case st.Fresh:
			return true, nil
		case st.Queued == 0:
			err := st.Err
			if err == nil {
				err = fmt.Errorf("source %s was not listed", source)
			}
			return false, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// sourceNotes returns the notes of the named sources, one a line
// (catalog.SourceNote).
func (h *Hub) sourceNotes(names, starting []string, always bool) []string {
	var out []string
	for _, name := range names {
		ls, _ := h.catalog.Listings().Get(name)
		if n := catalog.SourceNote(name, h.Config().Sources[name], ls, h.up.State()[name], slices.Contains(starting, name), always); n != "" {
			out = append(out, n)
		}
	}
	return out
}
