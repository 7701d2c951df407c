//go:build !headless

package ui

import (
	"reflect"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/internal/hiddentext"
)

// approvalDialog is the window that asks about waiting tool calls, one at a
// time, with the queue position in a corner, the other waiting calls of the
// same run named (and allowed together with one button), the whole redacted
// arguments (every call's, for a run's plan), what changed in a changed
// tool's definition, and the run's code with the call marked. The width is
// fixed and long text wraps, so the buttons stay in the window. All its
// methods run on the Fyne main goroutine.
type approvalDialog struct {
	win       fyne.Window
	decide    func(id string, d Decision) // hands a decision to the hub, never blocks
	setSecret func(source, connection, secret string, done func(error))
	signIn    func(source, connection string, showURL func(string), done func(error))
	now       func() time.Time

	items []queueItem
	cur   int
	shown bool
	// shownID is the call the widgets show; the views scroll back and the
	// change tab comes forward only when it changes.
	shownID string

	count, address, title, description, annotations *widget.Label
	request                                         *widget.Label
	connection, reason, askedBy, deadline           *widget.Label
	group                                           *widget.Label
	allowRun                                        *widget.Button
	groupBox                                        *fyne.Container

	argsTitle *widget.Label
	views     dialogViews // what the lower views show, kept while the calls stay the same
	argLines  []gridLine
	args      *gridView
	codeLines []codeLine
	code      *gridView
	diffLines []gridLine
	diff      *gridView
	lower     *container.AppTabs
	split     *container.Split
	change    *widget.Label
	codeTab   *container.TabItem
	diffTab   *container.TabItem

	secretBox   *fyne.Container
	secretLabel *widget.Label
	secretEntry *widget.Entry
	secretSave  *widget.Button
	// secretFor is the secretOwner of what secretEntry holds: the field is
	// emptied whenever the dialog shows another owner's request.
	secretFor string

	signInBox    *fyne.Container
	signInLabel  *widget.Label
	signInButton *widget.Button
	signInURL    *widget.Entry
	signInCopy   *widget.Button
	// signInAt is the sign-in page's address for the call signInFor, once
	// the hub gave it.
	signInAt, signInFor string
	signingIn           bool

	status              *widget.Label
	prev, next, dismiss *widget.Button
	allowOnce           *decisionButton
	allowAlways         *decisionButton
	deny, denyAlways    *decisionButton
}

// decisionButton is a button that passes Escape on to the dialog and takes
// Enter itself: a focused widget receives the keys, so without this Escape
// would not deny once a button has focus, and Enter would do nothing.
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

// TypedKey hands Escape to the dialog, presses the button on Enter, and
// gives everything else to the button.
func (b *decisionButton) TypedKey(ev *fyne.KeyEvent) {
	switch deny, press := pressButton(ev.Name); {
	case deny:
		b.onKey(ev)
	case press:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	default:
		b.Button.TypedKey(ev)
	}
}

// dialogWidth is the dialog's width: long text wraps within it, so the
// buttons never leave the window.
const dialogWidth = 780

