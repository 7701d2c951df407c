//go:build !headless

package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"capabilities.sh/capabilities/hub/secrets"
)

// approvalDialog is the window that asks about waiting tool calls, one at a
// time, with the queue position in a corner, the other waiting calls of the
// same run named (and allowed together with one button), the whole redacted
// arguments and the run's code with the call marked. All its methods run on
// the Fyne main goroutine.
type approvalDialog struct {
	win       fyne.Window
	decide    func(id string, d Decision) // hands a decision to the hub, never blocks
	setSecret func(source, connection, secret string, done func(error))
	now       func() time.Time

	items []queueItem
	cur   int
	shown bool

	count, address, title, description, annotations *widget.Label
	connection, reason, askedBy, deadline           *widget.Label
	group                                           *widget.Label
	allowRun                                        *widget.Button
	groupBox                                        *fyne.Container

	argLines  []string
	args      *widget.List
	codeLines []codeLine
	code      *widget.List

	secretBox   *fyne.Container
	secretLabel *widget.Label
	secretEntry *widget.Entry
	secretSave  *widget.Button
	// secretFor is the secretOwner of what secretEntry holds: the field is
	// emptied whenever the dialog shows another owner's request.
	secretFor string

	status              *widget.Label
	prev, next, dismiss *widget.Button
	allowOnce           *decisionButton
	allowAlways         *decisionButton
	deny, denyAlways    *decisionButton
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

func newApprovalDialog(a fyne.App, decide func(string, Decision), setSecret func(source, connection, secret string, done func(error)), now func() time.Time) *approvalDialog {
	d := &approvalDialog{decide: decide, setSecret: setSecret, now: now, cur: -1}
	d.win = a.NewWindow("capabilities: approve a tool call")
	d.win.SetIcon(appIcon)

	d.count = widget.NewLabel("")
	d.count.Importance = widget.MediumImportance
	d.address = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.address.SizeName = theme.SizeNameSubHeadingText
	d.address.Truncation = fyne.TextTruncateEllipsis
	d.title = widget.NewLabel("")
	d.title.Wrapping = fyne.TextWrapWord
	d.description = widget.NewLabel("")
	d.description.Wrapping = fyne.TextWrapWord
	d.description.Truncation = fyne.TextTruncateEllipsis
	d.description.SizeName = theme.SizeNameCaptionText
	d.annotations = widget.NewLabel("")
	d.connection = widget.NewLabel("")
	d.reason = widget.NewLabel("")
	d.askedBy = widget.NewLabel("")
	d.askedBy.Truncation = fyne.TextTruncateEllipsis
	d.deadline = widget.NewLabel("")

	d.group = widget.NewLabel("")
	d.group.Wrapping = fyne.TextWrapWord
	d.allowRun = widget.NewButtonWithIcon("", theme.ConfirmIcon(), d.allowGroup)
	d.groupBox = container.NewBorder(nil, nil, nil, d.allowRun, d.group)

	monoRow := func() fyne.CanvasObject {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}
	d.args = widget.NewList(func() int { return len(d.argLines) }, monoRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(d.argLines) {
			o.(*widget.Label).SetText(d.argLines[i])
		}
	})
	d.code = widget.NewList(func() int { return len(d.codeLines) }, monoRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i >= len(d.codeLines) {
			return
		}
		l := o.(*widget.Label)
		line := d.codeLines[i]
		l.Importance = widget.MediumImportance
		switch line.mark {
		case markCall:
			l.Importance = widget.WarningImportance
		case markOther:
			l.Importance = widget.HighImportance
		}
		l.SetText(codeLineText(line))
	})
	d.args.OnSelected = func(widget.ListItemID) { d.args.UnselectAll() }
	d.code.OnSelected = func(widget.ListItemID) { d.code.UnselectAll() }

	d.secretLabel = widget.NewLabel("")
	d.secretEntry = widget.NewPasswordEntry()
	d.secretEntry.SetPlaceHolder("the token or password; it goes to the OS keychain")
	d.secretEntry.OnSubmitted = func(string) { d.saveSecret() }
	d.secretSave = widget.NewButtonWithIcon("Save to keychain", theme.DocumentSaveIcon(), d.saveSecret)
	d.secretSave.Importance = widget.HighImportance
	d.secretBox = container.NewBorder(nil, nil, d.secretLabel, d.secretSave, d.secretEntry)

	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.status.Importance = widget.WarningImportance

	d.prev = widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { d.move(-1) })
	d.next = widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { d.move(+1) })
	d.dismiss = widget.NewButton("Dismiss", d.dismissCurrent)
	// The keyboard goes from the least to the most lasting choice.
	d.deny = newDecisionButton("Deny", widget.MediumImportance, func() { d.choose(Deny) }, d.typedKey)
	d.allowOnce = newDecisionButton("Allow once", widget.HighImportance, func() { d.choose(AllowOnce) }, d.typedKey)
	d.allowAlways = newDecisionButton("Always allow", widget.MediumImportance, func() { d.choose(AllowAlways) }, d.typedKey)
	d.denyAlways = newDecisionButton("Always deny", widget.DangerImportance, func() { d.choose(DenyAlways) }, d.typedKey)

	field := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	}
	header := container.NewBorder(nil, nil, nil, d.count, d.address)
	details := container.New(layout.NewFormLayout(),
		field("Tool says"), d.annotations,
		field("Connection"), d.connection,
		field("Reason"), d.reason,
		field("Asked by"), d.askedBy,
		field("Expires"), d.deadline,
	)
	top := container.NewVBox(header, d.title, d.description, widget.NewSeparator(), details, d.groupBox, d.secretBox)
	argsPane := container.NewBorder(widget.NewLabelWithStyle("Arguments (secrets redacted)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, d.args)
	codePane := container.NewBorder(widget.NewLabelWithStyle("The run's code (marked: this call, and the run's other waiting calls)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, d.code)
	split := container.NewVSplit(argsPane, codePane)
	split.Offset = 0.45
	buttons := container.NewHBox(d.prev, d.next, layout.NewSpacer(), d.dismiss, d.deny, d.allowOnce, d.allowAlways, d.denyAlways)
	bottom := container.NewVBox(d.status, widget.NewSeparator(), buttons)
	d.win.SetContent(container.NewBorder(top, bottom, nil, nil, split))
	d.win.Resize(fyne.NewSize(780, 760))
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
	if it, ok := d.current(); ok && (it.expired || expired(it.a, d.now()) || it.saved) {
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
		for _, l := range []*widget.Label{d.title, d.description, d.annotations, d.connection, d.reason, d.askedBy, d.deadline, d.status} {
			l.SetText("")
		}
		d.setLines(nil, nil)
		for _, b := range d.decisionButtons() {
			b.Disable()
		}
		d.dismiss.Hide()
		d.groupBox.Hide()
		d.clearSecretFor("")
		d.secretBox.Hide()
		return
	}
	a := it.a
	d.clearSecretFor(secretOwner(a))
	d.address.SetText(a.Address)
	showText(d.title, a.Title)
	showText(d.description, truncate(strings.TrimSpace(a.Description), 400))
	d.annotations.SetText(annotationsText(a))
	d.connection.SetText(connectionText(a.Connection, a.DefaultConnection))
	d.reason.SetText(a.Reason)
	d.askedBy.SetText(askedByText(a))
	d.deadline.SetText(itemExpiryText(it, now))

	group := runGroup(d.items, d.cur)
	var others []string
	for _, i := range group {
		others = append(others, d.items[i].a.Address)
	}
	d.setLines(fullPreview(a.Preview), codeView(secrets.RedactCredentials(a.Code), a.Address, others))
	if text := groupText(d.items, group); text != "" {
		d.group.SetText(text)
		together := allowableTogether(d.items, group, now)
		label := "Allow these %d once"
		if a.Plan != nil {
			label = "Allow these %d calls"
		}
		d.allowRun.SetText(fmt.Sprintf(label, len(together)))
		setEnabled(d.allowRun, len(together) > 1)
		d.groupBox.Show()
	} else {
		d.groupBox.Hide()
	}
	if a.NeedsSecret {
		d.secretLabel.SetText(fmt.Sprintf("Secret of %s/%s", orUnknown(a.Source), a.Connection))
		setEnabled(d.secretSave, !it.busy && !it.saved && a.Source != "")
		setEnabled(d.secretEntry, !it.saved && a.Source != "")
		d.secretBox.Show()
	} else {
		d.secretBox.Hide()
	}

	showText(d.status, statusText(it, now))
	enabled := canDecide(it, now)
	for _, b := range d.decisionButtons() {
		setEnabled(b, enabled)
	}
	if it.expired || expired(a, now) || it.saved {
		d.dismiss.Show()
	} else {
		d.dismiss.Hide()
	}
}

// clearSecretFor empties the secret field when it is about to serve another
// owner, so a value typed for one source's connection never stays for
// another's request.
func (d *approvalDialog) clearSecretFor(owner string) {
	if owner == d.secretFor {
		return
	}
	d.secretFor = owner
	d.secretEntry.SetText("")
}

// setLines shows new arguments and code, keeping the scroll positions when
// they did not change.
func (d *approvalDialog) setLines(args []string, code []codeLine) {
	if !slices.Equal(args, d.argLines) {
		d.argLines = args
		d.args.Refresh()
		d.args.ScrollToTop()
	}
	if !slices.Equal(code, d.codeLines) {
		d.codeLines = code
		d.code.Refresh()
		d.code.ScrollTo(firstMark(code))
	}
}

// argsText is the whole arguments view as text (tests).
func (d *approvalDialog) argsText() string { return strings.Join(d.argLines, "\n") }

// codeText is the whole code view as text (tests).
func (d *approvalDialog) codeText() string {
	out := make([]string, len(d.codeLines))
	for i, l := range d.codeLines {
		out[i] = codeLineText(l)
	}
	return strings.Join(out, "\n")
}

func showText(l *widget.Label, s string) {
	l.SetText(s)
	if s == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// allowGroup allows, once, every call of the shown run that can be.
func (d *approvalDialog) allowGroup() {
	now := d.now()
	together := allowableTogether(d.items, runGroup(d.items, d.cur), now)
	if len(together) < 2 {
		return
	}
	var ids []string
	for _, i := range together {
		d.items[i].busy = true
		d.items[i].err = ""
		ids = append(ids, d.items[i].a.ID)
	}
	d.refresh()
	for _, id := range ids {
		d.decide(id, AllowOnce)
	}
}

// saveSecret hands the secret the shown call waits for to the hub.
func (d *approvalDialog) saveSecret() {
	it, ok := d.current()
	if !ok || !it.a.NeedsSecret || it.busy || it.saved || d.setSecret == nil {
		return
	}
	secret := d.secretEntry.Text
	if secret == "" {
		d.items[d.cur].err = "enter the secret first"
		d.refresh()
		return
	}
	id := it.a.ID
	d.items[d.cur].busy = true
	d.items[d.cur].err = ""
	d.refresh()
	d.setSecret(it.a.Source, it.a.Connection, secret, func(err error) {
		for i := range d.items {
			if d.items[i].a.ID == id {
				d.items[i].busy = false
				if err != nil {
					d.items[i].err = err.Error()
				} else {
					d.items[i].saved = true
				}
			}
		}
		if err == nil {
			d.secretEntry.SetText("")
		}
		d.refresh()
	})
}

func (d *approvalDialog) decisionButtons() []*decisionButton {
	return []*decisionButton{d.deny, d.allowOnce, d.allowAlways, d.denyAlways}
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
