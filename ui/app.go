//go:build !headless

package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"
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
// once that there is none and how to open the window), raises the approval
// dialog and sends a desktop notification whenever a call starts waiting,
// and keeps the main window, opened from the tray or through opts.Show,
// current. Hub methods are called from one goroutine that Run owns; it is
// stopped and waited for on the main goroutine before the app quits, so no
// widget is touched once the windows are gone. Run returns nil when the app
// stops, whether by Quit or ctx.
func Run(ctx context.Context, h Hub, opts Options) error {
	a := app.NewWithID(AppID)
	a.SetIcon(appIcon)

	withTray := false
	if _, ok := a.(desktop.App); ok {
		if err := TrayAvailable(); err != nil {
			opts.logf("%s", noTrayMessage(err))
		} else {
			withTray = true
		}
	}
	c := newController(a, h, opts, withTray)
	if c.tray != nil {
		c.tray.tooltip = systray.SetTooltip
		// Fyne starts its system tray only when the menu is set before Run.
		c.tray.update(snapshot{}, c.now())
	}

	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	c.stopped = func() bool { return loopCtx.Err() != nil }
	unsubscribe := h.Subscribe(c.post)
	defer unsubscribe()
	if opts.WatchConnected != nil {
		defer opts.WatchConnected(func() { c.post(Event{Kind: EventClients}) })()
	}
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		c.loop(loopCtx)
	}()
	var once sync.Once
	c.quit = func() {
		once.Do(func() {
			stopLoop()
			<-loopDone
			// Not a.Quit: it closes every window first, and a pointer
			// event GLFW then delivers to a closing window whose cursor
			// changes dereferences its nil viewport (Fyne 2.7.1,
			// processMouseMoved). The windows go with the driver.
			c.dialog.hide()
			c.main.win.Hide()
			a.Driver().Quit()
		})
	}
	stopped := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-ctx.Done():
			fyne.Do(c.quit)
		case <-stopped:
		}
	}()
	a.Run()
	close(stopped)
	stopLoop()
	<-loopDone
	<-watchDone
	return nil
}

// noTrayMessage says, once, that there is no tray icon and how to reach
// the window without one.
func noTrayMessage(err error) string {
	return fmt.Sprintf("no system tray (%v): the hub runs without an icon; open its window with 'capabilities hub open'", err)
}

// snapshot is what the UI knows of the hub after one load.
type snapshot struct {
	loaded         bool     // false before the first load
	errs           []string // what the hub failed to answer, in words
	pending        []Approval
	status         Status
	runs           []RunSummary
	history        []DecisionRecord
	policies       []PolicyRule
	changed        []ToolChange
	configDir      string
	logFile        string
	autostart      bool
	autostartKnown bool
	canImport      bool // Options.FirstRun is set: an import offer can be taken up
	connected      []ConnectedClient
	connectedKnown bool // Options.Connected is set
}

// controller connects the hub to the windows and the tray. Hub events and
// hub actions queue up (post, enqueue, never blocking) and are handled by
// step, on the controller's goroutine (loop) in the app, directly in tests.
type controller struct {
	app  fyne.App
	hub  Hub
	opts Options
	now  func() time.Time

	dialog   *approvalDialog
	main     *mainWindow
	firstRun *firstRunWindow // the open first-run window, main goroutine only
	tray     *tray           // nil without a system tray
	notify   func(*fyne.Notification)

	// quit stops the controller's goroutine, then the app (main goroutine);
	// nil in tests. stopped reports that widgets must no longer be touched.
	quit    func()
	stopped func() bool

	last     snapshot        // the last load, on the controller's goroutine
	notified map[string]bool // approvals a notification was sent for

	mu     sync.Mutex
	jobs   []func()
	events []Event
	loaded bool
	wake   chan struct{}
}

