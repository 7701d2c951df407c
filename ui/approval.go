//go:build !headless

package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// approvalDialog is the window that asks about waiting tool calls, one at a
// time, with the queue position in a corner. All its methods run on the Fyne
// main goroutine.
type approvalDialog struct {
	win    fyne.Window
	decide func(id string, d Decision) // hands a decision to the hub, never blocks
	now    func() time.Time

	items []queueItem
	cur   int
	shown bool

	count, address, title                 *widget.Label
	connection, reason, askedBy, deadline *widget.Label
	preview                               *widget.Label
	previewScroll                         *container.Scroll
	status                                *widget.Label
	prev, next, dismiss                   *widget.Button
	allowOnce, allowAlways                *decisionButton
	deny, denyAlways                      *decisionButton
}

// decisionButton is a button that passes Escape on to the dialog: a focused
// widget receives the keys, so without this Escape would not deny once a
// button has focus.
type decisionButton struct {
	widget.Button
	onKey func(*fyne.KeyEvent)
}

func newDecisionButton(label string, imp widget.Importance, tapped func(), onKey func(*fyne.KeyEvent)) *decisionButton {
	b := &decisionButton{onKey: onKey}
	b.Text = label
	b.Importance = imp
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey hands Escape to the dialog and everything else to the button.
func (b *decisionButton) TypedKey(ev *fyne.KeyEvent) {
	if _, ok := keyDecision(ev.Name); ok {
		b.onKey(ev)
		return
	}
	b.Button.TypedKey(ev)
}

func newApprovalDialog(a fyne.App, decide func(string, Decision), now func() time.Time) *approvalDialog {
	d := &approvalDialog{decide: decide, now: now, cur: -1}
	d.win = a.NewWindow("capabilities: approve a tool call")
	d.win.SetIcon(appIcon)

	d.count = widget.NewLabel("")
	d.count.Importance = widget.MediumImportance
	d.address = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.address.SizeName = theme.SizeNameSubHeadingText
	d.address.Truncation = fyne.TextTruncateEllipsis
	d.title = widget.NewLabel("")
	d.title.Wrapping = fyne.TextWrapWord
	d.connection = widget.NewLabel("")
	d.reason = widget.NewLabel("")
	d.askedBy = widget.NewLabel("")
	d.askedBy.Truncation = fyne.TextTruncateEllipsis
	d.deadline = widget.NewLabel("")

	d.preview = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.previewScroll = container.NewScroll(d.preview)
	d.previewScroll.SetMinSize(fyne.NewSize(560, 200))

	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.status.Importance = widget.WarningImportance

	d.prev = widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { d.move(-1) })
	d.next = widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { d.move(+1) })
	d.dismiss = widget.NewButton("Dismiss", d.dismissCurrent)
	d.allowOnce = newDecisionButton("Allow once", widget.HighImportance, func() { d.choose(AllowOnce) }, d.typedKey)
	d.allowAlways = newDecisionButton("Always allow", widget.MediumImportance, func() { d.choose(AllowAlways) }, d.typedKey)
	d.deny = newDecisionButton("Deny", widget.MediumImportance, func() { d.choose(Deny) }, d.typedKey)
	d.denyAlways = newDecisionButton("Always deny", widget.DangerImportance, func() { d.choose(DenyAlways) }, d.typedKey)

	field := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	}
	header := container.NewBorder(nil, nil, nil, d.count, d.address)
	details := container.New(layout.NewFormLayout(),
		field("Connection"), d.connection,
		field("Reason"), d.reason,
		field("Asked by"), d.askedBy,
		field("Expires"), d.deadline,
	)
	argsLabel := widget.NewLabelWithStyle("Arguments (secrets redacted)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(header, d.title, widget.NewSeparator(), details, argsLabel)
	buttons := container.NewHBox(d.prev, d.next, layout.NewSpacer(), d.dismiss, d.denyAlways, d.deny, d.allowAlways, d.allowOnce)
	bottom := container.NewVBox(d.status, widget.NewSeparator(), buttons)
	d.win.SetContent(container.NewBorder(top, bottom, nil, nil, d.previewScroll))
	d.win.Resize(fyne.NewSize(720, 600))
	d.win.Canvas().SetOnTypedKey(d.typedKey)
	d.win.SetCloseIntercept(d.hide)
	d.refresh()
	return d
}

// current returns the shown item.
func (d *approvalDialog) current() (queueItem, bool) {
	if d.cur < 0 || d.cur >= len(d.items) {
		return queueItem{}, false
	}
	return d.items[d.cur], true
}

