//go:build !headless

package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// Tab names of the main window.
const (
	tabApprovals = "Approvals"
	tabRuns      = "Runs"
	tabSources   = "Sources"
	tabSkills    = "Skills"
	tabPolicy    = "Policy"
	tabClients   = "Clients"
)

// actions are what the main window asks of the rest of the UI. Each hub
// action runs off the main goroutine and reports back through done, on the
// main goroutine.
type actions struct {
	review    func(approvalID string)
	setSecret func(source, connection, secret string, done func(error))
	// setSecretIn stores one where the person says it goes (Hub.SetSecretIn).
	setSecretIn func(source, connection, name string, bearer bool, secret string, done func(error))
	// secretPlace says what a connection's secret fills (Hub.SecretPlace).
	secretPlace func(source, connection string, done func(where string, signIn bool, err error))
	// changedDefinition reads a changed tool's definitions (Hub.ChangedDefinition).
	changedDefinition func(address string, done func(was, is, hash string, err error))
	acceptTools       func(shown []ToolChange, done func(error))
	// runCalls reads the calls of the run shown (Hub.RunCalls).
	runCalls  func(runID string, done func([]CallSummary, error))
	setPolicy func(pattern, mode string, done func(error))
	// removePolicy removes the rules of a pattern.
	removePolicy func(pattern string, done func(error))
	// connect connects an MCP client to the hub or a profile ("" for
	// the whole hub); only when canConnect.
	connect    func(client, profile string, done func(msg string, err error))
	canConnect bool
	// refresh reloads what the window shows (the connected clients have
	// no hub event).
	refresh func()
	// The Sources tab's actions on a source.
	addSource        func(spec SourceSpec, done func(error))
	removeSource     func(name string, done func(error))
	restartSource    func(name string, done func(error))
	setSourceEnabled func(name string, enabled bool, done func(error))
	allowOrigin      func(source, origin string, done func(error))
	removeOrigin     func(source, origin string, done func(error))
	setBaseURL       func(source, baseURL string, done func(error))
	// The connection form's actions besides saving a secret.
	setDefaultConnection func(source, connection string, done func(error))
	removeConnection     func(source, connection string, done func(error))
	// openImport opens the first-run window on the hub's import offer.
	openImport func()
	// signIn signs an OAuth connection in; done may come much later, once
	// the person finished in the browser. signOut signs one out, and
	// setClient keeps the client registered beforehand it signs in as.
	signIn    func(source, connection string, done func(error))
	signOut   func(source, connection string, done func(error))
	setClient func(source, connection, clientID, secret string, redirectPort int, done func(error))
	// addProfile and removeProfile edit config.json's profiles.
	addProfile    func(spec ProfileSpec, done func(error))
	removeProfile func(name string, done func(error))
	// setSkillFolder adds (add) or removes a folder of skills.
	setSkillFolder func(dir string, add bool, done func(error))
}