func newApprovalDialog(a fyne.App, decide func(string, Decision), setSecret func(source, connection, secret string, done func(error)),
	signIn func(source, connection string, showURL func(string), done func(error)), now func() time.Time) *approvalDialog {
	d := &approvalDialog{decide: decide, setSecret: setSecret, signIn: signIn, now: now, cur: -1}
	d.win = a.NewWindow("capabilities: approve a tool call")
	d.win.SetIcon(appIcon)

	wrapped := func() *widget.Label {
		l := widget.NewLabel("")
		l.Wrapping = fyne.TextWrapWord
		return l
	}
	d.count = widget.NewLabel("")
	d.count.Importance = widget.MediumImportance
	d.address = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	d.address.SizeName = theme.SizeNameSubHeadingText
	d.address.Truncation = fyne.TextTruncateEllipsis
	d.title = wrapped()
	// The description wraps: dialogDescription keeps it to a few lines.
	d.description = wrapped()
	d.description.SizeName = theme.SizeNameCaptionText
	d.request = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	d.request.Wrapping = fyne.TextWrapBreak
	d.annotations = wrapped()
	d.connection = wrapped()
	d.reason = wrapped()
	d.askedBy = wrapped()
	d.deadline = widget.NewLabel("")

	d.group = wrapped()
	d.allowRun = widget.NewButtonWithIcon("", theme.ConfirmIcon(), d.allowGroup)
	d.groupBox = container.NewBorder(nil, nil, nil, d.allowRun, d.group)

	d.args = newGrid()
	d.code = newGrid()
	d.diff = newGrid()

	d.secretLabel = wrapped()
	d.secretEntry = widget.NewPasswordEntry()
	d.secretEntry.SetPlaceHolder("the token or password; it goes to the OS keychain")
	d.secretEntry.OnSubmitted = func(string) { d.saveSecret() }
	d.secretSave = widget.NewButtonWithIcon("Save to keychain", theme.DocumentSaveIcon(), d.saveSecret)
	d.secretSave.Importance = widget.HighImportance
	d.secretBox = container.NewVBox(d.secretLabel, container.NewBorder(nil, nil, nil, d.secretSave, d.secretEntry))

	d.signInLabel = wrapped()
	d.signInButton = widget.NewButtonWithIcon("Sign in", theme.LoginIcon(), d.startSignIn)
	d.signInButton.Importance = widget.HighImportance
	d.signInURL = widget.NewEntry()
	d.signInURL.OnChanged = func(string) { // read-only, but selectable
		if d.signInURL.Text != d.signInAt {
			d.signInURL.SetText(d.signInAt)
		}
	}
	d.signInCopy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		a.Clipboard().SetContent(d.signInAt)
	})
	d.signInBox = container.NewVBox(
		container.NewBorder(nil, nil, nil, d.signInButton, d.signInLabel),
		container.NewBorder(nil, nil, nil, d.signInCopy, d.signInURL),
	)

	d.status = wrapped()
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
	top := container.NewVBox(header, d.title, d.description, d.request, widget.NewSeparator(), details, d.groupBox, d.secretBox, d.signInBox)
	d.argsTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	argsPane := container.NewBorder(d.argsTitle, nil, nil, nil, d.args.scroll)
	d.change = widget.NewLabel("")
	d.change.Wrapping = fyne.TextWrapWord
	d.change.Importance = widget.WarningImportance
	d.codeTab = container.NewTabItem("The run's code, this call marked", d.code.scroll)
	d.diffTab = container.NewTabItem("What changed in the tool's definition", container.NewBorder(d.change, nil, nil, nil, d.diff.scroll))
	d.lower = container.NewAppTabs(d.codeTab)
	d.split = container.NewVSplit(argsPane, d.lower)
	d.split.Offset = 0.5
	buttons := container.NewHBox(d.prev, d.next, layout.NewSpacer(), d.dismiss, d.deny, d.allowOnce, d.allowAlways, d.denyAlways)
	bottom := container.NewVBox(d.status, widget.NewSeparator(), buttons)
	d.win.SetContent(container.NewBorder(top, bottom, nil, nil, d.split))
	d.win.Resize(fyne.NewSize(dialogWidth, 760))
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
		d.request.Hide()
		d.shownID = ""
		d.setViews("Arguments (secrets redacted)", nil, nil, nil)
		for _, b := range d.decisionButtons() {
			b.Disable()
		}
		d.dismiss.Hide()
		d.groupBox.Hide()
		d.clearSecretFor("")
		d.secretBox.Hide()
		d.signInBox.Hide()
		return
	}
	a := it.a
	fresh := a.ID != d.shownID
	d.shownID = a.ID
	d.clearSecretFor(secretOwner(a))
	d.address.SetText(a.Address)
	showText(d.title, hiddentext.Show(a.Title))
	showText(d.description, hiddentext.Show(dialogDescription(a.Title, a.Description, 300)))
	if a.Method != "" {
		showText(d.request, hiddentext.Reveal(requestText(a)))
	} else {
		showText(d.request, "")
	}
	d.annotations.SetText(annotationsText(a))
	d.connection.SetText(dialogConnectionText(a))
	d.reason.SetText(a.Reason)
	d.askedBy.SetText(askedByText(a))
	d.deadline.SetText(itemExpiryText(it, now))

	group := runGroup(d.items, d.cur)
	v := d.lowerViews(group)
	changed := a.Change != "" || a.DefinitionIs != ""
	if changed {
		d.change.SetText(changeText(a.Change))
	}
	d.setViews(v.argsTitle, v.args, v.code, v.diff)
	d.showChangeTab(changed, fresh)
	if text := groupText(d.items, group); text != "" {
		d.group.SetText(text)
		together := allowableTogether(d.items, group, now)
		d.allowRun.SetText(allowTogetherLabel(len(together), a.Plan != nil))
		setEnabled(d.allowRun, len(together) > 1)
		d.groupBox.Show()
	} else {
		d.groupBox.Hide()
	}
	d.secretBox.Hide()
	d.signInBox.Hide()
	switch {
	case a.NeedsSecret && a.SignIn:
		d.showSignIn(a)
	case a.NeedsSecret:
		d.secretLabel.SetText(secretFieldText(a))
		setEnabled(d.secretSave, !it.busy && !it.saved && a.Source != "")
		setEnabled(d.secretEntry, !it.saved && a.Source != "")
		d.secretBox.Show()
		if a.OffersSignIn && !it.saved {
			d.showSignIn(a)
		}
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

// showSignIn shows the sign-in box for a, with the sign-in page's address
// to copy while this dialog's sign-in of a runs.
func (d *approvalDialog) showSignIn(a Approval) {
	url := ""
	if d.signInFor == a.ID {
		url = d.signInAt
	}
	d.signInLabel.SetText(signInBoxText(a, url))
	setEnabled(d.signInButton, !d.signingIn && a.Source != "")
	d.signInButton.SetText("Sign in")
	if d.signingIn && d.signInFor == a.ID {
		d.signInButton.SetText("Waiting for the browser…")
	}
	d.signInURL.SetText(url)
	if url != "" {
		d.signInURL.Show()
		d.signInCopy.Show()
	} else {
		d.signInURL.Hide()
		d.signInCopy.Hide()
	}
	d.signInBox.Show()
}

// showChangeTab puts the definition diff's tab first when the shown call's
// tool changed, and brings it forward when the call is new on screen.
func (d *approvalDialog) showChangeTab(changed, fresh bool) {
	has := len(d.lower.Items) > 1
	switch {
	case changed && !has:
		d.lower.SetItems([]*container.TabItem{d.diffTab, d.codeTab})
		d.lower.Select(d.diffTab)
	case changed && fresh:
		d.lower.Select(d.diffTab)
	case !changed && has:
		d.lower.SetItems([]*container.TabItem{d.codeTab})
	}
	// The diff gets the room: the arguments of a changed tool's call
	// come first, but the change is what the person decides on.
	offset := 0.5
	if changed {
		offset = 0.3
	}
	if fresh && d.split.Offset != offset {
		d.split.SetOffset(offset)
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

// setViews shows new arguments, code and definition diff, keeping the
// scroll positions of the views that did not change.
// dialogViews is what the dialog's lower views show of the current call
// and the calls of its run: the arguments (or the plan), the code, the
// definition's diff; of is the calls they were made of, cur the current.
type dialogViews struct {
	of        []Approval
	cur       int
	argsTitle string
	args      []gridLine
	code      []codeLine
	diff      []gridLine
}

// lowerViews makes the lower views of the current call and its run's calls
// (group), or returns the ones made last when those calls are the same: a
// call's arguments can be megabytes, and refresh runs every second while
// the dialog counts down.
func (d *approvalDialog) lowerViews(group []int) dialogViews {
	of := make([]Approval, len(group))
	for k, i := range group {
		of[k] = d.items[i].a
	}
	if d.views.of != nil && d.views.cur == d.cur && reflect.DeepEqual(d.views.of, of) {
		return d.views
	}
	a := d.items[d.cur].a
	v := dialogViews{of: of, cur: d.cur, argsTitle: "Arguments (secrets redacted)"}
	v.args = append(previewLines(a.Preview), lookAlikeLines(a.Preview, a.Code, "")...)
	if size := cutSize(a.Preview); size != "" {
		v.argsTitle = "Arguments (secrets redacted): the first 64 KB of " + size + ", cut where the last line says"
	}
	switch {
	case a.Plan != nil && len(group) > 1:
		v.argsTitle, v.args = "The run's plan: every call with its arguments (secrets redacted)", planGrid(d.items, group, d.cur)
	case len(group) > 1:
		v.argsTitle, v.args = "The run's waiting calls, each with its arguments (secrets redacted)", planGrid(d.items, group, d.cur)
	}
	if a.Change != "" || a.DefinitionIs != "" {
		v.diff = definitionDiff(a.DefinitionWas, a.DefinitionIs)
	}
	others := make([]string, len(of))
	for k := range of {
		others[k] = of[k].Address
	}
	v.code = codeView(secrets.RedactCredentials(a.Code), a.Address, others)
	d.views = v
	return v
}

func (d *approvalDialog) setViews(argsTitle string, args []gridLine, code []codeLine, diff []gridLine) {
	d.argsTitle.SetText(argsTitle)
	if !slices.Equal(args, d.argLines) {
		d.argLines = args
		d.args.set(args)
		d.args.scrollTo(firstStyle(args, lineCurrent))
	}
	if !slices.Equal(code, d.codeLines) {
		d.codeLines = code
		d.code.set(codeGrid(code))
		d.code.scrollTo(firstMark(code))
	}
	if !slices.Equal(diff, d.diffLines) {
		d.diffLines = diff
		d.diff.set(diff)
		d.diff.scrollTo(0)
	}
}

// gridStyle is how a line style is drawn; nil: as plain text.
func gridStyle(s lineStyle) widget.TextGridStyle {
	fg := func(name fyne.ThemeColorName) widget.TextGridStyle {
		return &widget.CustomTextGridStyle{FGColor: theme.Color(name)}
	}
	switch s {
	case lineHead:
		return &widget.CustomTextGridStyle{TextStyle: fyne.TextStyle{Monospace: true}}
	case lineCurrent:
		return &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameWarning), TextStyle: fyne.TextStyle{Monospace: true}}
	case lineOther:
		return fg(theme.ColorNamePrimary)
	case lineWarn, lineRemoved:
		return fg(theme.ColorNameError)
	case lineAdded:
		return fg(theme.ColorNameSuccess)
	case lineDim:
		return fg(theme.ColorNamePlaceHolder)
	}
	return nil
}

// argsText is the whole arguments view as text (tests).
func (d *approvalDialog) argsText() string { return gridText(d.argLines) }

// codeText is the whole code view as text (tests).
func (d *approvalDialog) codeText() string { return gridText(codeGrid(d.codeLines)) }

// diffText is the whole definition diff as text (tests).
func (d *approvalDialog) diffText() string { return gridText(d.diffLines) }

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
		d.items[d.cur].err, d.items[d.cur].signInFailed = "enter the secret first", false
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
					d.items[i].err, d.items[i].signInFailed = err.Error(), false
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

// startSignIn signs the shown call's connection in. The hub opens the
// sign-in page in the browser and hands the dialog its address, which
// it shows for copying; the run continues when the model resumes it.
func (d *approvalDialog) startSignIn() {
	it, ok := d.current()
	if !ok || !it.a.NeedsSecret || !(it.a.SignIn || it.a.OffersSignIn) || d.signingIn || d.signIn == nil {
		return
	}
	id := it.a.ID
	d.signingIn = true
	d.signInFor, d.signInAt = id, ""
	d.items[d.cur].err = ""
	d.refresh()
	d.signIn(it.a.Source, it.a.Connection, func(url string) {
		if d.signInFor == id {
			d.signInAt = url
			d.refresh()
		}
	}, func(err error) {
		d.signingIn = false
		for i := range d.items {
			if d.items[i].a.ID == id {
				if err != nil {
					d.items[i].err, d.items[i].signInFailed = err.Error(), true
				} else {
					d.items[i].saved = true
				}
			}
		}
		if d.signInFor == id {
			d.signInAt = ""
		}
		d.refresh()
	})
}
