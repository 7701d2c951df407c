// Package quietlog is a slog.Handler that says the same warning once: a
// repeat (same subject, message and words) is written at DEBUG, so a log
// shows a source's problem when it starts, not again on every reload,
// refresh or restart that finds it unchanged.
package quietlog

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"sync"
)

// Handler is a slog.Handler that writes a warning again at DEBUG when it
// already warned about the same subject in the same words: a config
// reload, a refresh or a restart that finds a source's problem unchanged
// (a secret still missing, a name still refused) says nothing new, so it
// does not warn again. The subject is the record's "source" attribute, else
// its "key" (a config key). A changed problem warns; so does the same
// problem after Forget, which the hub calls when a source lists its tools
// again. Records below WARN pass as they are.
//
// Concurrency: safe for concurrent use; the handlers WithAttrs and
// WithGroup return share what was warned.
type Handler struct {
	next  slog.Handler
	attrs []slog.Attr // from WithAttrs, outside any group
	group bool        // a group was opened: later attributes are not the subject
	st    *repeatState
}

type repeatState struct {
	mu   sync.Mutex
	seed maphash.Seed
	// last holds, by subject and message, a hash of the words of the last
	// warning written: hashes, so that no error text is kept.
	last map[string]map[string]uint64
}

// New returns a Handler that writes to next.
func New(next slog.Handler) *Handler {
	return &Handler{next: next, st: &repeatState{seed: maphash.MakeSeed(), last: map[string]map[string]uint64{}}}
}

func (q *Handler) Enabled(ctx context.Context, l slog.Level) bool { return q.next.Enabled(ctx, l) }

func (q *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return q.next.Handle(ctx, r)
	}
	subject := ""
	var words strings.Builder
	add := func(a slog.Attr, top bool) {
		fmt.Fprintf(&words, "%s=%v\x00", a.Key, a.Value.Resolve())
		if top && (a.Key == "source" || (a.Key == "key" && subject == "")) {
			subject = a.Value.Resolve().String()
		}
	}
	for _, a := range q.attrs {
		add(a, true)
	}
	r.Attrs(func(a slog.Attr) bool {
		add(a, !q.group)
		return true
	})
	sum := maphash.String(q.st.seed, words.String())
	q.st.mu.Lock()
	bySubject := q.st.last[subject]
	if bySubject == nil {
		bySubject = map[string]uint64{}
		q.st.last[subject] = bySubject
	}
	prev, seen := bySubject[r.Message]
	bySubject[r.Message] = sum
	q.st.mu.Unlock()
	if seen && prev == sum {
		if !q.next.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r = r.Clone()
		r.Level = slog.LevelDebug
	}
	return q.next.Handle(ctx, r)
}

func (q *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *q
	c.next = q.next.WithAttrs(as)
	if !q.group {
		c.attrs = append(append([]slog.Attr(nil), q.attrs...), as...)
	}
	return &c
}

func (q *Handler) WithGroup(name string) slog.Handler {
	c := *q
	c.next = q.next.WithGroup(name)
	c.group = true
	return &c
}

// Forget makes the next warning about subject (a source) warn, whatever
// its words: the source's problem went away.
func (q *Handler) Forget(subject string) {
	q.st.mu.Lock()
	delete(q.st.last, subject)
	q.st.mu.Unlock()
}