// mainWindow shows the hub: approvals and their history, runs, sources and
// policy. All its methods run on the Fyne main goroutine.
type mainWindow struct {
	win  fyne.Window
	tabs *container.AppTabs
	act  actions
	now  func() time.Time
	snap snapshot

	problems *widget.Label // what the hub failed to answer; hidden when nothing

	pendingList *widget.List
	historyList *widget.List
	pendingHint *widget.Label
	historyHint *widget.Label

	runList                                *widget.List
	runID                                  string // the run shown; the selection stays on it
	runHeader                              *widget.Label
	runCode, runCalls, runEnvelope, runLog *widget.Label
	runCallsOf                             string // the run and state whose calls runCalls shows or reads
	runDetail                              *container.AppTabs

	importBox    *fyne.Container // the import offer, empty when none
	sourcesBox   *fyne.Container
	signingIn    map[string]bool        // source + "/" + connection: a Login runs
	signInErr    map[string]string      // the last Login error per connection
	clientForms  map[string]*clientForm // connections whose server needs a client registered beforehand
	signInDone   chan string            // tests: the key of a sign-in that reported back
	secretSource *widget.Select
	secretWhere  *widget.Label // what the secret fills, or that a sign-in provides it
	// secretName names the variable or header the secret goes in, when
	// the hub cannot tell (secretNameFor, its label, and secretNameRow
	// show then); secretBearer sends a header's as a bearer token.
	secretName    *widget.Entry
	secretBearer  *widget.Check
	secretNameRow *fyne.Container
	secretNameFor *widget.Label
	secretConn    *widget.SelectEntry
	connChoices   []string // the secretConn choices, for the source picked
	secretValue   *widget.Entry
	secretSave    *widget.Button
	secretResult  *widget.Label
	connDefault   *widget.Button // makes the picked connection the default
	connRemove    *widget.Button // removes it, on a second tap
	connRemoving  string         // "source/connection" whose Remove asks to confirm
	connBusy      bool           // a connection action runs
	changes       *changesPanel
	showTools     map[string]bool // sources whose tool list is open
	toolPanels    map[string]*toolsPanel
	sourceMsg     map[string]string // the last action's outcome per source
	sourceBusy    map[string]bool   // an action on the source runs
	removing      string            // the source whose Remove asks to confirm
	allowing      string            // the source and origin (" ") whose Allow asks to confirm
	editingBase   string            // the OpenAPI source whose base URL is being changed
	baseEntry     *widget.Entry     // its new base URL, kept across renders
	sourcesScroll *container.Scroll
	addForm       fyne.CanvasObject // the Add a source form
	addName       *widget.Entry
	addKind       *widget.RadioGroup
	addTarget     *widget.Entry
	addBase       *widget.Entry // an OpenAPI source's base URL, shown for that kind
	addExtra      *widget.Entry // a program's environment or an HTTP server's headers
	addButton     *widget.Button
	addResult     *widget.Label

	connectedLabel *widget.Label
	profilePick    *widget.Select
	clientCmds     map[string]*widget.Label // the install command shown per client

	skillsBox    *fyne.Container // the skills, the skipped folders and the folders read
	skillsBody   *fyne.Container
	skillsScroll *container.Scroll
	skillFolder  *widget.Entry
	skillAdd     *widget.Button
	skillResult  *widget.Label

	profilesBox     *fyne.Container
	profileName     *widget.Entry
	profileSources  *widget.CheckGroup
	profilePins     *fyne.Container           // a connection picker per picked source with several
	pinSelects      map[string]*widget.Select // by source, kept across renders
	profileRules    *widget.Entry
	profileDirect   *widget.Check
	profileReadOnly *widget.Check
	profileAdd      *widget.Button
	profileResult   *widget.Label
	removingProfile string // the profile whose Remove asks to confirm

	policyList    *widget.List
	policyPattern *widget.Entry
	policyMode    *widget.RadioGroup
	policySet     *widget.Button
	policyResult  *widget.Label
	policyHint    *widget.Label
}

func newMainWindow(a fyne.App, act actions, now func() time.Time) *mainWindow {
	m := &mainWindow{act: act, now: now, signingIn: map[string]bool{}, signInErr: map[string]string{}, clientForms: map[string]*clientForm{},
		showTools: map[string]bool{}, toolPanels: map[string]*toolsPanel{}, sourceMsg: map[string]string{}, sourceBusy: map[string]bool{}, clientCmds: map[string]*widget.Label{}}
	m.win = a.NewWindow("capabilities")
	m.win.SetIcon(appIcon)
	m.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(tabApprovals, theme.ConfirmIcon(), m.approvalsTab()),
		container.NewTabItemWithIcon(tabRuns, theme.MediaPlayIcon(), m.runsTab()),
		container.NewTabItemWithIcon(tabSources, theme.StorageIcon(), m.sourcesTab()),
		container.NewTabItemWithIcon(tabSkills, theme.DocumentIcon(), m.skillsTab()),
		container.NewTabItemWithIcon(tabPolicy, theme.SettingsIcon(), m.policyTab()),
		container.NewTabItemWithIcon(tabClients, theme.ComputerIcon(), m.clientsTab()),
	)
	m.problems = widget.NewLabel("")
	m.problems.Wrapping = fyne.TextWrapWord
	m.problems.Importance = widget.DangerImportance
	m.problems.Hide()
	m.win.SetContent(container.NewBorder(m.problems, nil, nil, nil, m.tabs))
	m.win.Resize(fyne.NewSize(900, 680))
	m.win.SetCloseIntercept(m.win.Hide)
	return m
}

// show brings the window up on a tab ("" keeps the current one).
func (m *mainWindow) show(tab string) {
	for _, it := range m.tabs.Items {
		if it.Text == tab {
			m.tabs.Select(it)
		}
	}
	m.win.Show()
	m.win.RequestFocus()
}

// showRun brings the window up on one run.
func (m *mainWindow) showRun(id string) {
	m.show(tabRuns)
	for i, r := range m.snap.runs {
		if r.ID == id {
			m.runList.Select(i)
		}
	}
}

func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

func mono(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Selectable = true
	return l
}

