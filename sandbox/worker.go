package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// ServeWorker runs the worker side of the pool protocol on in and out
// (a worker process's stdin and stdout): it warms up, then serves the
// parent's messages until in reaches EOF or ctx is done. On "prepare" it
// builds a runtime for the namespaces named and says ready; on "run" it
// runs the attempt, on the prepared runtime when it fits. A worker the
// parent retires after a run is never asked to prepare, so nothing it does
// after its outcome competes with the parent for the CPU. It is what the
// hidden worker subcommand of the binary calls; nothing else should write
// to out while it runs.
func ServeWorker(ctx context.Context, in io.Reader, out io.Writer) error {
	eng, err := loadEngine()
	if err != nil {
		return err
	}
	c := newConn(pollable(in).(io.Reader), pollable(out).(io.Writer))
	warmUp(ctx)
	var next *run    // prepared for the next run
	var clean uint64 // the live heap after the last collection asked for here
	take := func(eng *engine, nss []Namespace) (*run, error) {
		r := next
		next = nil
		if r != nil && r.fits(nss) {
			return r, nil
		}
		return newShell(eng, nss)
	}
	w := &workerSide{conn: c, pending: map[int]chan message{}, jobs: make(chan message)}
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
		case m := <-w.jobs:
			if m.T == msgPrepare {
				if next == nil || !next.fits(m.Namespaces) {
					if next, err = newShell(eng, m.Namespaces); err != nil {
						return fmt.Errorf("preparing the sandbox: %w", err)
					}
				}
				// Now, not during the run. A run's memory limit counts from
				// the live heap as of the last collection: after a run that
				// left much garbage, collect even when the parent is busy,
				// or the next run would be measured from a baseline that
				// garbage inflates.
				if _, objects := heapStats(); m.Collect || objects > clean+collectAbove {
					runtime.GC()
					clean = heapLive()
				}
				if err := c.send(message{T: msgReady}); err != nil {
					return fmt.Errorf("announcing worker: %w", err)
				}
				continue
			}
			req := *m.Run
			debug.SetMemoryLimit(2*req.Limits.MemoryBytes + 64<<20)
			runCtx, stop := context.WithCancel(ctx)
			w.setCancel(stop)
			req.Host = w
			o := execute(runCtx, req, take)
			w.setCancel(nil)
			stop()
			if err := c.send(message{T: msgOutcome, Outcome: &o}); err != nil {
				return fmt.Errorf("sending outcome: %w", err)
			}
		}
	}
}

// collectAbove is how much garbage a worker collects before its next run
// even when the parent did not ask it to.
const collectAbove = 16 << 20

// warmUp runs a small attempt end to end on a runtime of its own and
// encodes and decodes each kind of message once, so that a new worker's
// first real run does not pay for the first use of those code paths in
// this process (encoding/json builds its codec for a type on first use).
func warmUp(ctx context.Context) {
	req := Request{
		Code:       "const r = await warm.up({ n: [1, 'a'] }); console.log(r); return { r, at: new Date(), x: Math.random() }",
		Clock:      time.Now(),
		Namespaces: []Namespace{{Name: "warm", Tools: []string{"up"}}},
		Limits:     DefaultLimits(),
		Host:       echoHost{},
	}
	o := execute(ctx, req, nil)
	for _, m := range []message{
		{T: msgRun, Run: &req},
		{T: msgCall, ID: 1, Call: &Call{Seq: 1, Address: "warm.up", Args: json.RawMessage(`{}`)}},
		{T: msgAnswer, ID: 1, Result: json.RawMessage(`{}`), Err: &wireError{Tool: &ToolError{Code: "x"}}},
		{T: msgOutcome, Outcome: &o},
	} {
		b, _ := json.Marshal(m)
		var back message
		_ = json.Unmarshal(b, &back)
	}
}

// echoHost answers every tool call with its arguments.
type echoHost struct{}

func (echoHost) Call(_ context.Context, c Call) (json.RawMessage, error) { return c.Args, nil }
func (echoHost) Search(context.Context, string) (string, error)          { return "", nil }
func (echoHost) Describe(context.Context, string) (string, error)        { return "", nil }
func (echoHost) Read(context.Context, Read) (json.RawMessage, error) {
	return json.RawMessage(`""`), nil
}

// workerSide is the worker's Host: every call goes to the parent.
type workerSide struct {
	conn *conn
	jobs chan message // prepare and run, from the reader

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
		case msgRun, msgPrepare:
			if m.T == msgRun && m.Run == nil {
				return errors.New("run message without a request")
			}
			select {
			case w.jobs <- m:
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

func (w *workerSide) Read(ctx context.Context, rd Read) (json.RawMessage, error) {
	a, err := w.ask(ctx, message{T: msgRead, Read: &rd})
	return a.Result, err
}
