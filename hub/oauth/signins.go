package oauth

import (
	"context"
	"sync"
)

// SignIns are the sign-ins a hub runs, one per connection at a time. The
// zero value is ready.
type SignIns struct {
	mu      sync.Mutex
	running map[connKey]*SignInRun
}

// connKey names a connection of a source.
type connKey struct{ source, conn string }

// SignInRun is one running sign-in, from Begin to End.
type SignInRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	// offered: the hub started it for a waiting run (Begin without
	// replace), not the person from the window or tray.
	offered bool
}

// Begin registers a sign-in of connection conn of source, returning it
// with a context that End cancels. With replace, a running one is
// cancelled and waited for; without, a running one wins and Begin returns
// nil.
func (si *SignIns) Begin(ctx context.Context, source, conn string, replace bool) (*SignInRun, context.Context) {
	k := connKey{source, conn}
	for {
		si.mu.Lock()
		if si.running == nil {
			si.running = map[connKey]*SignInRun{}
		}
		cur := si.running[k]
		if cur == nil {
			ctx, cancel := context.WithCancel(ctx)
			run := &SignInRun{cancel: cancel, done: make(chan struct{}), offered: !replace}
			si.running[k] = run
			si.mu.Unlock()
			return run, ctx
		}
		si.mu.Unlock()
		if !replace {
			return nil, nil
		}
		cur.cancel()
		<-cur.done
	}
}

// EndOffered ends a sign-in of connection conn of source the hub offered
// for a waiting run (one begun without replace), and waits until it ended
// or ctx did. A sign-in the person started stays.
func (si *SignIns) EndOffered(ctx context.Context, source, conn string) {
	si.mu.Lock()
	run := si.running[connKey{source, conn}]
	si.mu.Unlock()
	if run == nil || !run.offered {
		return
	}
	run.cancel()
	select {
	case <-run.done:
	case <-ctx.Done():
	}
}

// End ends run, the sign-in of connection conn of source that Begin
// returned: it cancels its context and lets a Begin waiting on it go on.
func (si *SignIns) End(source, conn string, run *SignInRun) {
	k := connKey{source, conn}
	si.mu.Lock()
	if si.running[k] == run {
		delete(si.running, k)
	}
	si.mu.Unlock()
	run.cancel()
	close(run.done)
}

// Running reports whether a sign-in of connection conn of source runs.
func (si *SignIns) Running(source, conn string) bool {
	si.mu.Lock()
	defer si.mu.Unlock()
	_, ok := si.running[connKey{source, conn}]
	return ok
}