func (m *mainWindow) approvalsTab() fyne.CanvasObject {
	m.pendingList = widget.NewList(
		func() int { return len(m.snap.pending) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(m.snap.pending) {
				a := m.snap.pending[i]
				o.(*widget.Label).SetText(pendingRowText(a, m.now()))
			}
		})
	m.pendingList.OnSelected = func(i widget.ListItemID) {
		if i < len(m.snap.pending) {
			m.act.review(m.snap.pending[i].ID)
		}
		m.pendingList.UnselectAll()
	}
	m.historyList = widget.NewList(
		func() int { return len(m.snap.history) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(m.snap.history) {
				o.(*widget.Label).SetText(historyLine(m.snap.history[i], m.now()))
			}
		})
	m.pendingHint = widget.NewLabel(pendingHint(0))
	m.pendingHint.Wrapping = fyne.TextWrapWord
	m.historyHint = widget.NewLabel(historyHint(0))
	m.historyHint.Wrapping = fyne.TextWrapWord
	waiting := container.NewBorder(
		container.NewVBox(heading("Waiting for a decision"), m.pendingHint),
		nil, nil, nil, m.pendingList)
	history := container.NewBorder(container.NewVBox(heading("Decisions"), m.historyHint), nil, nil, nil, m.historyList)
	split := container.NewVSplit(waiting, history)
	split.Offset = 0.4
	return split
}

func (m *mainWindow) runsTab() fyne.CanvasObject {
	m.runList = widget.NewList(
		func() int { return len(m.snap.runs) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			title.Truncation = fyne.TextTruncateEllipsis
			sub := widget.NewLabel("")
			sub.SizeName = theme.SizeNameCaptionText
			sub.Truncation = fyne.TextTruncateEllipsis
			return container.New(layout.NewCustomPaddedVBoxLayout(0), title, sub)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(m.snap.runs) {
				c := o.(*fyne.Container)
				c.Objects[0].(*widget.Label).SetText(runTitle(m.snap.runs[i], m.now()))
				c.Objects[1].(*widget.Label).SetText(runSubtitle(m.snap.runs[i]))
			}
		})
	m.runList.OnSelected = func(i widget.ListItemID) {
		if i < len(m.snap.runs) {
			m.runID = m.snap.runs[i].ID
			m.showRunDetail()
		}
	}
	m.runHeader = widget.NewLabelWithStyle(runsHint(0), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	m.runHeader.Wrapping = fyne.TextWrapWord
	m.runCode, m.runCalls, m.runEnvelope, m.runLog = mono(""), mono(""), mono(""), mono("")
	m.runDetail = container.NewAppTabs(
		container.NewTabItem("Calls", container.NewScroll(m.runCalls)),
		container.NewTabItem("Code", container.NewScroll(m.runCode)),
		container.NewTabItem("Envelope", container.NewScroll(m.runEnvelope)),
		container.NewTabItem("Logs", container.NewScroll(m.runLog)),
	)
	split := container.NewHSplit(m.runList, container.NewBorder(m.runHeader, nil, nil, nil, m.runDetail))
	split.Offset = 0.3
	return split
}

// showRunCalls shows the calls of run r with their details, read from the
// hub when the run is picked and again when it moved on (a call made or
// answered, its state), not on every refresh.
func (m *mainWindow) showRunCalls(r *RunSummary) {
	of := fmt.Sprintf("%s %s %v", r.ID, r.Status, r.Calls)
	if of == m.runCallsOf {
		return
	}
	if !strings.HasPrefix(m.runCallsOf, r.ID+" ") {
		m.runCalls.SetText("Reading the calls…")
	}
	m.runCallsOf = of
	if m.act.runCalls == nil {
		m.runCalls.SetText(hiddentext.Reveal(callsText(r.Calls)))
		return
	}
	m.act.runCalls(r.ID, func(calls []CallSummary, err error) {
		switch {
		case m.runCallsOf != of: // another run, or this one moved on
		case err != nil:
			m.runCalls.SetText("The calls cannot be read: " + err.Error())
		default:
			m.runCalls.SetText(hiddentext.Reveal(callsText(calls)))
		}
	})
}

func (m *mainWindow) showRunDetail() {
	var r *RunSummary
	for i := range m.snap.runs {
		if m.snap.runs[i].ID == m.runID {
			r = &m.snap.runs[i]
		}
	}
	if r == nil {
		m.runHeader.SetText(runsHint(len(m.snap.runs)))
		for _, l := range []*widget.Label{m.runCode, m.runCalls, m.runEnvelope, m.runLog} {
			l.SetText("")
		}
		m.runCallsOf = ""
		return
	}
	m.runHeader.SetText(fmt.Sprintf("Run %s: %s, %s, started %s", r.ID, r.Status, r.Client, clock(r.Started, m.now())))
	m.runCode.SetText(hiddentext.Reveal(r.Code))
	m.showRunCalls(r)
	m.runEnvelope.SetText(hiddentext.Reveal(prettyJSON(r.Envelope)))
	logs := strings.Join(r.Logs, "\n")
	if logs == "" {
		logs = "(no logs)"
	}
	m.runLog.SetText(hiddentext.Reveal(logs))
}

func (m *mainWindow) sourcesTab() fyne.CanvasObject {
	m.importBox = container.NewVBox()
	m.sourcesBox = container.NewVBox()
	m.addForm = m.addSourceForm()
	m.changes = newChangesPanel(m)

	m.secretSource = widget.NewSelect(nil, func(string) { m.fillConnections(); m.showSecretPlace(); m.showConnectionButtons() })
	m.secretSource.PlaceHolder = "(pick a source)"
	m.secretConn = widget.NewSelectEntry(nil)
	m.secretConn.OnChanged = func(string) { m.showSecretPlace(); m.showConnectionButtons() }
	m.secretWhere = widget.NewLabel("")
	m.secretWhere.Wrapping = fyne.TextWrapWord
	m.secretConn.SetPlaceHolder("connection name, e.g. default or work")
	m.secretValue = widget.NewPasswordEntry()
	m.secretValue.SetPlaceHolder("token or password; stored in the OS keychain")
	m.secretResult = widget.NewLabel("")
	m.secretResult.Wrapping = fyne.TextWrapWord
	m.secretSave = widget.NewButtonWithIcon("Save to keychain", theme.DocumentSaveIcon(), m.saveSecret)
	m.secretSave.Importance = widget.HighImportance
	m.secretName = widget.NewEntry()
	m.secretBearer = widget.NewCheck("Bearer token", nil)
	m.secretNameFor = widget.NewLabel("Variable")
	m.secretNameRow = container.NewBorder(nil, nil, nil, m.secretBearer, m.secretName)
	m.secretNameFor.Hide()
	m.secretNameRow.Hide()
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Source"), m.secretSource,
		widget.NewLabel("Connection"), m.secretConn,
		widget.NewLabel("Secret"), m.secretValue,
		widget.NewLabel("Goes to"), m.secretWhere,
		m.secretNameFor, m.secretNameRow,
	)
	m.connectionButtons()
	secret := container.NewVBox(heading("Connections"), form,
		container.NewHBox(m.connDefault, m.connRemove, layout.NewSpacer(), m.secretSave), m.secretResult)

	body := container.NewVBox(
		m.importBox, heading("Sources"), m.sourcesBox, widget.NewSeparator(),
		m.addForm, widget.NewSeparator(),
		heading("Changed definitions"), m.changes.box, widget.NewSeparator(),
		secret,
	)
	m.sourcesScroll = container.NewVScroll(container.NewPadded(body))
	return m.sourcesScroll
}