// setPending reconciles the queue with the hub's pending calls. With raise,
// the window comes up and takes focus (a call was just added).
func (d *approvalDialog) setPending(pending []Approval, raise bool) {
	before := d.items
	d.items = mergeQueue(d.items, pending, d.now())
	d.cur = selectAfter(before, d.cur, d.items)
	d.refresh()
	if len(d.items) == 0 {
		d.hide()
		return
	}
	if raise {
		d.show()
	}
}

// decidedElsewhere removes a call decided through another channel.
func (d *approvalDialog) decidedElsewhere(id string) {
	before := d.items
	d.items = removeItem(d.items, id)
	d.cur = selectAfter(before, d.cur, d.items)
	d.refresh()
	if len(d.items) == 0 {
		d.hide()
	}
}

// expire marks a call as expired.
func (d *approvalDialog) expire(id string) {
	for i := range d.items {
		if d.items[i].a.ID == id {
			d.items[i].expired = true
			d.items[i].busy = false
		}
	}
	d.refresh()
}

// decided takes the hub's answer to a decision sent with decide.
func (d *approvalDialog) decided(id string, err error) {
	if err == nil {
		d.decidedElsewhere(id)
		return
	}
	for i := range d.items {
		if d.items[i].a.ID == id {
			d.items[i].busy = false
			d.items[i].err = err.Error()
		}
	}
	d.refresh()
}

// tick updates the countdown and disables calls whose deadline passed.
func (d *approvalDialog) tick() {
	if !d.shown {
		return
	}
	now := d.now()
	for i := range d.items {
		if expired(d.items[i].a, now) {
			d.items[i].expired = true
		}
	}
	d.refresh()
}

func (d *approvalDialog) typedKey(ev *fyne.KeyEvent) {
	if dec, ok := keyDecision(ev.Name); ok {
		d.choose(dec)
	}
}

// choose sends a decision about the shown call, unless it cannot be decided.
func (d *approvalDialog) choose(dec Decision) {
	it, ok := d.current()
	if !ok || !canDecide(it, d.now()) {
		return
	}
	d.items[d.cur].busy = true
	d.items[d.cur].err = ""
	d.refresh()
	d.decide(it.a.ID, dec)
}

func (d *approvalDialog) move(delta int) {
	if n := len(d.items); n > 0 {
		d.cur = min(max(d.cur+delta, 0), n-1)
		d.win.Canvas().Unfocus()
		d.refresh()
	}
}

// dismissCurrent drops an expired call from the queue.
func (d *approvalDialog) dismissCurrent() {
	if it, ok := d.current(); ok && (it.expired || expired(it.a, d.now())) {
		d.decidedElsewhere(it.a.ID)
	}
}

func (d *approvalDialog) show() {
	d.shown = true
	d.win.Show()
	d.win.RequestFocus()
}

func (d *approvalDialog) hide() {
	d.shown = false
	d.win.Hide()
}

// refresh copies the shown item onto the widgets.
func (d *approvalDialog) refresh() {
	now := d.now()
	it, ok := d.current()
	d.count.SetText(queueLabel(d.cur, len(d.items)))
	setEnabled(d.prev, ok && d.cur > 0)
	setEnabled(d.next, ok && d.cur < len(d.items)-1)
	if !ok {
		d.address.SetText("No calls waiting")
		for _, l := range []*widget.Label{d.title, d.connection, d.reason, d.askedBy, d.deadline, d.preview, d.status} {
			l.SetText("")
		}
		for _, b := range d.decisionButtons() {
			b.Disable()
		}
		d.dismiss.Hide()
		return
	}
	a := it.a
	d.address.SetText(a.Address)
	d.title.SetText(a.Title)
	if a.Title == "" {
		d.title.Hide()
	} else {
		d.title.Show()
	}
	d.connection.SetText(connectionText(a.Connection, a.DefaultConnection))
	d.reason.SetText(a.Reason)
	d.askedBy.SetText(askedByText(a))
	d.deadline.SetText(itemExpiryText(it, now))
	if text := foldPreview(a.Preview); d.preview.Text != text {
		d.preview.SetText(text)
		d.previewScroll.ScrollToTop()
	}
	d.status.SetText(statusText(it, now))
	if d.status.Text == "" {
		d.status.Hide()
	} else {
		d.status.Show()
	}
	enabled := canDecide(it, now)
	for _, b := range d.decisionButtons() {
		setEnabled(b, enabled)
	}
	if it.expired || expired(a, now) {
		d.dismiss.Show()
	} else {
		d.dismiss.Hide()
	}
}

func (d *approvalDialog) decisionButtons() []*decisionButton {
	return []*decisionButton{d.allowOnce, d.allowAlways, d.deny, d.denyAlways}
}

type disableable interface {
	Enable()
	Disable()
	Disabled() bool
}

func setEnabled(w disableable, on bool) {
	if on && w.Disabled() {
		w.Enable()
	} else if !on && !w.Disabled() {
		w.Disable()
	}
}
