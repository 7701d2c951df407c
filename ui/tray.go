//go:build !headless

package ui

import (
	"reflect"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// Tray menu actions; menuEntry.action holds one of them, runs "run:" + id.
const (
	actQueue     = "queue"
	actImport    = "import"
	actChanges   = "changes"
	actSignIn    = "signin:"
	actRun       = "run:"
	actRuns      = "runs"
	actSources   = "sources"
	actPause     = "pause"
	actWindow    = "window"
	actConnect   = "connect"
	actLogs      = "logs"
	actConfig    = "config"
	actAutostart = "autostart"
	actQuit      = "quit"
)

// recentRuns is how many runs the tray menu lists.
const recentRuns = 5

// menuEntry is one tray menu item, as data so the menu can be compared and tested.
type menuEntry struct {
	label     string
	action    string
	checked   bool
	disabled  bool
	separator bool
	children  []menuEntry
}

var separator = menuEntry{separator: true}

// trayMenuModel lays out the tray menu for a snapshot: the hub's state in
// one line first, then what waits, the sources and runs, the windows, and
// the switches.
func trayMenuModel(s snapshot, now time.Time) []menuEntry {
	st := s.status
	out := []menuEntry{{label: statusLine(s), disabled: true}}
	if len(s.pending) > 0 {
		out = append(out, menuEntry{label: pendingMenuLabel(len(s.pending)), action: actQueue})
	}
	if len(s.changed) > 0 {
		out = append(out, menuEntry{label: changesMenuLabel(s.changed), action: actChanges})
	}
	if st.ImportOffer > 0 && s.canImport {
		out = append(out, menuEntry{label: importMenuLabel(st.ImportOffer), action: actImport})
	}

	var sources []menuEntry
	for _, src := range st.Sources {
		sources = append(sources, menuEntry{label: sourceLabel(src), action: actSources})
		for _, si := range src.SignIns {
			if !si.SignedIn {
				sources = append(sources, menuEntry{label: signInMenuLabel(src.Name, si.Connection), action: signInAction(src.Name, si.Connection)})
			}
		}
	}
	if len(sources) == 0 {
		sources = append(sources, menuEntry{label: "No sources configured", disabled: true})
	}
	sources = append(sources, separator, menuEntry{label: "Manage sources…", action: actSources})
	sourcesLabel := "Sources"
	if anyDown(st.Sources) {
		sourcesLabel = "Sources (some down)"
	}

	var runs []menuEntry
	for i, r := range s.runs {
		if i == recentRuns {
			break
		}
		runs = append(runs, menuEntry{label: runLabel(r, now), action: actRun + r.ID})
	}
	if len(runs) == 0 {
		runs = append(runs, menuEntry{label: "No runs yet", disabled: true})
	}
	runs = append(runs, separator, menuEntry{label: "All runs…", action: actRuns})

	out = append(out,
		separator,
		menuEntry{label: sourcesLabel, children: sources},
		menuEntry{label: "Recent runs", children: runs},
		separator,
		menuEntry{label: "Open window…", action: actWindow},
		menuEntry{label: "Connect a client…", action: actConnect},
		menuEntry{label: "Open logs", action: actLogs},
		menuEntry{label: "Open config folder", action: actConfig},
		separator,
		menuEntry{label: pauseMenuLabel(st.Paused), action: actPause},
	)
	if s.autostartKnown {
		out = append(out, menuEntry{label: "Start at login", action: actAutostart, checked: s.autostart})
	}
	return append(out, separator, menuEntry{label: "Quit", action: actQuit})
}

// tray owns the system tray icon and menu. Its methods run on the Fyne main
// goroutine; the first update must come before the app runs, or Fyne never
// starts its tray (on Linux: never registers a StatusNotifierItem).
type tray struct {
	app     desktop.App
	tooltip func(string) // sets the icon's tooltip; nil where the tray has none
	do      func(action string)
	state   trayState
	tip     string
	model   []menuEntry
	menu    *fyne.Menu
	inited  bool
	settled int // ticks the icon and tooltip were set again after start
}

// settleTicks is how many ticks (seconds) after start the tray sets its
// tooltip again (and its icon at the last). Fyne's tray (fyne.io/systray) becomes ready on a
// goroutine of its own: an icon or tooltip set while it exports its D-Bus
// properties is kept but not shown, so they are set again until it surely
// is ready. Setting them is idempotent and cheap.
const settleTicks = 10

// settle sets the icon and tooltip again during the first settleTicks ticks.
func (t *tray) settle() {
	if !t.inited || t.settled >= settleTicks {
		return
	}
	t.settled++
	if t.tooltip != nil {
		t.tooltip(t.tip)
	}
	// The icon once, at the end: fyne.io/systray hands a tray host the
	// pixels of each SetIcon without synchronising with its D-Bus reads,
	// so each needless one is a torn read waiting to happen.
	if t.settled == settleTicks {
		t.app.SetSystemTrayIcon(trayIcon(t.state))
	}
}

// update shows a snapshot, touching the tray only where it changed (every
// menu rebuild recreates the native items).
func (t *tray) update(s snapshot, now time.Time) {
	model := trayMenuModel(s, now)
	if !t.inited || !reflect.DeepEqual(model, t.model) {
		// One menu, changed in place: when Fyne's tray becomes ready it
		// shows the menu it was first given, so that menu must be the
		// current one, not the "Starting…" of before the app ran.
		if t.menu == nil {
			t.menu = fyne.NewMenu("capabilities")
		}
		t.menu.Items = t.items(model)
		t.app.SetSystemTrayMenu(t.menu)
		t.model = model
	}
	st := trayStateOf(s.status)
	if !t.inited || st != t.state {
		t.app.SetSystemTrayIcon(trayIcon(st))
		t.state = st
	}
	if tip := trayTooltip(s); t.tooltip != nil && (!t.inited || tip != t.tip) {
		t.tooltip(tip)
		t.tip = tip
	}
	t.inited = true
}

func (t *tray) items(model []menuEntry) []*fyne.MenuItem {
	out := make([]*fyne.MenuItem, 0, len(model))
	for _, e := range model {
		if e.separator {
			out = append(out, fyne.NewMenuItemSeparator())
			continue
		}
		var action func()
		if e.action != "" {
			act := e.action
			action = func() { t.do(act) }
		}
		it := fyne.NewMenuItem(e.label, action)
		it.Checked = e.checked
		it.Disabled = e.disabled
		it.IsQuit = e.action == actQuit
		if e.children != nil {
			it.ChildMenu = fyne.NewMenu("", t.items(e.children)...)
		}
		out = append(out, it)
	}
	return out
}
