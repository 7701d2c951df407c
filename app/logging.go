package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/config"
)

// The hub's log: CAPABILITIES_HOME/logs/hub.log, rotated by size, and a
// copy on stderr for a person watching a terminal. A hub a client started
// has its stderr in logs/crash.log (for what the Go runtime prints when the
// process dies) and logs to the file only, so each line is written once.

const (
	logName     = "hub.log"
	crashName   = "crash.log"
	maxLogBytes = 10 << 20 // rotate hub.log past 10 MB
	keepLogs    = 3        // hub.log.1 .. hub.log.3
	// maxCrashBytes: a crash.log past 1 MB becomes crash.log.1 (the one
	// before goes) when a hub starts with it as its stderr.
	maxCrashBytes = 1 << 20
	// logStderrEnv set to "0" keeps the log off stderr.
	logStderrEnv = "CAPABILITIES_LOG_STDERR"
	// repeatWindow is how long an identical warning or error is held back
	// after it was written.
	repeatWindow = time.Minute
)

// newLogger writes to CAPABILITIES_HOME/logs/hub.log and, unless
// CAPABILITIES_LOG_STDERR=0, to stderr; repeated warnings and errors are
// rate-limited.
func newLogger(e *env, level slog.Level) (*slog.Logger, func(), error) {
	paths := config.Paths{Home: e.home()}
	f, err := openRotating(filepath.Join(paths.Logs(), logName), maxLogBytes, keepLogs)
	if err != nil {
		return nil, nil, err
	}
	var w io.Writer = f
	if e.Getenv(logStderrEnv) != "0" {
		w = io.MultiWriter(e.Stderr, f)
	}
	h := newRepeatLimiter(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}), repeatWindow)
	return slog.New(h), func() { f.Close() }, nil
}

// openCrashLog opens logs/crash.log for a detached hub's stdout and
// stderr, which the hub's process writes itself, so it cannot rotate as
// hub.log does: a file past max is renamed to path.1 first, so the two
// hold what the last starts left and no more.
func openCrashLog(path string, max int64) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > max {
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}

// rotatingFile is an append-only log file that, once a write would take it
// past max bytes, is renamed to path.1 (path.1 to path.2, and so on, keeping
// keep files) and started afresh. Safe for concurrent use.
type rotatingFile struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File
	size int64
}

func openRotating(path string, max int64, keep int) (*rotatingFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	r := &rotatingFile{path: path, max: max, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, fi.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			// Keep logging into the full file rather than lose lines.
			fmt.Fprintf(r.f, "log rotation failed: %v\n", err)
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts path.N-1 to path.N, path to path.1, and opens a new path.
func (r *rotatingFile) rotate() error {
	r.f.Close()
	r.f = nil
	for i := r.keep - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", r.path, i), fmt.Sprintf("%s.%d", r.path, i+1))
	}
	rerr := os.Rename(r.path, r.path+".1")
	if err := r.open(); err != nil {
		return err
	}
	return rerr
}

func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// repeatLimiter passes every record, except that a warning or error equal
// to one written less than window ago (same level, message and attributes)
// is held back and counted; the first one after the window carries
// repeated=N, the number held back. Handlers derived with WithAttrs and
// WithGroup share the count.
type repeatLimiter struct {
	next   slog.Handler
	window time.Duration
	prefix string // attributes and groups added by WithAttrs/WithGroup
	seen   *repeatState
}

type repeatState struct {
	mu   sync.Mutex
	last map[string]*repeatEntry
}

type repeatEntry struct {
	at      time.Time
	dropped int
}

func newRepeatLimiter(next slog.Handler, window time.Duration) *repeatLimiter {
	return &repeatLimiter{next: next, window: window, seen: &repeatState{last: map[string]*repeatEntry{}}}
}

func (l *repeatLimiter) Enabled(ctx context.Context, level slog.Level) bool {
	return l.next.Enabled(ctx, level)
}

func (l *repeatLimiter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return l.next.Handle(ctx, r)
	}
	var key strings.Builder
	fmt.Fprintf(&key, "%s\x00%s\x00%s", l.prefix, r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&key, "\x00%s=%s", a.Key, a.Value)
		return true
	})
	now := time.Now()
	l.seen.mu.Lock()
	e := l.seen.last[key.String()]
	if e != nil && now.Sub(e.at) < l.window {
		e.dropped++
		l.seen.mu.Unlock()
		return nil
	}
	dropped := 0
	if e != nil {
		dropped = e.dropped
	}
	if len(l.seen.last) > 1000 {
		// Old keys are only worth their counts; start over rather than grow.
		clear(l.seen.last)
	}
	l.seen.last[key.String()] = &repeatEntry{at: now}
	l.seen.mu.Unlock()
	if dropped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("repeated", dropped))
	}
	return l.next.Handle(ctx, r)
}

func (l *repeatLimiter) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *l
	c.next = l.next.WithAttrs(attrs)
	c.prefix = fmt.Sprintf("%s%v", l.prefix, attrs)
	return &c
}

func (l *repeatLimiter) WithGroup(name string) slog.Handler {
	c := *l
	c.next = l.next.WithGroup(name)
	c.prefix = l.prefix + "/" + name
	return &c
}

// cliLog is the log of a hub a CLI command runs in its own process: its
// warnings and errors reach the person as lines of the command's output,
// "warning: MESSAGE (key value, ...): DETAIL", not as log records. Short
// one-word attributes name what the line is about; longer ones (an error,
// a problem) are its detail.
func cliLog(w io.Writer) *slog.Logger {
	return slog.New(&cliHandler{w: w, mu: &sync.Mutex{}})
}

type cliHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	attrs []slog.Attr
}

func (h *cliHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *cliHandler) Handle(_ context.Context, r slog.Record) error {
	var about, detail []string
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		switch {
		case v == "":
		case len(v) <= 40 && !strings.ContainsAny(v, " \t\n"):
			about = append(about, a.Key+" "+v)
		default:
			detail = append(detail, v)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	var b strings.Builder
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	if len(about) > 0 {
		b.WriteString(" (" + strings.Join(about, ", ") + ")")
	}
	if len(detail) > 0 {
		b.WriteString(": " + strings.Join(detail, "; "))
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *cliHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(slices.Clip(h.attrs), attrs...)
	return &c
}

// WithGroup keeps the attributes flat: a line for a person has no groups.
func (h *cliHandler) WithGroup(string) slog.Handler { return h }