func newController(a fyne.App, h Hub, opts Options, withTray bool) *controller {
	c := &controller{app: a, hub: h, opts: opts, now: time.Now, wake: make(chan struct{}, 1),
		notify: a.SendNotification, notified: map[string]bool{}}
	now := func() time.Time { return c.now() }
	c.dialog = newApprovalDialog(a, c.decide, func(source, conn, secret string, done func(error)) {
		c.act(func() error { return h.SetSecret(source, conn, secret) }, done)
	}, c.dialogSignIn, now)
	c.main = newMainWindow(a, actions{
		review: c.review,
		setSecret: func(source, conn, secret string, done func(error)) {
			c.act(func() error { return h.SetSecret(source, conn, secret) }, done)
		},
		setSecretIn: func(source, conn, name string, bearer bool, secret string, done func(error)) {
			c.act(func() error { return h.SetSecretIn(source, conn, name, bearer, secret) }, done)
		},
		secretPlace: func(source, conn string, done func(string, bool, error)) {
			c.enqueue(func() {
				where, signIn, err := h.SecretPlace(source, conn)
				c.do(func() { done(where, signIn, err) })
			})
		},
		changedDefinition: func(address string, done func(was, is, hash string, err error)) {
			c.enqueue(func() {
				was, is, hash, err := h.ChangedDefinition(address)
				c.do(func() { done(was, is, hash, err) })
			})
		},
		acceptTools: func(shown []ToolChange, done func(error)) {
			c.act(func() error { return h.AcceptTools(shown) }, done)
		},
		runCalls: func(runID string, done func([]CallSummary, error)) {
			c.enqueue(func() {
				calls, err := h.RunCalls(runID)
				c.do(func() { done(calls, err) })
			})
		},
		setPolicy: func(pattern, mode string, done func(error)) {
			c.act(func() error { return h.SetPolicy(pattern, mode) }, done)
		},
		removePolicy: func(pattern string, done func(error)) {
			c.act(func() error { return h.RemovePolicy(pattern) }, done)
		},
		connect: func(client, profile string, done func(string, error)) {
			c.enqueue(func() {
				msg, err := opts.Connect(client, profile)
				if err != nil {
					c.opts.logf("ui: connecting %s: %v", client, err)
				}
				c.do(func() { done(msg, err) })
			})
		},
		canConnect: opts.Connect != nil,
		refresh:    func() { c.enqueue(func() {}) },
		addSource: func(spec SourceSpec, done func(error)) {
			c.act(func() error { return h.AddSource(spec) }, done)
		},
		removeSource: func(name string, done func(error)) {
			c.act(func() error { return h.RemoveSource(name) }, done)
		},
		restartSource: func(name string, done func(error)) {
			c.act(func() error { return h.RestartSource(name) }, done)
		},
		setSourceEnabled: func(name string, enabled bool, done func(error)) {
			c.act(func() error { return h.SetSourceEnabled(name, enabled) }, done)
		},
		setBaseURL: func(source, baseURL string, done func(error)) {
			c.act(func() error { return h.SetBaseURL(source, baseURL) }, done)
		},
		allowOrigin: func(source, origin string, done func(error)) {
			c.act(func() error { return h.AllowOrigin(source, origin) }, done)
		},
		removeOrigin: func(source, origin string, done func(error)) {
			c.act(func() error { return h.RemoveOrigin(source, origin) }, done)
		},
		setDefaultConnection: func(source, conn string, done func(error)) {
			c.act(func() error { return h.SetDefaultConnection(source, conn) }, done)
		},
		removeConnection: func(source, conn string, done func(error)) {
			c.act(func() error { return h.RemoveConnection(source, conn) }, done)
		},
		openImport: c.openImport,
		signIn:     c.signIn,
		signOut:    c.signOut,
		setClient: func(source, conn, clientID, secret string, port int, done func(error)) {
			c.act(func() error { return h.SetOAuthClient(source, conn, clientID, secret, port) }, done)
		},
		addProfile: func(spec ProfileSpec, done func(error)) {
			c.act(func() error { return h.AddProfile(spec) }, done)
		},
		removeProfile: func(name string, done func(error)) {
			c.act(func() error { return h.RemoveProfile(name) }, done)
		},
		setSkillFolder: func(dir string, add bool, done func(error)) {
			c.act(func() error { return h.SetSkillFolder(dir, add) }, done)
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
			c.do(func() { done(err) })
		}
	})
}

