package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
)

// ServeWorker runs the worker side of the pool protocol on in and out
// (a worker process's stdin and stdout): it announces itself ready, then
// serves runs one at a time until in reaches EOF or ctx is done. It is what
// the hidden worker subcommand of the binary calls; nothing else should
// write to out while it runs.
func ServeWorker(ctx context.Context, in io.Reader, out io.Writer) error {
	if _, err := loadEngine(); err != nil {
		return err
	}
	c := newConn(in, out)
	w := &workerSide{conn: c, pending: map[int]chan message{}, runs: make(chan Request)}
	if err := c.send(message{T: msgReady}); err != nil {
		return fmt.Errorf("announcing worker: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	readErr := make(chan error, 1)
	go func() { readErr <- w.read(ctx) }() // exits on EOF or a read error
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case req := <-w.runs:
			debug.SetMemoryLimit(2*req.Limits.MemoryBytes + 64<<20)
			runCtx, stop := context.WithCancel(ctx)
			w.setCancel(stop)
			req.Host = w
			o := execute(runCtx, req)
			w.setCancel(nil)
			stop()
			if err := c.send(message{T: msgOutcome, Outcome: &o}); err != nil {
				return fmt.Errorf("sending outcome: %w", err)
			}
		}
	}
}

// workerSide is the worker's Host: every call goes to the parent.
type workerSide struct {
	conn *conn
	runs chan Request

	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	cancel  context.CancelFunc // of the run in progress
}

func (w *workerSide) setCancel(f context.CancelFunc) {
	w.mu.Lock()
	w.cancel = f
	w.mu.Unlock()
}

// read dispatches the parent's messages until in ends.
func (w *workerSide) read(ctx context.Context) error {
	for {
		m, err := w.conn.recv()
		if err != nil {
			w.mu.Lock()
			if w.cancel != nil {
				w.cancel()
			}
			w.mu.Unlock()
			return err
		}
		switch m.T {
		case msgRun:
			if m.Run == nil {
				return errors.New("run message without a request")
			}
			select {
			case w.runs <- *m.Run:
			case <-ctx.Done():
				return ctx.Err()
			}
		case msgAnswer:
			w.mu.Lock()
			ch := w.pending[m.ID]
			delete(w.pending, m.ID)
			w.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case msgCancel:
			w.mu.Lock()
			if w.cancel != nil {
				w.cancel()
			}
			w.mu.Unlock()
		}
	}
}

func (w *workerSide) ask(ctx context.Context, m message) (message, error) {
	ch := make(chan message, 1)
	w.mu.Lock()
	w.nextID++
	m.ID = w.nextID
	w.pending[m.ID] = ch
	w.mu.Unlock()
	if err := w.conn.send(m); err != nil {
		return message{}, err
	}
	select {
	case a := <-ch:
		if a.Err != nil {
			return a, a.Err.err()
		}
		return a, nil
	case <-ctx.Done():
		w.mu.Lock()
		delete(w.pending, m.ID)
		w.mu.Unlock()
		return message{}, ctx.Err()
	}
}

func (w *workerSide) Call(ctx context.Context, c Call) (json.RawMessage, error) {
	a, err := w.ask(ctx, message{T: msgCall, Call: &c})
	return a.Result, err
}

func (w *workerSide) Search(ctx context.Context, q string) (string, error) {
	a, err := w.ask(ctx, message{T: msgSearch, Text: q})
	return a.Text, err
}

func (w *workerSide) Describe(ctx context.Context, t string) (string, error) {
	a, err := w.ask(ctx, message{T: msgDescribe, Text: t})
	return a.Text, err
}