func (m *mainWindow) fillConnections() {
	var names []string
	for _, c := range m.pickedSourceConnections() {
		names = append(names, c.Name)
	}
	m.connChoices = names
	m.secretConn.SetOptions(names)
}

// showSecretPlace says, under the secret form, what the picked
// connection's secret fills, and turns Save off where a sign-in provides
// the credentials instead.
func (m *mainWindow) showSecretPlace() {
	source, conn := m.secretSource.Selected, strings.TrimSpace(m.secretConn.Text)
	if source == "" || m.act.secretPlace == nil {
		m.secretWhere.SetText(secretPlaceText("", "", false, nil))
		return
	}
	m.act.secretPlace(source, conn, func(where string, signIn bool, err error) {
		if m.secretSource.Selected != source || strings.TrimSpace(m.secretConn.Text) != conn {
			return // the person picked another meanwhile
		}
		m.secretWhere.SetText(secretPlaceText(source, where, signIn, err))
		m.showSecretName(err)
		if signIn {
			m.secretSave.Disable()
		} else {
			m.secretSave.Enable()
		}
	})
}

func (m *mainWindow) saveSecret() {
	source, conn, secret := m.secretSource.Selected, strings.TrimSpace(m.secretConn.Text), m.secretValue.Text
	err := checkSecret(source, conn, secret)
	name := strings.TrimSpace(m.secretName.Text)
	if err == nil && m.secretNameRow.Visible() && name == "" {
		err = errors.New("name the " + strings.ToLower(m.secretNameFor.Text) + " the secret goes in")
	}
	if err != nil {
		m.secretResult.Importance = widget.DangerImportance
		m.secretResult.SetText(err.Error())
		return
	}
	m.secretSave.Disable()
	m.secretResult.Importance = widget.MediumImportance
	m.secretResult.SetText("Saving…")
	save := func(done func(error)) { m.act.setSecret(source, conn, secret, done) }
	if m.secretNameRow.Visible() {
		bearer := m.secretBearer.Checked && !m.secretBearer.Hidden
		save = func(done func(error)) { m.act.setSecretIn(source, conn, name, bearer, secret, done) }
	}
	save(func(err error) {
		m.secretSave.Enable()
		if err != nil {
			m.secretResult.Importance = widget.DangerImportance
			m.secretResult.SetText("Not saved: " + err.Error())
			return
		}
		m.secretValue.SetText("")
		m.secretName.SetText("")
		m.secretResult.Importance = widget.SuccessImportance
		m.secretResult.SetText(fmt.Sprintf("Saved the secret of %s/%s in the keychain.", source, conn))
		m.showSecretPlace()
	})
}

