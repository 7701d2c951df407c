//go:build !headless

package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// connectionButtons makes the connection form's Make default and Remove
// buttons, which sit beside Save to keychain and act on the connection
// the form names when its source has it.
func (m *mainWindow) connectionButtons() {
	m.connDefault = widget.NewButton("Make default", m.makeDefaultConnection)
	m.connRemove = widget.NewButtonWithIcon("Remove connection", theme.DeleteIcon(), m.removeConnection)
	m.showConnectionButtons()
}

// pickedSourceConnections are the connections of the source the form
// picked.
func (m *mainWindow) pickedSourceConnections() []ConnectionStatus {
	for _, s := range m.snap.status.Sources {
		if s.Name == m.secretSource.Selected {
			return s.Connections
		}
	}
	return nil
}

// pickedConnection is the connection the form names, when the picked
// source has one of that name.
func (m *mainWindow) pickedConnection() (source string, c ConnectionStatus, ok bool) {
	name := strings.TrimSpace(m.secretConn.Text)
	for _, c := range m.pickedSourceConnections() {
		if c.Name == name {
			return m.secretSource.Selected, c, true
		}
	}
	return m.secretSource.Selected, ConnectionStatus{}, false
}

// showConnectionButtons turns Make default on for a connection that is
// not the default yet, and Remove on for any the source has; Remove asks
// once more (its label says so) before it removes.
func (m *mainWindow) showConnectionButtons() {
	if m.connDefault == nil {
		return
	}
	source, c, ok := m.pickedConnection()
	canAct := ok && !m.connBusy && m.act.setDefaultConnection != nil && m.act.removeConnection != nil
	setEnabled(m.connDefault, canAct && !c.Default)
	setEnabled(m.connRemove, canAct)
	label, importance := "Remove connection", widget.MediumImportance
	if !ok || m.connRemoving != source+"/"+c.Name {
		m.connRemoving = ""
	} else {
		label, importance = "Remove with its secrets?", widget.DangerImportance
	}
	if m.connRemove.Text != label || m.connRemove.Importance != importance {
		m.connRemove.Text, m.connRemove.Importance = label, importance
		m.connRemove.Refresh()
	}
}

func (m *mainWindow) makeDefaultConnection() {
	source, c, ok := m.pickedConnection()
	if !ok {
		return
	}
	m.connectionAction(func(done func(error)) { m.act.setDefaultConnection(source, c.Name, done) },
		"Not changed", fmt.Sprintf("%s is now the default connection of %s: its calls that name no connection use it.", c.Name, source))
}

// removeConnection asks on the first tap and removes on the second.
func (m *mainWindow) removeConnection() {
	source, c, ok := m.pickedConnection()
	if !ok {
		return
	}
	if key := source + "/" + c.Name; m.connRemoving != key {
		m.connRemoving = key
		m.secretResult.Importance = widget.WarningImportance
		m.secretResult.SetText(fmt.Sprintf("Removing %s of %s deletes its secrets and sign-in from the keychain; press again to remove it.", c.Name, source))
		m.showConnectionButtons()
		return
	}
	m.connRemoving = ""
	m.connectionAction(func(done func(error)) { m.act.removeConnection(source, c.Name, done) },
		"Not removed", fmt.Sprintf("Removed connection %s of %s with its secrets.", c.Name, source))
}

// connectionAction runs an action on the picked connection with the
// buttons off, and says its outcome under the form.
func (m *mainWindow) connectionAction(run func(done func(error)), failed, done string) {
	m.connBusy = true
	m.showConnectionButtons()
	m.secretResult.Importance = widget.MediumImportance
	m.secretResult.SetText("Working…")
	run(func(err error) {
		m.connBusy = false
		tell(m.secretResult, err, failed, done)
		m.showConnectionButtons()
	})
}