// do runs f on the main goroutine, unless the app is stopping: then the
// windows may be gone and f is dropped.
func (c *controller) do(f func()) {
	if c.stopped == nil {
		fyne.Do(f)
		return
	}
	fyne.Do(func() {
		if !c.stopped() {
			f()
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
		c.do(func() { c.dialog.decided(id, err) })
	})
}

// loop runs step whenever events or jobs arrive, and ticks the dialog's
// countdown, until ctx ends.
func (c *controller) loop(ctx context.Context) {
	c.step()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	show := c.opts.Show
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
			c.step()
		case tab, ok := <-show:
			if !ok {
				show = nil
				continue
			}
			c.do(func() { c.main.show(tab) })
		case <-t.C:
			c.do(func() {
				c.dialog.tick()
				if c.tray != nil {
					c.tray.settle()
				}
			})
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
	var decided, expiredIDs, added []string
	for _, ev := range events {
		switch ev.Kind {
		case EventApprovalAdded:
			raise = true
			added = append(added, ev.ID)
		case EventApprovalDecided:
			decided = append(decided, ev.ID)
		case EventApprovalExpired:
			expiredIDs = append(expiredIDs, ev.ID)
		}
	}
	s := c.load()
	c.notifyWaiting(s.pending, added)
	c.do(func() { c.apply(s, decided, expiredIDs, raise) })
}

// notifyWaiting sends one desktop notification for the calls that started
// waiting (added) and are still pending, each call once.
func (c *controller) notifyWaiting(pending []Approval, added []string) {
	if c.notify == nil || len(added) == 0 {
		return
	}
	isNew := map[string]bool{}
	for _, id := range added {
		isNew[id] = true
	}
	var fresh []Approval
	for _, a := range pending {
		if isNew[a.ID] && !c.notified[a.ID] {
			c.notified[a.ID] = true
			fresh = append(fresh, a)
		}
	}
	if len(fresh) > 0 {
		title, body := notificationText(fresh)
		c.notify(fyne.NewNotification(title, body))
	}
}

// load reads everything the UI shows from the hub. What the hub fails to
// answer keeps its last value and is named in snapshot.errs, so a failing
// store never reads as "nothing pending".
func (c *controller) load() snapshot {
	h := c.hub
	prev := c.last
	s := snapshot{loaded: true, configDir: h.ConfigDir(), logFile: h.LogFile(), canImport: c.opts.FirstRun != nil}
	fail := func(what string, err error) bool {
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("reading %s: %v", what, err))
			return true
		}
		return false
	}
	var err error
	if s.pending, err = h.Pending(); fail("the waiting calls", err) {
		s.pending = prev.pending
	}
	if s.status, err = h.Status(); fail("the status", err) {
		s.status = prev.status
	}
	if s.runs, err = h.Runs(loadRuns); fail("the runs", err) {
		s.runs = prev.runs
	}
	if s.history, err = h.History(loadHistory); fail("the decisions", err) {
		s.history = prev.history
	}
	if s.policies, err = h.Policies(); fail("the policy", err) {
		s.policies = prev.policies
	}
	if s.changed, err = h.ChangedTools(); fail("the changed tools", err) {
		s.changed = prev.changed
	}
	if c.opts.Connected != nil {
		s.connected, s.connectedKnown = c.opts.Connected(), true
	}
	for _, e := range s.errs {
		c.opts.logf("ui: %s", e)
	}
	if c.opts.Autostart != nil && c.opts.AutostartEnabled != nil {
		s.autostart, s.autostartKnown = c.opts.AutostartEnabled(), true
	}
	c.last = s
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

