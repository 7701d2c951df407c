// Package onewrite is one write that several goroutines may begin, done
// once, in the background or on the caller's goroutine, that any of them
// can wait for. The hub stores a fresh run's row with it: the run's first
// call begins the write in the background and goes on to send its request,
// and every write that refers to the run waits for the row first.
package onewrite

import "sync"

// Write is a write done once. The zero value is ready. Begin and Wait are
// safe for concurrent use. A goroutine Begin starts ends when the write
// function returns; its owner waits for it (Wait) before it lets go of
// what the write reads.
type Write struct {
	once sync.Once
	done chan struct{} // closed when the write returned; set by the first Begin
	err  error         // what the write returned; read after done
}

// Begin runs write, unless a write was begun before: in the background
// when async, else before it returns. It reports whether this call began
// the write.
func (w *Write) Begin(write func() error, async bool) bool {
	began := false
	w.once.Do(func() {
		began = true
		w.done = make(chan struct{})
		if !async {
			w.err = write()
			close(w.done)
			return
		}
		go func() {
			defer close(w.done)
			w.err = write()
		}()
	})
	return began
}

// Wait returns once the write begun has returned, with its error. It must
// follow a Begin.
func (w *Write) Wait() error {
	<-w.done
	return w.err
}
