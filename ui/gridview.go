//go:build !headless

package ui

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// gridView is a monospace view that scrolls: compact rows, not a list row
// per line. A TextGrid lays out every cell of every row it holds, so a
// plan of 500 calls (6,000 lines) or a long definition would be hundreds
// of thousands of objects: the grid holds only a window of the lines
// around the ones in view, and moves as the view scrolls.
type gridView struct {
	lines  []gridLine
	grid   *widget.TextGrid // lines[first:first+len(grid.Rows)]
	space  *canvas.Rectangle
	scroll *container.Scroll
	first  int
	cell   fyne.Size
}

// gridWindow is how many lines the grid holds: more than a screen shows,
// so a view grown taller than the window is rare and short-lived.
const gridWindow = 240

func newGrid() *gridView {
	v := &gridView{grid: widget.NewTextGrid(), space: canvas.NewRectangle(color.Transparent), first: -1}
	v.grid.Scroll = fyne.ScrollNone
	v.scroll = container.NewScroll(container.NewWithoutLayout(v.space, v.grid))
	v.scroll.OnScrolled = func(fyne.Position) { v.follow() }
	return v
}

// cellSize is the size of one character, as the TextGrid measures it.
func cellSize() fyne.Size {
	s := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{Monospace: true})
	return fyne.NewSize(float32(math.Round(float64(s.Width))), float32(math.Round(float64(s.Height))))
}

// set shows lines, from the top.
func (v *gridView) set(lines []gridLine) {
	v.lines = lines
	v.cell = cellSize()
	width := 0
	for _, l := range lines {
		width = max(width, len([]rune(l.text)))
	}
	v.space.SetMinSize(fyne.NewSize(float32(width)*v.cell.Width, float32(len(lines))*v.cell.Height))
	v.first = -1
	v.scroll.Offset = fyne.Position{}
	v.show(0)
	v.scroll.Refresh()
}

// scrollTo scrolls the view so that row is near its top (a view that
// cannot scroll that far shows its end).
func (v *gridView) scrollTo(row int) {
	v.scroll.ScrollToOffset(fyne.NewPos(0, float32(max(0, row-2))*v.cell.Height))
	v.follow()
}

// follow moves the grid's window when the lines in view leave it.
func (v *gridView) follow() {
	if v.cell.Height <= 0 {
		return
	}
	top := int(v.scroll.Offset.Y / v.cell.Height)
	bottom := int(math.Ceil(float64((v.scroll.Offset.Y + v.scroll.Size().Height) / v.cell.Height)))
	if v.first >= 0 && top >= v.first && bottom <= v.first+gridWindow {
		return
	}
	v.show(max(0, top-gridWindow/4))
}

// show fills the grid with the window of lines from first.
func (v *gridView) show(first int) {
	first = min(first, max(0, len(v.lines)-gridWindow))
	if first == v.first {
		return
	}
	v.first = first
	window := v.lines[first:min(len(v.lines), first+gridWindow)]
	texts := make([]string, len(window))
	for i, l := range window {
		texts[i] = l.text
	}
	v.grid.SetText(strings.Join(texts, "\n"))
	for i, l := range window {
		if st := gridStyle(l.style); st != nil {
			v.grid.SetRowStyle(i, st)
		}
	}
	v.grid.Move(fyne.NewPos(0, float32(first)*v.cell.Height))
	v.grid.Resize(fyne.NewSize(v.space.MinSize().Width, float32(len(window))*v.cell.Height))
	v.grid.Refresh()
}

// text is every line the view shows, in view or not.
func (v *gridView) text() string { return gridText(v.lines) }
