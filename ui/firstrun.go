//go:build !headless

package ui

// The first-run window: the MCP servers found in the person's clients, a
// checkbox for each, and whether to move them out of the clients' files.
// A hub started by a client or at login imports nothing by itself; this
// window, opened by the person, is one way to take up its offer.

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// ImportCandidate is one server found in the person's clients.
type ImportCandidate struct {
	Name    string
	Clients []string // the clients that run it: "claude-code", "vscode"
	Secrets []string // values that move into the keychain: "env.GITHUB_TOKEN"
}

// ImportSelection is the person's answer in the first-run window.
type ImportSelection struct {
	Names []string // the servers to import, in the order shown
	// Move takes them out of the clients' files (backed up first), so they
	// run only through capabilities.
	Move bool
}

// FirstRun is what the first-run window needs.
type FirstRun struct {
	Candidates []ImportCandidate
	// Import imports the selection and returns one line that says what it
	// did. It may block; the window calls it off the Fyne goroutine.
	Import func(ImportSelection) (string, error)
}

// candidateLabel is the text of a candidate's checkbox.
func candidateLabel(c ImportCandidate) string {
	s := c.Name
	if len(c.Clients) > 0 {
		s += " — from " + strings.Join(c.Clients, ", ")
	}
	if len(c.Secrets) > 0 {
		s += " (" + plural(len(c.Secrets), "secret", "secrets") + " " + strings.Join(c.Secrets, ", ") + " into the keychain)"
	}
	return s
}

// selectionOf is the answer for the candidates with their boxes checked.
func selectionOf(cands []ImportCandidate, checked []bool, move bool) ImportSelection {
	sel := ImportSelection{Move: move}
	for i, c := range cands {
		if i < len(checked) && checked[i] {
			sel.Names = append(sel.Names, c.Name)
		}
	}
	return sel
}

// importButtonText names what the button does; ok is false when nothing
// is checked.
func importButtonText(n int) (text string, ok bool) {
	if n == 0 {
		return "Import", false
	}
	return fmt.Sprintf("Import %s", plural(n, "server", "servers")), true
}

// firstRunWindow is the window and its widgets, for tests.
type firstRunWindow struct {
	win    fyne.Window
	boxes  []*widget.Check
	move   *widget.Check
	button *widget.Button
	skip   *widget.Button
	result *widget.Label
	cands  []ImportCandidate
	done   chan struct{} // closed when an import finished (tests)
}

// NewFirstRunWindow builds the first-run window for fr; show it with Show.
// Every server starts checked, and moving them out of the clients too.
func NewFirstRunWindow(a fyne.App, fr FirstRun) fyne.Window {
	return newFirstRunWindow(a, fr).win
}

func newFirstRunWindow(a fyne.App, fr FirstRun) *firstRunWindow {
	w := &firstRunWindow{win: a.NewWindow("capabilities: import your MCP servers"), cands: fr.Candidates, done: make(chan struct{}, 1)}
	intro := widget.NewLabel(fmt.Sprintf("Your MCP clients already run %s. Import the ones you want: capabilities then runs them for every client, asking before calls you have not allowed, and their secrets move into the keychain.",
		plural(len(fr.Candidates), "server", "servers")))
	intro.Wrapping = fyne.TextWrapWord
	list := container.NewVBox()
	w.result = widget.NewLabel("")
	w.result.Wrapping = fyne.TextWrapWord
	w.button = widget.NewButton("Import", nil)
	w.button.Importance = widget.HighImportance
	refresh := func() {
		text, ok := importButtonText(len(w.selection().Names))
		w.button.SetText(text)
		if ok {
			w.button.Enable()
		} else {
			w.button.Disable()
		}
	}
	for _, c := range fr.Candidates {
		b := widget.NewCheck(candidateLabel(c), func(bool) { refresh() })
		b.Checked = true
		w.boxes = append(w.boxes, b)
		list.Add(b)
	}
	w.move = widget.NewCheck("Move them out of the clients' files, so they do not run twice (the files are backed up first)", nil)
	w.move.Checked = true
	w.skip = widget.NewButton("Not now", func() { w.win.Close() })
	w.button.OnTapped = func() {
		sel := w.selection()
		w.button.Disable()
		w.result.SetText("Importing…")
		go func() {
			line, err := fr.Import(sel)
			fyne.Do(func() {
				if err != nil {
					w.result.SetText("Could not import everything: " + err.Error())
					refresh()
				} else {
					w.result.SetText(line)
					w.skip.SetText("Close")
					for _, b := range w.boxes {
						b.Disable()
					}
					w.move.Disable()
				}
				select {
				case w.done <- struct{}{}:
				default:
				}
			})
		}()
	}
	refresh()
	w.win.SetContent(container.NewBorder(intro,
		container.NewVBox(w.move, w.result, container.NewHBox(layout.NewSpacer(), w.skip, w.button)), nil, nil,
		container.NewVScroll(list)))
	w.win.Resize(fyne.NewSize(620, 420))
	return w
}

func (w *firstRunWindow) selection() ImportSelection {
	checked := make([]bool, len(w.boxes))
	for i, b := range w.boxes {
		checked[i] = b.Checked
	}
	return selectionOf(w.cands, checked, w.move.Checked)
}
