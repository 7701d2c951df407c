//go:build !headless

package ui

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// profilesSection is the Clients tab's list of profiles, each with what it
// shows and Remove, and the form that adds one: its sources, the one
// connection it uses of a source that has several (or all of them), its
// own rules, direct mode and read-only.
func (m *mainWindow) profilesSection() fyne.CanvasObject {
	m.profilesBox = container.NewVBox()
	m.profileName = widget.NewEntry()
	m.profileName.SetPlaceHolder("profile name, e.g. work or reader")
	m.profileSources = widget.NewCheckGroup(nil, func([]string) { m.renderPins() })
	m.profileSources.Horizontal = true
	m.profilePins = container.NewVBox()
	m.pinSelects = map[string]*widget.Select{}
	m.profileRules = widget.NewEntry()
	m.profileRules.SetPlaceHolder("its own rules (optional; they only tighten yours): linear.*=ask github.deleteRepo=deny")
	m.profileDirect = widget.NewCheck("Direct mode: each tool is an MCP tool of its own, instead of search, describe and execute", nil)
	m.profileReadOnly = widget.NewCheck("Read-only: refuse every call to a tool that is not read-only", nil)
	m.profileAdd = widget.NewButtonWithIcon("Add profile", theme.ContentAddIcon(), m.addProfile)
	m.profileAdd.Importance = widget.HighImportance
	m.profileResult = widget.NewLabel("")
	m.profileResult.Wrapping = fyne.TextWrapWord
	intro := widget.NewLabel("A profile is a view of the hub a client selects: only its sources exist for that client, " +
		"and its own rules apply after yours.")
	intro.Wrapping = fyne.TextWrapWord
	sources := widget.NewLabel("Sources")
	return container.NewVBox(heading("Profiles"), intro, m.profilesBox,
		m.profileName, container.NewBorder(nil, nil, sources, nil, m.profileSources), m.profilePins,
		m.profileRules, m.profileDirect, m.profileReadOnly,
		container.NewBorder(nil, nil, nil, m.profileAdd, m.profileResult))
}