// showSecretName shows the field that names where the secret goes when
// the hub cannot tell (err is a *NoSecretPlace): an environment variable
// of a stdio source, a header of an HTTP one (a bearer token or not).
func (m *mainWindow) showSecretName(err error) {
	var np *NoSecretPlace
	if !errors.As(err, &np) || m.act.setSecretIn == nil {
		m.secretNameFor.Hide()
		m.secretNameRow.Hide()
		return
	}
	if np.Env {
		m.secretNameFor.SetText("Variable")
		m.secretName.SetPlaceHolder("the environment variable the server reads it from, e.g. GITHUB_PERSONAL_ACCESS_TOKEN")
		m.secretBearer.Hide()
	} else {
		m.secretNameFor.SetText("Header")
		m.secretName.SetPlaceHolder("the header that carries it, e.g. Authorization or X-Api-Key")
		m.secretBearer.Show()
	}
	m.secretNameFor.Show()
	m.secretNameRow.Show()
}

func (m *mainWindow) policyTab() fyne.CanvasObject {
	m.policyList = widget.NewList(
		func() int { return len(m.snap.policies) },
		func() fyne.CanvasObject {
			mode := widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
			from := widget.NewLabel("")
			from.SizeName = theme.SizeNameCaptionText
			remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), nil)
			pattern := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			return container.NewBorder(nil, nil, nil, container.NewHBox(from, mode, remove), pattern)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(m.snap.policies) {
				return
			}
			r := m.snap.policies[i]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(r.Pattern)
			right := c.Objects[1].(*fyne.Container)
			right.Objects[0].(*widget.Label).SetText(ruleOrigin(r))
			mode := right.Objects[1].(*widget.Label)
			mode.Importance = modeImportance(r.Mode)
			mode.SetText(r.Mode)
			remove := right.Objects[2].(*widget.Button)
			remove.OnTapped = func() { m.removePolicy(r.Pattern, remove) }
			remove.Enable()
		})
	m.policyList.OnSelected = func(i widget.ListItemID) {
		if i < len(m.snap.policies) {
			m.policyPattern.SetText(m.snap.policies[i].Pattern)
			m.policyMode.SetSelected(m.snap.policies[i].Mode)
		}
	}
	m.policyPattern = widget.NewEntry()
	m.policyPattern.SetPlaceHolder("github.createIssue, or github.* for a namespace")
	m.policyMode = widget.NewRadioGroup(policyModes, nil)
	m.policyMode.Horizontal = true
	m.policyMode.SetSelected(PolicyAsk)
	m.policyResult = widget.NewLabel("")
	m.policyResult.Wrapping = fyne.TextWrapWord
	m.policySet = widget.NewButtonWithIcon("Set", theme.ConfirmIcon(), m.savePolicy)
	m.policySet.Importance = widget.HighImportance
	form := container.NewBorder(nil, nil, nil, container.NewHBox(m.policyMode, m.policySet), m.policyPattern)
	m.policyHint = widget.NewLabel(policyHint(0))
	m.policyHint.Wrapping = fyne.TextWrapWord
	intro := widget.NewLabel("A call to a tool is allowed, asked about or denied by the most specific rule that matches its address.")
	intro.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(heading("Policy"), intro,
		form, m.policyResult, widget.NewSeparator(), m.policyHint)
	return container.NewBorder(top, nil, nil, nil, m.policyList)
}

// removePolicy removes the rules of pattern through the hub.
func (m *mainWindow) removePolicy(pattern string, b *widget.Button) {
	b.Disable()
	m.act.removePolicy(pattern, func(err error) {
		b.Enable()
		tell(m.policyResult, err, "Not removed", fmt.Sprintf("Removed the rules for %s.", pattern))
	})
}

// tell shows an action's outcome on l: what failed and why, after failed
// ("Not set"), or what it did.
func tell(l *widget.Label, err error, failed, done string) {
	if err != nil {
		l.Importance = widget.DangerImportance
		l.SetText(failed + ": " + err.Error())
		return
	}
	l.Importance = widget.SuccessImportance
	l.SetText(done)
}