// openImport opens the first-run window on the hub's import offer, or
// raises it when it is open. It runs on the main goroutine; what the
// window offers is read on the controller's.
func (c *controller) openImport() {
	if c.firstRun != nil {
		c.firstRun.win.Show()
		c.firstRun.win.RequestFocus()
		return
	}
	if c.opts.FirstRun == nil {
		return
	}
	c.enqueue(func() {
		fr, err := c.opts.FirstRun()
		if err != nil {
			c.opts.logf("ui: reading what to import: %v", err)
			return
		}
		c.do(func() {
			if c.firstRun != nil {
				return
			}
			w := newFirstRunWindow(c.app, fr)
			c.firstRun = w
			w.win.SetOnClosed(func() {
				if c.firstRun == w {
					c.firstRun = nil
				}
			})
			w.win.Show()
		})
	})
}

// signIn signs an OAuth connection in. Login waits for the person in the
// browser, so it runs on a goroutine of its own, not the controller's;
// done gets its error on the main goroutine.
func (c *controller) signIn(source, conn string, done func(error)) {
	c.signInShowing(source, conn, nil, done)
}

// signOut signs conn of source out on a goroutine of its own: the server's
// revocation may take a while, and the other actions go on meanwhile.
func (c *controller) signOut(source, conn string, done func(error)) {
	go func() {
		err := c.hub.Logout(source, conn)
		if err != nil {
			c.opts.logf("ui: signing %s/%s out: %v", source, conn, err)
		}
		c.do(func() { done(err) })
	}()
}

// signInShowing is signIn that hands the sign-in page's address to
// showURL on the main goroutine, for a person to copy when no browser
// opens it.
func (c *controller) signInShowing(source, conn string, showURL func(string), done func(error)) {
	var show func(string)
	if showURL != nil {
		show = func(url string) { c.do(func() { showURL(url) }) }
	}
	go func() {
		err := c.hub.Login(source, conn, show)
		if err != nil {
			c.opts.logf("ui: signing %s/%s in: %v", source, conn, err)
		}
		c.do(func() { done(err) })
	}()
}

// dialogSignIn is the approval dialog's sign-in. One that needs a client
// registered beforehand opens the window's Sources tab on that
// connection's client form, which the dialog has no room for, and the
// dialog says so.
func (c *controller) dialogSignIn(source, conn string, showURL func(string), done func(error)) {
	c.signInShowing(source, conn, showURL, func(err error) {
		if errors.Is(err, ErrNeedsClientCredentials) || errors.Is(err, ErrNeedsClient) {
			c.main.askClient(source, conn, err)
			c.main.renderSources()
			c.main.show(tabSources)
			err = fmt.Errorf("%s Give the client in the window's Sources tab, opened beside this dialog, under %s.", needsClientWhy(err), source)
		}
		done(err)
	})
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
	case action == actImport:
		c.openImport()
	case action == actChanges:
		c.main.showChanges()
	case strings.HasPrefix(action, actSignIn):
		if source, conn, ok := parseSignInAction(action); ok {
			c.main.show(tabSources)
			c.main.startSignIn(source, conn)
		}
	case action == actWindow:
		c.main.show("")
	case action == actPause:
		paused := c.main.snap.status.Paused
		c.act(func() error { return c.hub.SetPaused(!paused) }, nil)
	case action == actConnect:
		c.main.show(tabClients)
	case action == actConfig:
		c.openPath(c.main.snap.configDir)
	case action == actLogs:
		c.openPath(c.main.snap.logFile)
	case action == actAutostart:
		if c.opts.Autostart != nil {
			on := !c.main.snap.autostart
			c.act(func() error { return c.opts.Autostart(on) }, nil)
		}
	case action == actQuit:
		if c.opts.OnQuit != nil {
			c.opts.OnQuit()
		}
		if c.quit != nil {
			c.quit()
		} else {
			c.app.Quit()
		}
	}
}

// openPath opens a file or folder with the desktop's default application.
func (c *controller) openPath(path string) {
	if path == "" {
		return
	}
	if err := c.app.OpenURL(&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}); err != nil {
		c.opts.logf("ui: opening %s: %v", path, err)
	}
}
