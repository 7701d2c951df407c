//go:build !headless

package ui

// The Sources tab's source actions and Add form, and the Clients tab's
// connected clients and profile picker. Their decisions are tabslogic.go's.

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// addSourceForm is the Sources tab's form that adds a source: a command,
// a URL or an OpenAPI document.
func (m *mainWindow) addSourceForm() fyne.CanvasObject {
	m.addName = widget.NewEntry()
	m.addName.SetPlaceHolder("name, e.g. memory")
	m.addTarget = widget.NewEntry()
	m.addBase = widget.NewEntry()
	m.addBase.SetPlaceHolder("the API's base URL, when not the document's server (optional): https://your-domain.atlassian.net")
	m.addExtra = widget.NewEntry()
	m.addKind = widget.NewRadioGroup(addKinds, func(kind string) {
		m.addTarget.SetPlaceHolder(addPlaceholder(kind))
		m.addBase.Hide()
		m.addExtra.Show()
		switch kind {
		case addOpenAPI:
			m.addBase.Show()
			m.addExtra.Hide()
		case addURL:
			m.addExtra.SetPlaceHolder("its headers (optional): X-Region=eu Authorization=\"Bearer …\" (a secret goes to the keychain)")
		default:
			m.addExtra.SetPlaceHolder("its environment (optional): MEMORY_FILE_PATH=/home/you/memory.json GITHUB_TOKEN=… (a secret goes to the keychain)")
		}
	})
	m.addKind.Horizontal = true
	m.addKind.SetSelected(addCommand)
	m.addResult = widget.NewLabel("")
	m.addResult.Wrapping = fyne.TextWrapWord
	m.addButton = widget.NewButtonWithIcon("Add source", theme.ContentAddIcon(), m.addSource)
	m.addButton.Importance = widget.HighImportance
	if m.act.addSource == nil {
		m.addButton.Disable()
	}
	form := container.NewVBox(
		container.NewBorder(nil, nil, nil, m.addKind, m.addName),
		container.NewBorder(nil, nil, nil, m.addButton, m.addTarget),
		m.addBase, m.addExtra,
	)
	return container.NewVBox(heading("Add a source"), form, m.addResult)
}

func (m *mainWindow) addSource() {
	spec, err := sourceSpec(m.addName.Text, m.addKind.Selected, m.addTarget.Text, m.addBase.Text, m.addExtra.Text)
	if err != nil {
		m.addResult.Importance = widget.DangerImportance
		m.addResult.SetText(err.Error())
		return
	}
	m.addButton.Disable()
	m.addResult.Importance = widget.MediumImportance
	m.addResult.SetText("Adding " + spec.Name + "…")
	m.act.addSource(spec, func(err error) {
		m.addButton.Enable()
		if err != nil {
			m.addResult.Importance = widget.DangerImportance
			m.addResult.SetText("Not added: " + err.Error())
			return
		}
		m.addName.SetText("")
		m.addTarget.SetText("")
		m.addBase.SetText("")
		m.addExtra.SetText("")
		m.addResult.Importance = widget.SuccessImportance
		m.addResult.SetText("Added " + spec.Name + ". Its tools are listed once it starts; a secret it needs goes into a connection below.")
	})
}

// sourceActions are a source's Restart, Enable or Disable, and Remove
// buttons.
func (m *mainWindow) sourceActions(src SourceStatus) fyne.CanvasObject {
	box := container.NewHBox()
	if m.act.restartSource == nil || m.act.setSourceEnabled == nil || m.act.removeSource == nil {
		return box
	}
	name := src.Name
	toggle, canRestart := sourceButtons(src)
	restart := widget.NewButtonWithIcon("Restart", theme.ViewRefreshIcon(), func() {
		m.sourceAction(name, "Restarted", func(done func(error)) { m.act.restartSource(name, done) })
	})
	if !canRestart {
		restart.Disable()
	}
	enabled := toggle == "Enable"
	onOff := widget.NewButton(toggle, func() {
		verb := "Disabled"
		if enabled {
			verb = "Enabled"
		}
		m.sourceAction(name, verb, func(done func(error)) { m.act.setSourceEnabled(name, enabled, done) })
	})
	removeLabel := "Remove"
	if m.removing == name {
		removeLabel = "Remove with its secrets?"
	}
	remove := widget.NewButtonWithIcon(removeLabel, theme.DeleteIcon(), func() {
		if m.removing != name { // the first tap asks, the second removes
			m.removing = name
			m.renderSources()
			return
		}
		m.removing = ""
		m.sourceAction(name, "Removed", func(done func(error)) { m.act.removeSource(name, done) })
	})
	if m.removing == name {
		remove.Importance = widget.DangerImportance
	}
	for _, b := range []*widget.Button{restart, onOff, remove} {
		if m.sourceBusy[name] {
			b.Disable()
		}
		box.Add(b)
	}
	return box
}

// apiRow says where an OpenAPI source's calls go, and changes its base
// URL: Change opens a field with the base URL config.json gives it; Save
// writes it ("" goes back to the document's server).
func (m *mainWindow) apiRow(src SourceStatus) fyne.CanvasObject {
	name := src.Name
	text := widget.NewLabel(apiText(src))
	text.Wrapping = fyne.TextWrapWord
	text.SizeName = theme.SizeNameCaptionText
	if m.act.setBaseURL == nil {
		return text
	}
	if m.editingBase != name {
		change := widget.NewButton("Change base URL", func() {
			m.editingBase = name
			m.baseEntry = widget.NewEntry()
			m.baseEntry.SetPlaceHolder("https://api.example.com/v1 (empty: the document's server)")
			m.baseEntry.SetText(src.BaseURL)
			m.renderSources()
		})
		if m.sourceBusy[name] {
			change.Disable()
		}
		return container.NewBorder(nil, nil, nil, change, text)
	}
	save := widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() {
		base := m.baseEntry.Text
		m.editingBase = ""
		m.sourceAction(name, "Saved the base URL of", func(done func(error)) { m.act.setBaseURL(name, base, done) })
	})
	save.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() {
		m.editingBase = ""
		m.renderSources()
	})
	return container.NewVBox(text, container.NewBorder(nil, nil, nil, container.NewHBox(save, cancel), m.baseEntry))
}

