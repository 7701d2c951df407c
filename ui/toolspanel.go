//go:build !headless

package ui

// A source's open tool list on the Sources tab: a filter and a list that
// draws only the rows in view. A source can have thousands of tools
// (GitHub's REST description has 1,222 operations); the list opens at
// once, and a refresh of the hub's state redraws a screenful, not every
// tool.

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// listRows is the most rows a list on the Sources tab shows at once; it
// scrolls for the rest.
const listRows = 10

type toolsPanel struct {
	m      *mainWindow
	source string
	filter *widget.Entry
	count  *widget.Label
	list   *widget.List
	height *canvas.Rectangle // holds the list's height
	box    *fyne.Container
	all    []SourceTool
	shown  []SourceTool
	busy   map[string]bool // addresses whose button's action runs
}

func newToolsPanel(m *mainWindow, source string) *toolsPanel {
	p := &toolsPanel{m: m, source: source, busy: map[string]bool{}}
	p.filter = widget.NewEntry()
	p.filter.SetPlaceHolder("Filter the tools: words of the name or title, or ask, allow, deny, deprecated")
	p.filter.OnChanged = func(string) { p.apply() }
	p.count = widget.NewLabel("")
	p.list = widget.NewList(func() int { return len(p.shown) }, p.newRow, p.fillRow)
	p.height = canvas.NewRectangle(color.Transparent)
	p.box = container.NewVBox(container.NewBorder(nil, nil, nil, p.count, p.filter), container.NewStack(p.height, p.list))
	return p
}

// set shows the source's tools as the hub lists them now.
func (p *toolsPanel) set(tools []SourceTool) {
	p.all = tools
	p.apply()
}

// apply filters the tools, sizes the list to them and redraws it.
func (p *toolsPanel) apply() {
	p.shown = filterTools(p.all, p.filter.Text)
	p.count.SetText(toolsShownText(len(p.shown), len(p.all), p.filter.Text))
	p.height.SetMinSize(fyne.NewSize(0, listHeight(p.newRow(), len(p.shown))))
	p.list.Refresh()
	p.box.Refresh()
}

// listHeight is the height of a list of rows like row showing n of them,
// at most listRows.
func listHeight(row fyne.CanvasObject, n int) float32 {
	n = max(1, min(n, listRows))
	pad := theme.Size(theme.SizeNamePadding)
	return float32(n)*row.MinSize().Height + float32(n-1)*pad
}

// newRow is a tool's row: the address and title, what policy does with
// its calls, and a button that turns it off (a deny rule from the window)
// or back on.
func (p *toolsPanel) newRow() fyne.CanvasObject {
	addr := mono("")
	addr.Truncation = fyne.TextTruncateEllipsis
	mode := widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	b := widget.NewButton("Turn off", nil)
	return container.NewBorder(nil, nil, nil, container.NewHBox(mode, b), addr)
}

func (p *toolsPanel) fillRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(p.shown) {
		return
	}
	t := p.shown[id]
	row := o.(*fyne.Container)
	row.Objects[0].(*widget.Label).SetText(toolLine(t))
	right := row.Objects[1].(*fyne.Container)
	mode, b := right.Objects[0].(*widget.Label), right.Objects[1].(*widget.Button)
	mode.SetText(t.Mode)
	mode.Importance = modeImportance(t.Mode)
	mode.Refresh()
	label, turnOff := toolAction(t)
	b.SetText(label)
	b.OnTapped = func() { p.toggle(t, turnOff) }
	setEnabled(b, !p.busy[t.Address] && p.m.act.setPolicy != nil && p.m.act.removePolicy != nil)
}

// toggle turns a tool off with a deny rule from the window, or back on by
// removing its rule.
func (p *toolsPanel) toggle(t SourceTool, turnOff bool) {
	m := p.m
	p.busy[t.Address] = true
	p.list.Refresh()
	done := func(err error) {
		delete(p.busy, t.Address)
		switch {
		case err != nil:
			m.sourceMsg[p.source] = "Not done: " + err.Error()
		case turnOff:
			m.sourceMsg[p.source] = "Turned " + t.Address + " off: a deny rule from the window, in the Policy tab."
		default:
			m.sourceMsg[p.source] = "Turned " + t.Address + " back on: its rule is removed."
		}
		m.renderSources()
	}
	if turnOff {
		m.act.setPolicy(t.Address, PolicyDeny, done)
	} else {
		m.act.removePolicy(t.Address, done)
	}
}
