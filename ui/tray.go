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
	actRun       = "run:"
	actRuns      = "runs"
	actSources   = "sources"
	actPause     = "pause"
	actWindow    = "window"
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

// trayMenuModel lays out the tray menu for a snapshot.
func trayMenuModel(s snapshot, now time.Time) []menuEntry {
	st := s.status
	pending := menuEntry{label: pendingMenuLabel(len(s.pending)), action: actQueue, disabled: len(s.pending) == 0}

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

	var sources []menuEntry
	for _, src := range st.Sources {
		sources = append(sources, menuEntry{label: sourceLabel(src), action: actSources})
	}
	if len(sources) == 0 {
		sources = append(sources, menuEntry{label: "No sources configured", disabled: true})
	}
	sources = append(sources, separator, menuEntry{label: "Manage sources…", action: actSources})

	sourcesLabel := "Sources"
	if anyDown(st.Sources) {
		sourcesLabel = "Sources (some down)"
	}
	out := []menuEntry{
		pending,
		separator,
		{label: "Recent runs", children: runs},
		{label: sourcesLabel, children: sources},
		separator,
		{label: pauseMenuLabel(st.Paused), action: actPause},
		{label: "Open window…", action: actWindow},
		{label: "Open config folder", action: actConfig},
	}
	if s.autostartKnown {
		out = append(out, menuEntry{label: "Start at login", action: actAutostart, checked: s.autostart})
	}
	return append(out, separator, menuEntry{label: "Quit", action: actQuit})
}

// tray owns the system tray icon and menu. Its methods run on the Fyne main goroutine.
type tray struct {
	app    desktop.App
	do     func(action string)
	state  trayState
	model  []menuEntry
	inited bool
}

// update shows a snapshot, touching the tray only where it changed (every
// menu rebuild recreates the native items).
func (t *tray) update(s snapshot, now time.Time) {
	st := trayStateOf(s.status)
	if !t.inited || st != t.state {
		t.app.SetSystemTrayIcon(trayIcon(st))
		t.state = st
	}
	model := trayMenuModel(s, now)
	if !t.inited || !reflect.DeepEqual(model, t.model) {
		t.app.SetSystemTrayMenu(fyne.NewMenu("capabilities", t.items(model)...))
		t.model = model
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