// originRow offers to serve the operations an OpenAPI source leaves out
// on origin: the first tap asks, naming what goes there, the second
// allows it.
func (m *mainWindow) originRow(source, origin string) fyne.CanvasObject {
	text := widget.NewLabel("Its operations on " + origin + " are left out. Serving them sends " + source + "'s credentials there too.")
	text.Wrapping = fyne.TextWrapWord
	text.SizeName = theme.SizeNameCaptionText
	if m.act.allowOrigin == nil {
		return text
	}
	key := source + " " + origin
	label := "Serve them"
	if m.allowing == key {
		label = "Send its credentials there?"
	}
	b := widget.NewButtonWithIcon(label, theme.ConfirmIcon(), func() {
		if m.allowing != key {
			m.allowing = key
			m.renderSources()
			return
		}
		m.allowing = ""
		m.sourceAction(source, "Allowed "+origin+" for", func(done func(error)) { m.act.allowOrigin(source, origin, done) })
	})
	if m.allowing == key {
		b.Importance = widget.WarningImportance
	}
	if m.sourceBusy[source] {
		b.Disable()
	}
	return container.NewBorder(nil, nil, nil, b, text)
}

// servedOriginRow says that a source serves its operations on origin,
// with its credentials, and stops it.
func (m *mainWindow) servedOriginRow(source, origin string) fyne.CanvasObject {
	text := widget.NewLabel("It also serves its operations on " + origin + ", with its credentials.")
	text.Wrapping = fyne.TextWrapWord
	text.SizeName = theme.SizeNameCaptionText
	if m.act.removeOrigin == nil {
		return text
	}
	b := widget.NewButton("Stop serving them", func() {
		m.sourceAction(source, "Stopped serving "+origin+" for", func(done func(error)) { m.act.removeOrigin(source, origin, done) })
	})
	if m.sourceBusy[source] {
		b.Disable()
	}
	return container.NewBorder(nil, nil, nil, b, text)
}

// sourceAction runs an action on a source and shows its outcome under it.
func (m *mainWindow) sourceAction(name, verb string, run func(done func(error))) {
	m.sourceBusy[name] = true
	delete(m.sourceMsg, name)
	m.renderSources()
	run(func(err error) {
		delete(m.sourceBusy, name)
		if err != nil {
			m.sourceMsg[name] = "Not done: " + err.Error()
		} else {
			m.sourceMsg[name] = verb + " " + name + "."
		}
		m.renderSources()
	})
}

// sourceDetails adds a source's summary, its stderr tail, the outcome of
// the last action and its tools (when open) to its row.
func (m *mainWindow) sourceDetails(row *fyne.Container, src SourceStatus) {
	name := src.Name
	if text := sourceSummary(src); text != "" {
		summary := widget.NewLabel(text)
		summary.Wrapping = fyne.TextWrapWord
		summary.SizeName = theme.SizeNameCaptionText
		row.Add(summary)
	}
	if len(src.Stderr) > 0 {
		errl := mono(stderrText(src.Stderr))
		errl.SizeName = theme.SizeNameCaptionText
		row.Add(container.NewBorder(nil, nil, widget.NewLabel("stderr"), nil, container.NewHScroll(errl)))
	}
	if msg := m.sourceMsg[name]; msg != "" {
		l := widget.NewLabel(msg)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.SuccessImportance
		if strings.HasPrefix(msg, "Not done") {
			l.Importance = widget.DangerImportance
		}
		row.Add(l)
	}
	if len(src.ToolList) == 0 {
		row.Add(widget.NewSeparator())
		return
	}
	label := "Show tools (" + plural(len(src.ToolList), "tool", "tools") + ")"
	if m.showTools[name] {
		label = "Hide tools"
	}
	toggle := widget.NewButton(label, func() {
		m.showTools[name] = !m.showTools[name]
		m.renderSources()
	})
	toggle.Importance = widget.LowImportance
	row.Add(container.NewHBox(toggle))
	if m.showTools[name] {
		p := m.toolPanels[name]
		if p == nil {
			p = newToolsPanel(m, name)
			m.toolPanels[name] = p
		}
		p.set(src.ToolList)
		row.Add(p.box)
	}
	row.Add(widget.NewSeparator())
}

// updateClients shows the connected clients and the profiles to pick.
func (m *mainWindow) updateClients() {
	m.connectedLabel.SetText(connectedText(m.snap.connected, m.snap.connectedKnown, m.now()))
	choices := profileChoices(m.snap.status.Profiles)
	sel := m.profilePick.Selected
	m.profilePick.SetOptions(choices)
	keep := false
	for _, c := range choices {
		keep = keep || c == sel
	}
	if !keep {
		m.profilePick.SetSelectedIndex(0)
	}
	m.showClientCommands()
}

// showClientCommands shows each client's install command for the profile
// picked.
func (m *mainWindow) showClientCommands() {
	profile := ""
	if m.profilePick != nil {
		profile = profileOf(m.profilePick.Selected)
	}
	for client, l := range m.clientCmds {
		l.SetText(installCommand(client, profile))
	}
}
