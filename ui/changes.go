//go:build !headless

package ui

// The Sources tab's changed tool definitions. A new version of an API's
// document can change a thousand operations at once, so the changes are a
// list that draws only the rows in view; the one picked shows its
// definition as accepted and as it is now, line by line, read from the
// hub only then. Accepting pins the definition shown, by its hash: one
// that changed again meanwhile is not accepted and keeps asking
// (Hub.AcceptTools). "Accept all" takes a second tap.

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

type changesPanel struct {
	m       *mainWindow
	hint    *widget.Label
	all     *widget.Button // accepts every change listed, on a second tap
	confirm []ToolChange   // the changes the next tap of all accepts, as listed at the first tap
	list    *widget.List
	height  *canvas.Rectangle // holds the list's height
	listBox *fyne.Container
	address *widget.Label // the change picked
	summary *widget.Label
	diff    *gridView
	accept  *widget.Button
	result  *widget.Label
	detail  *fyne.Container
	box     *fyne.Container

	changes []ToolChange // as the hub lists them
	picked  string       // the address picked
	at      int          // its place in the list
	shown   ToolChange   // what the detail shows: Hash is the definition's; empty while it loads
	busy    bool         // an accept runs
}

func newChangesPanel(m *mainWindow) *changesPanel {
	p := &changesPanel{m: m}
	p.hint = widget.NewLabel("")
	p.hint.Wrapping = fyne.TextWrapWord
	p.all = widget.NewButtonWithIcon("", theme.ConfirmIcon(), p.acceptAll)
	p.list = widget.NewList(func() int { return len(p.changes) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(p.changes) {
				o.(*widget.Label).SetText(changeLine(p.changes[id]))
			}
		})
	p.list.OnSelected = func(id widget.ListItemID) {
		if id < len(p.changes) && p.changes[id].Address != p.picked {
			p.at = id
			p.pick(p.changes[id].Address)
		}
	}
	p.height = canvas.NewRectangle(color.Transparent)
	p.listBox = container.NewStack(p.height, p.list)
	p.address = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.address.Truncation = fyne.TextTruncateEllipsis
	p.summary = widget.NewLabel("")
	p.summary.Wrapping = fyne.TextWrapWord
	p.diff = newGrid()
	diffHeight := canvas.NewRectangle(color.Transparent)
	diffHeight.SetMinSize(fyne.NewSize(0, 240))
	p.accept = widget.NewButtonWithIcon("Accept new definition", theme.ConfirmIcon(), p.acceptShown)
	p.accept.Importance = widget.HighImportance
	p.result = widget.NewLabel("")
	p.result.Wrapping = fyne.TextWrapWord
	p.result.Hide()
	p.detail = container.NewVBox(container.NewBorder(nil, nil, nil, p.accept, p.address), p.summary,
		container.NewStack(diffHeight, p.diff.scroll))
	p.box = container.NewVBox(container.NewBorder(nil, nil, nil, p.all, p.hint), p.listBox, p.detail, p.result)
	return p
}

// showChanges brings the window up on the Sources tab, scrolled to the
// changed tool definitions.
func (m *mainWindow) showChanges() {
	m.show(tabSources)
	m.sourcesScroll.ScrollToOffset(fyne.NewPos(0, m.changes.box.Position().Y-40))
}

// showChange brings the window up at the change of address, picked.
func (m *mainWindow) showChange(address string) {
	m.showChanges()
	if i := slices.IndexFunc(m.changes.changes, func(c ToolChange) bool { return c.Address == address }); i >= 0 {
		m.changes.list.Select(i)
		m.changes.list.ScrollTo(i)
	}
}

// set shows the changes as the hub lists them now, keeping the one picked
// while it is listed.
func (p *changesPanel) set(changes []ToolChange) {
	p.changes = changes
	p.hint.SetText(changesHint(changes))
	p.list.Refresh()
	if len(changes) == 0 {
		p.picked, p.shown, p.confirm = "", ToolChange{}, nil
		p.all.Hide()
		p.listBox.Hide()
		p.detail.Hide()
		return
	}
	if !slices.Equal(p.confirm, changes) {
		p.confirm = nil // the list moved on since the first tap: ask again
	}
	p.all.SetText(acceptAllLabel(len(changes), p.confirm != nil))
	p.all.Importance = widget.MediumImportance
	if p.confirm != nil {
		p.all.Importance = widget.WarningImportance
	}
	setEnabled(p.all, !p.busy)
	p.all.Show()
	if len(changes) == 1 {
		p.all.Hide() // Accept does it
	}
	p.all.Refresh()
	p.height.SetMinSize(fyne.NewSize(0, listHeight(widget.NewLabel("x"), len(changes))))
	p.listBox.Show()
	p.detail.Show()
	i := slices.IndexFunc(changes, func(c ToolChange) bool { return c.Address == p.picked })
	switch {
	case i < 0: // accepted: the next one takes its place
		i = min(p.at, len(changes)-1)
		p.pick(changes[i].Address)
	case changes[i].Hash != p.shown.Hash && p.shown.Hash != "":
		p.pick(changes[i].Address) // it changed again: show what it is now
	}
	p.at = i
	p.list.Select(i)
	p.box.Refresh()
}

// pick shows a change: what changed, then, once the hub has read them,
// its definitions line by line.
func (p *changesPanel) pick(address string) {
	p.picked, p.shown = address, ToolChange{}
	p.address.SetText(address)
	for _, c := range p.changes {
		if c.Address == address {
			p.summary.SetText(changeText(c.Summary) + heldUntilAccepted(address))
		}
	}
	p.diff.set([]gridLine{{"Reading the definitions…", lineDim}})
	p.accept.Disable()
	if p.m.act.changedDefinition == nil {
		return
	}
	p.m.act.changedDefinition(address, func(was, is, hash string, err error) {
		if p.picked != address {
			return // another was picked meanwhile
		}
		if err != nil {
			p.diff.set([]gridLine{{"The definitions cannot be read: " + err.Error(), lineWarn}})
			return
		}
		p.shown = ToolChange{Address: address, Hash: hash}
		lines := definitionDiff(was, is)
		p.diff.set(lines)
		p.diff.scrollTo(max(0, slices.IndexFunc(lines, func(l gridLine) bool { return l.style == lineRemoved || l.style == lineAdded })))
		setEnabled(p.accept, !p.busy && p.m.act.acceptTools != nil)
	})
}

// acceptShown accepts the definition the detail shows.
func (p *changesPanel) acceptShown() {
	if p.shown.Hash == "" {
		return
	}
	p.run([]ToolChange{p.shown}, "Accepted "+p.shown.Address+" as shown.")
}

// acceptAll accepts every change listed, on the second tap, while the
// list is the one the first tap saw.
func (p *changesPanel) acceptAll() {
	if p.confirm == nil {
		p.confirm = slices.Clone(p.changes)
		p.set(p.changes)
		return
	}
	all := p.confirm
	p.confirm = nil
	p.run(all, "Accepted "+plural(len(all), "new definition", "new definitions")+".")
}

func (p *changesPanel) run(shown []ToolChange, ok string) {
	if p.m.act.acceptTools == nil {
		return
	}
	p.busy = true
	p.accept.Disable()
	p.all.Disable()
	p.m.act.acceptTools(shown, func(err error) {
		p.busy = false
		tell(p.result, err, "Not accepted", ok)
		p.result.Show()
		p.set(p.changes)
		if p.shown.Hash != "" {
			p.accept.Enable()
		}
	})
}
