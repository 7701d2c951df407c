//go:build !headless

package ui

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
)

// AppID is the application identifier, shared with FyneApp.toml and packaging.
const AppID = "sh.capabilities.hub"

// Limits of what the UI loads from the hub.
const (
	loadRuns    = 50
	loadHistory = 200
)

// Run runs the Fyne app on the calling goroutine (must be the main goroutine)
// until Quit or ctx ends.
//
// It shows the tray icon when the desktop has a tray (otherwise it logs
// "no system tray available: ..." once and runs without one), raises the
// approval dialog whenever a call starts waiting, and keeps the main window,
// opened from the tray, current. Hub methods are called from one goroutine
// that Run owns and stops before it returns; events reach widgets through
// fyne.Do. Run returns nil when the app stops, whether by Quit or ctx.
func Run(ctx context.Context, h Hub, opts Options) error {
	a := app.NewWithID(AppID)
	a.SetIcon(appIcon)

	withTray := false
	if _, ok := a.(desktop.App); ok {
		if err := TrayAvailable(); err != nil {
			opts.logf("no system tray available: %v", err)
		} else {
			withTray = true
		}
	}
	c := newController(a, h, opts, withTray)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	unsubscribe := h.Subscribe(c.post)
	var wg sync.WaitGroup
	wg.Go(func() { c.loop(ctx) })
	stopped := make(chan struct{})
	wg.Go(func() {
		select {
		case <-ctx.Done():
			fyne.Do(a.Quit)
		case <-stopped:
		}
	})
	a.Run()
	close(stopped)
	cancel()
	unsubscribe()
	wg.Wait()
	return nil
}

// snapshot is what the UI knows of the hub after one load.
type snapshot struct {
	pending        []Approval
	status         Status
	runs           []RunSummary
	history        []DecisionRecord
	policies       []PolicyRule
	changed        []ToolChange
	configDir      string
	autostart      bool
	autostartKnown bool
}

// controller connects the hub to the windows and the tray. Hub events and
// hub actions queue up (post, enqueue, never blocking) and are handled by
// step, on the controller's goroutine (loop) in the app, directly in tests.
type controller struct {
	app  fyne.App
	hub  Hub
	opts Options
	now  func() time.Time

	dialog *approvalDialog
	main   *mainWindow
	tray   *tray // nil without a system tray

	mu     sync.Mutex
	jobs   []func()
	events []Event
	loaded bool
	wake   chan struct{}
}

func newController(a fyne.App, h Hub, opts Options, withTray bool) *controller {
	c := &controller{app: a, hub: h, opts: opts, now: time.Now, wake: make(chan struct{}, 1)}
	now := func() time.Time { return c.now() }
	c.dialog = newApprovalDialog(a, c.decide, now)
	c.main = newMainWindow(a, actions{
		review: c.review,
		setSecret: func(source, conn, secret string, done func(error)) {
			c.act(func() error { return h.SetSecret(source, conn, secret) }, done)
		},
		acceptTool: func(address string, done func(error)) {
			c.act(func() error { return h.AcceptTool(address) }, done)
		},
		setPolicy: func(pattern, mode string, done func(error)) {
			c.act(func() error { return h.SetPolicy(pattern, mode) }, done)
		},
	}, now)
	if da, ok := a.(desktop.App); ok && withTray {
		c.tray = &tray{app: da, do: c.menuAction}
	}
	return c
}

// post queues a hub event. It is the Subscribe callback: it never blocks.
func (c *controller) post(ev Event) {
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
	c.signal()
}

// enqueue queues work that calls the hub. It never blocks.
func (c *controller) enqueue(job func()) {
	c.mu.Lock()
	c.jobs = append(c.jobs, job)
	c.mu.Unlock()
	c.signal()
}

func (c *controller) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// act runs a hub action off the main goroutine, then reports its error to
// done on the main goroutine (or logs it when done is nil).
func (c *controller) act(fn func() error, done func(error)) {
	c.enqueue(func() {
		err := fn()
		if err != nil {
			c.opts.logf("ui: %v", err)
		}
		if done != nil {
			fyne.Do(func() { done(err) })
		}
	})
}