// renderProfiles lists the profiles and offers the sources there are.
func (m *mainWindow) renderProfiles() {
	st := m.snap.status
	m.profilesBox.Objects = nil
	if len(st.ProfileList) == 0 {
		m.profilesBox.Add(widget.NewLabel("No profiles: every client sees every source."))
	}
	for _, p := range st.ProfileList {
		label := "Remove"
		if m.removingProfile == p.Name {
			label = "Remove profile " + p.Name + "?"
		}
		remove := widget.NewButtonWithIcon(label, theme.DeleteIcon(), nil)
		remove.OnTapped = func() { m.removeProfile(p.Name, remove) }
		name := widget.NewLabelWithStyle(p.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		what := widget.NewLabel(profileWords(p))
		what.Wrapping = fyne.TextWrapWord
		m.profilesBox.Add(container.NewBorder(nil, nil, name, remove, what))
	}
	var names []string
	for _, s := range st.Sources {
		names = append(names, s.Name)
	}
	if strings.Join(names, "\x00") != strings.Join(m.profileSources.Options, "\x00") {
		picked := m.profileSources.Selected
		m.profileSources.Options = names
		m.profileSources.Selected = nil
		for _, n := range picked {
			for _, o := range names {
				if n == o {
					m.profileSources.Selected = append(m.profileSources.Selected, n)
				}
			}
		}
		m.profileSources.Refresh()
	}
	m.renderPins()
	m.profilesBox.Refresh()
}

// renderPins offers, for each picked source with more than one
// connection, the one the profile uses, or all of them (a call names
// one; the default when it names none).
func (m *mainWindow) renderPins() {
	m.profilePins.Objects = nil
	for _, name := range m.profileSources.Selected {
		var conns []ConnectionStatus
		for _, s := range m.snap.status.Sources {
			if s.Name == name {
				conns = s.Connections
			}
		}
		if len(conns) < 2 {
			continue
		}
		options := []string{pinAll(conns)}
		for _, c := range conns {
			options = append(options, pinOnly+c.Name)
		}
		sel := m.pinSelects[name]
		if sel == nil || strings.Join(sel.Options, "\x00") != strings.Join(options, "\x00") {
			sel = widget.NewSelect(options, nil)
			sel.SetSelectedIndex(0)
			m.pinSelects[name] = sel
		}
		m.profilePins.Add(container.NewBorder(nil, nil, widget.NewLabel(name+"'s connections"), nil, sel))
	}
	m.profilePins.Refresh()
}

// pinOnly starts a connection picker's option that pins one connection.
const pinOnly = "only "

// pinAll is a connection picker's first option: no pin.
func pinAll(conns []ConnectionStatus) string {
	for _, c := range conns {
		if c.Default {
			return "all (a call names one; " + c.Name + " when it names none)"
		}
	}
	return "all (a call names one)"
}

// profilePinsOf returns the connections the pickers pin for sources.
func profilePinsOf(sources []string, selects map[string]*widget.Select) map[string]string {
	pins := map[string]string{}
	for _, name := range sources {
		if sel := selects[name]; sel != nil && strings.HasPrefix(sel.Selected, pinOnly) {
			pins[name] = strings.TrimPrefix(sel.Selected, pinOnly)
		}
	}
	if len(pins) == 0 {
		return nil
	}
	return pins
}

// profileWords says what a profile shows, as 'profile list' does.
func profileWords(p ProfileSummary) string {
	s := fmt.Sprintf("%s mode; sources %s", p.Mode, strings.Join(p.Sources, ", "))
	if p.ReadOnly {
		s += "; read-only"
	}
	if len(p.Rules) > 0 {
		s += "; rules " + strings.Join(p.Rules, ", ")
	}
	return s
}

// profileSpec checks the Add profile form and makes the profile of it.
func profileSpec(name string, sources []string, pins map[string]string, rules string, direct, readOnly bool) (ProfileSpec, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return ProfileSpec{}, errors.New("name the profile (a client selects it by this name)")
	case len(sources) == 0:
		return ProfileSpec{}, errors.New("pick the sources the profile shows")
	}
	spec := ProfileSpec{Name: name, Sources: sources, Connections: pins, Direct: direct, ReadOnly: readOnly}
	for _, r := range strings.FieldsFunc(rules, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' }) {
		target, mode, ok := strings.Cut(r, "=")
		if !ok || target == "" || (mode != PolicyAllow && mode != PolicyAsk && mode != PolicyDeny) {
			return ProfileSpec{}, fmt.Errorf("rule %q: write TARGET=MODE, MODE allow, ask or deny (github.createIssue=ask, linear.*=deny)", r)
		}
		if spec.Rules == nil {
			spec.Rules = map[string]string{}
		}
		spec.Rules[target] = mode
	}
	return spec, nil
}

func (m *mainWindow) addProfile() {
	spec, err := profileSpec(m.profileName.Text, m.profileSources.Selected, profilePinsOf(m.profileSources.Selected, m.pinSelects), m.profileRules.Text, m.profileDirect.Checked, m.profileReadOnly.Checked)
	if err != nil {
		tell(m.profileResult, err, "Not added", "")
		return
	}
	m.profileAdd.Disable()
	m.act.addProfile(spec, func(err error) {
		m.profileAdd.Enable()
		if err == nil {
			m.profileName.SetText("")
			m.profileSources.SetSelected(nil)
			clear(m.pinSelects)
			m.profileRules.SetText("")
			m.profileDirect.SetChecked(false)
			m.profileReadOnly.SetChecked(false)
		}
		tell(m.profileResult, err, "Not added", fmt.Sprintf("Added profile %s. Connect a client to it above, or run 'capabilities mcp --profile %s'.", spec.Name, spec.Name))
	})
}

// removeProfile asks once more, then removes the profile.
func (m *mainWindow) removeProfile(name string, b *widget.Button) {
	if m.removingProfile != name {
		m.removingProfile = name
		m.renderProfiles()
		return
	}
	m.removingProfile = ""
	b.Disable()
	m.act.removeProfile(name, func(err error) {
		b.Enable()
		tell(m.profileResult, err, "Not removed", fmt.Sprintf("Removed profile %s: clients that select it are refused from now on.", name))
	})
}