func modeImportance(mode string) widget.Importance {
	switch mode {
	case PolicyAllow:
		return widget.SuccessImportance
	case PolicyDeny:
		return widget.DangerImportance
	case PolicyAsk:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

func (m *mainWindow) savePolicy() {
	pattern, mode := strings.TrimSpace(m.policyPattern.Text), m.policyMode.Selected
	if err := checkPolicy(pattern, mode); err != nil {
		m.policyResult.Importance = widget.DangerImportance
		m.policyResult.SetText(err.Error())
		return
	}
	m.policySet.Disable()
	m.act.setPolicy(pattern, mode, func(err error) {
		m.policySet.Enable()
		tell(m.policyResult, err, "Not set", fmt.Sprintf("%s is now %s.", pattern, mode))
	})
}

// update shows a new snapshot of the hub.
func (m *mainWindow) update(s snapshot) {
	m.snap = s
	if len(s.errs) > 0 {
		m.problems.SetText("The hub did not answer everything; what is shown may be out of date.\n" + strings.Join(s.errs, "\n"))
		m.problems.Show()
	} else {
		m.problems.Hide()
	}
	m.pendingHint.SetText(pendingHint(len(s.pending)))
	m.historyHint.SetText(historyHint(len(s.history)))
	m.pendingList.Refresh()
	m.historyList.Refresh()
	m.runList.Refresh()
	if i := runIndex(s.runs, m.runID); i >= 0 {
		m.runList.Select(i) // the same run, wherever the refresh put it
	} else {
		m.runList.UnselectAll()
	}
	m.showRunDetail()
	m.updateClients()
	m.policyHint.SetText(policyHint(len(s.policies)))
	m.policyList.Refresh()

	m.renderSkills()
	m.renderProfiles()
	names := m.renderSources()
	m.secretSource.SetOptions(names)
	m.fillConnections()
	m.showConnectionButtons()

	m.changes.set(s.changed)
}

// renderSources fills the import offer and the source list from the
// snapshot and returns the source names.
func (m *mainWindow) renderSources() []string {
	s := m.snap
	m.importBox.Objects = nil
	if s.status.ImportOffer > 0 && s.canImport && m.act.openImport != nil {
		offer := widget.NewLabel(importOfferText(s.status.ImportOffer))
		offer.Wrapping = fyne.TextWrapWord
		b := widget.NewButtonWithIcon("Import…", theme.DownloadIcon(), m.act.openImport)
		b.Importance = widget.HighImportance
		m.importBox.Add(container.NewBorder(nil, nil, nil, b, offer))
		m.importBox.Add(widget.NewSeparator())
	}
	m.importBox.Refresh()

	m.sourcesBox.Objects = nil
	if len(s.status.Sources) == 0 {
		m.sourcesBox.Add(widget.NewLabel("No sources yet. Add one below, or in config.json in the config folder."))
	}
	var names []string
	for _, src := range s.status.Sources {
		names = append(names, src.Name)
		name := widget.NewLabelWithStyle(src.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		state := widget.NewLabel(strings.TrimPrefix(sourceLabel(src), src.Name+": "))
		state.Importance = sourceImportance(src.State)
		state.Truncation = fyne.TextTruncateEllipsis
		conns := widget.NewLabel("Connections: " + connectionsText(src.Connections))
		conns.Wrapping = fyne.TextWrapWord
		conns.SizeName = theme.SizeNameCaptionText
		row := container.NewVBox(container.NewBorder(nil, nil, name, m.sourceActions(src), state), conns)
		if len(src.Warnings) > 0 {
			w := widget.NewLabel("Served in part: " + strings.Join(src.Warnings, "; "))
			w.Wrapping = fyne.TextWrapWord
			w.SizeName = theme.SizeNameCaptionText
			w.Importance = widget.WarningImportance
			row.Add(w)
		}
		if src.OpenAPI {
			row.Add(m.apiRow(src))
			for _, origin := range src.Origins {
				row.Add(m.servedOriginRow(src.Name, origin))
			}
		}
		for _, origin := range src.Elsewhere {
			row.Add(m.originRow(src.Name, origin))
		}
		for _, si := range src.SignIns {
			row.Add(m.signInRow(src.Name, si))
		}
		m.sourceDetails(row, src)
		m.sourcesBox.Add(row)
	}
	m.sourcesBox.Refresh()
	return names
}

// signInRow is an OAuth connection's state, with a Sign in button while it
// needs one.
func (m *mainWindow) signInRow(source string, si SignInStatus) fyne.CanvasObject {
	key := source + "/" + si.Connection
	state := widget.NewLabel(signInText(si))
	state.Wrapping = fyne.TextWrapWord
	state.Importance = widget.SuccessImportance
	if !si.SignedIn {
		state.Importance = widget.WarningImportance
	}
	var right fyne.CanvasObject
	if si.SignedIn && m.act.signOut != nil {
		b := widget.NewButtonWithIcon("Sign out", theme.LogoutIcon(), func() { m.signOut(source, si.Connection) })
		if m.signingIn[key] {
			b.Disable()
		}
		right = b
	}
	if !si.SignedIn && m.act.signIn != nil {
		b := widget.NewButtonWithIcon("Sign in", theme.LoginIcon(), func() { m.startSignIn(source, si.Connection) })
		b.Importance = widget.HighImportance
		if m.signingIn[key] {
			b.SetText("Waiting for the browser…")
			b.Disable()
		}
		right = b
	}
	row := container.NewBorder(nil, nil, nil, right, state)
	if si.SignedIn && !strings.HasPrefix(m.signInErr[key], signedOutBut) {
		// Signed in since (here, in a terminal or through a run's page):
		// an earlier failure no longer says anything true.
		delete(m.signInErr, key)
	}
	out := container.NewVBox(row)
	if e := m.signInErr[key]; e != "" {
		errl := widget.NewLabel(e)
		errl.Wrapping = fyne.TextWrapWord
		errl.Importance = widget.DangerImportance
		out.Add(errl)
	}
	if f := m.clientForms[key]; f != nil && !si.SignedIn && m.act.setClient != nil {
		out.Add(f.box)
	}
	return out
}

// askClient shows, under conn of source, why its sign-in needs a client
// registered beforehand and the form that takes it: the client's id and
// secret for a client credentials flow (credentials), else its id, its
// secret if any and its redirect port.
func (m *mainWindow) askClient(source, conn string, err error) {
	key, credentials := source+"/"+conn, errors.Is(err, ErrNeedsClientCredentials)
	m.signInErr[key] = "Not signed in: " + needsClientWhy(err)
	if f := m.clientForms[key]; f == nil || f.credentials != credentials {
		m.clientForms[key] = m.newClientForm(source, conn, credentials)
	}
}

// clientForm takes the client a connection signs in as, registered with
// an authorization server that takes no registration the hub can make.
// It is made once per connection, so what the person typed survives the
// source list's redraws.
type clientForm struct {
	id, secret, port *widget.Entry
	save             *widget.Button
	box              fyne.CanvasObject
	// credentials: a REST API's client credentials flow, which takes the
	// client's id and secret and no redirect port.
	credentials bool
}

// newClientForm is the client form of conn of source.
func (m *mainWindow) newClientForm(source, conn string, credentials bool) *clientForm {
	f := &clientForm{id: widget.NewEntry(), secret: widget.NewPasswordEntry(), port: widget.NewEntry(), credentials: credentials}
	f.id.SetPlaceHolder("client id")
	f.secret.SetPlaceHolder("client secret, if it has one; kept in the keychain")
	if credentials {
		f.secret.SetPlaceHolder("client secret; kept in the keychain")
	}
	f.port.SetPlaceHolder("port")
	f.port.Validator = func(s string) error {
		if _, ok := redirectPort(s); !ok {
			return fmt.Errorf("a port from 1 to 65535")
		}
		return nil
	}
	f.save = widget.NewButtonWithIcon("Save client and sign in", theme.LoginIcon(), func() { m.saveClient(source, conn, f) })
	f.save.Importance = widget.HighImportance
	help := widget.NewLabel(clientFormText)
	help.Wrapping = fyne.TextWrapWord
	help.SizeName = theme.SizeNameCaptionText
	grid := container.New(layout.NewFormLayout(),
		widget.NewLabel("Client id"), f.id,
		widget.NewLabel("Secret"), f.secret,
		widget.NewLabel("Redirect port"), container.NewBorder(nil, nil, nil, f.save, f.port))
	if credentials { // no browser, so no redirect
		help.SetText(credentialsFormText)
		f.save.SetText("Save client and get a token")
		grid = container.New(layout.NewFormLayout(),
			widget.NewLabel("Client id"), f.id,
			widget.NewLabel("Secret"), container.NewBorder(nil, nil, nil, f.save, f.secret))
	}
	f.box = container.NewVBox(help, grid)
	return f
}

// saveClient keeps the client of the form for conn of source through the
// hub, then signs in as it.
func (m *mainWindow) saveClient(source, conn string, f *clientForm) {
	key := source + "/" + conn
	port, ok := redirectPort(f.port.Text)
	if f.credentials {
		port, ok = 0, f.secret.Text != ""
	}
	if strings.TrimSpace(f.id.Text) == "" || !ok || m.signingIn[key] {
		m.signInErr[key] = "Not signed in: give the client id and the port of the redirect URI registered for it."
		if f.credentials {
			m.signInErr[key] = "Not signed in: give the client's id and secret."
		}
		m.renderSources()
		return
	}
	f.save.Disable()
	m.act.setClient(source, conn, strings.TrimSpace(f.id.Text), f.secret.Text, port, func(err error) {
		f.save.Enable()
		if err != nil {
			m.signInErr[key] = "The client was not saved: " + err.Error()
			m.renderSources()
			return
		}
		delete(m.clientForms, key)
		m.startSignIn(source, conn)
	})
}

// signedOutBut starts the note of a sign-out whose tokens left the keychain
// but whose server did not confirm their revocation, or that failed.
const signedOutBut = "Sign-out: "

// signOut signs conn of source out through the hub; the source list shows
// it waiting, then the outcome.
func (m *mainWindow) signOut(source, conn string) {
	key := source + "/" + conn
	if m.act.signOut == nil || m.signingIn[key] {
		return
	}
	m.signingIn[key] = true
	delete(m.signInErr, key)
	m.renderSources()
	m.act.signOut(source, conn, func(err error) {
		delete(m.signingIn, key)
		if err != nil {
			m.signInErr[key] = signedOutBut + err.Error()
		}
		m.renderSources()
		if m.signInDone != nil {
			m.signInDone <- key
		}
	})
}

// startSignIn signs conn of source in through the hub, unless a sign-in
// this window started runs; the source list shows it waiting, then the
// outcome.
func (m *mainWindow) startSignIn(source, conn string) {
	key := source + "/" + conn
	if m.act.signIn == nil || m.signingIn[key] {
		return
	}
	m.signingIn[key] = true
	delete(m.signInErr, key)
	m.renderSources()
	m.act.signIn(source, conn, func(err error) {
		delete(m.signingIn, key)
		if err != nil {
			m.signInErr[key] = "Not signed in: " + err.Error()
			if errors.Is(err, ErrNeedsClientCredentials) || errors.Is(err, ErrNeedsClient) {
				m.askClient(source, conn, err)
			}
		}
		m.renderSources()
		if m.signInDone != nil {
			m.signInDone <- key
		}
	})
}

func sourceImportance(state string) widget.Importance {
	switch state {
	case SourceUp:
		return widget.SuccessImportance
	case SourceDown:
		return widget.DangerImportance
	case SourceStarting:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

func (m *mainWindow) clientsTab() fyne.CanvasObject {
	m.connectedLabel = widget.NewLabel("")
	m.connectedLabel.Wrapping = fyne.TextWrapWord
	var top fyne.CanvasObject = heading("Connected now")
	if m.act.refresh != nil {
		top = container.NewBorder(nil, nil, nil, widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), m.act.refresh), top)
	}
	intro := widget.NewLabel("An MCP client that runs 'capabilities mcp' sees three tools: search, describe and execute. " +
		"Connecting writes that entry into the client's config file (after a backup) and keeps everything else in it. " +
		"Restart the client afterwards. With a profile, the client sees only the profile's sources.")
	intro.Wrapping = fyne.TextWrapWord
	m.profilePick = widget.NewSelect(profileChoices(nil), func(string) { m.showClientCommands() })
	m.profilePick.SetSelectedIndex(0)
	profile := container.NewBorder(nil, nil, widget.NewLabel("Profile"), nil, m.profilePick)
	rows := container.NewVBox()
	for _, client := range Clients {
		name := widget.NewLabelWithStyle(client, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		cmd := mono(clientCommand(client))
		m.clientCmds[client] = cmd
		result := widget.NewLabel("")
		result.Wrapping = fyne.TextWrapWord
		result.Hide()
		row := container.NewBorder(nil, nil, name, nil, cmd)
		if m.act.canConnect {
			var b *widget.Button
			b = widget.NewButtonWithIcon("Connect", theme.LoginIcon(), func() {
				b.Disable()
				m.act.connect(client, profileOf(m.profilePick.Selected), func(msg string, err error) {
					b.Enable()
					result.Importance = widget.SuccessImportance
					result.SetText(msg)
					if err != nil {
						result.Importance = widget.DangerImportance
						result.SetText("Not connected: " + err.Error())
					}
					result.Show()
				})
			})
			row = container.NewBorder(nil, nil, name, b, cmd)
		}
		rows.Add(container.NewVBox(row, result, widget.NewSeparator()))
	}
	hint := widget.NewLabel("Or run the command shown in a terminal. Other clients: point them at the command 'capabilities mcp' (with --profile NAME for a profile).")
	hint.Wrapping = fyne.TextWrapWord
	hint.SizeName = theme.SizeNameCaptionText
	return container.NewVScroll(container.NewPadded(container.NewVBox(
		top, m.connectedLabel, widget.NewSeparator(),
		heading("Connect a client"), intro, profile, widget.NewSeparator(), rows, hint,
		widget.NewSeparator(), m.profilesSection())))
}