// decide hands a decision from the dialog to the hub.
func (c *controller) decide(id string, d Decision) {
	c.enqueue(func() {
		err := c.hub.Decide(id, d)
		if err != nil {
			c.opts.logf("ui: deciding %s: %v", id, err)
		}
		fyne.Do(func() { c.dialog.decided(id, err) })
	})
}

// loop runs step whenever events or jobs arrive, and ticks the dialog's
// countdown, until ctx ends.
func (c *controller) loop(ctx context.Context) {
	c.step()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
			c.step()
		case <-t.C:
			fyne.Do(c.dialog.tick)
		}
	}
}

// step runs the queued jobs, then reloads the hub's state and shows it when
// anything happened (or on the first call).
func (c *controller) step() {
	c.mu.Lock()
	jobs, events, first := c.jobs, c.events, !c.loaded
	c.jobs, c.events, c.loaded = nil, nil, true
	c.mu.Unlock()
	for _, job := range jobs {
		job()
	}
	if !first && len(jobs) == 0 && len(events) == 0 {
		return
	}
	raise := first
	var decided, expiredIDs []string
	for _, ev := range events {
		switch ev.Kind {
		case EventApprovalAdded:
			raise = true
		case EventApprovalDecided:
			decided = append(decided, ev.ID)
		case EventApprovalExpired:
			expiredIDs = append(expiredIDs, ev.ID)
		}
	}
	s := c.load()
	fyne.Do(func() { c.apply(s, decided, expiredIDs, raise) })
}

// load reads everything the UI shows from the hub.
func (c *controller) load() snapshot {
	h := c.hub
	s := snapshot{
		pending:   h.Pending(),
		status:    h.Status(),
		runs:      h.Runs(loadRuns),
		history:   h.History(loadHistory),
		policies:  h.Policies(),
		changed:   h.ChangedTools(),
		configDir: h.ConfigDir(),
	}
	if c.opts.Autostart != nil && c.opts.AutostartEnabled != nil {
		s.autostart, s.autostartKnown = c.opts.AutostartEnabled(), true
	}
	return s
}

// apply shows a snapshot; it runs on the main goroutine.
func (c *controller) apply(s snapshot, decided, expiredIDs []string, raise bool) {
	for _, id := range decided {
		c.dialog.decidedElsewhere(id)
	}
	for _, id := range expiredIDs {
		c.dialog.expire(id)
	}
	c.dialog.setPending(s.pending, raise && len(s.pending) > 0)
	c.main.update(s)
	if c.tray != nil {
		c.tray.update(s, c.now())
	}
}

// review opens the dialog on one waiting call.
func (c *controller) review(id string) {
	d := c.dialog
	for i, it := range d.items {
		if it.a.ID == id {
			d.cur = i
		}
	}
	d.refresh()
	if len(d.items) > 0 {
		d.show()
	}
}

// menuAction runs a tray menu action; it runs on the main goroutine.
func (c *controller) menuAction(action string) {
	switch {
	case action == actQueue:
		if len(c.dialog.items) > 0 {
			c.dialog.show()
		} else {
			c.main.show(tabApprovals)
		}
	case strings.HasPrefix(action, actRun):
		c.main.showRun(strings.TrimPrefix(action, actRun))
	case action == actRuns:
		c.main.show(tabRuns)
	case action == actSources:
		c.main.show(tabSources)
	case action == actWindow:
		c.main.show("")
	case action == actPause:
		paused := c.main.snap.status.Paused
		c.act(func() error { return c.hub.SetPaused(!paused) }, nil)
	case action == actConfig:
		dir := c.main.snap.configDir
		if err := c.app.OpenURL(&url.URL{Scheme: "file", Path: dir}); err != nil {
			c.opts.logf("ui: opening %s: %v", dir, err)
		}
	case action == actAutostart:
		if c.opts.Autostart != nil {
			on := !c.main.snap.autostart
			c.act(func() error { return c.opts.Autostart(on) }, nil)
		}
	case action == actQuit:
		if c.opts.OnQuit != nil {
			c.opts.OnQuit()
		}
		c.app.Quit()
	}
}
