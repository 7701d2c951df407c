//go:build !headless

package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// skillsTab shows the skills search offers the model, the folders with a
// SKILL.md the hub skips and why, and the folders it reads skills from,
// where a person adds or removes one.
func (m *mainWindow) skillsTab() fyne.CanvasObject {
	m.skillsBox = container.NewVBox()
	m.skillFolder = widget.NewEntry()
	m.skillFolder.SetPlaceHolder("a folder of skills, e.g. ~/.claude/skills")
	m.skillFolder.OnSubmitted = func(string) { m.addSkillFolder() }
	m.skillAdd = widget.NewButtonWithIcon("Add folder", theme.ContentAddIcon(), m.addSkillFolder)
	m.skillAdd.Importance = widget.HighImportance
	m.skillResult = widget.NewLabel("")
	m.skillResult.Wrapping = fyne.TextWrapWord
	intro := widget.NewLabel("A skill is a folder with a SKILL.md: instructions the model reads with describe when a task fits them. " +
		"Search lists them beside the tools; sources can serve skills too.")
	intro.Wrapping = fyne.TextWrapWord
	add := container.NewBorder(nil, nil, nil, m.skillAdd, m.skillFolder)
	m.skillsBody = container.NewVBox(heading("Skills"), intro, m.skillsBox, widget.NewSeparator(),
		heading("Add a folder of skills"), add, m.skillResult)
	m.skillsScroll = container.NewVScroll(container.NewPadded(m.skillsBody))
	return m.skillsScroll
}

// renderSkills fills the Skills tab from the snapshot.
func (m *mainWindow) renderSkills() {
	st := m.snap.status
	m.skillsBox.Objects = nil
	if len(st.Skills) == 0 {
		m.skillsBox.Add(widget.NewLabel("No skills yet: add a folder with a SKILL.md to one of the folders below."))
	}
	for _, sk := range st.Skills {
		m.skillsBox.Add(m.skillRow(sk))
	}
	for _, sk := range st.SkippedSkills {
		l := widget.NewLabel(fmt.Sprintf("Skipped %s: %s", sk.Folder, sk.Problem))
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		m.skillsBox.Add(l)
	}
	m.skillsBox.Add(widget.NewSeparator())
	m.skillsBox.Add(widget.NewLabelWithStyle("Read from", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	if st.SkillsHome != "" {
		home := mono(st.SkillsHome)
		note := widget.NewLabel("the hub's own folder, read first")
		note.SizeName = theme.SizeNameCaptionText
		m.skillsBox.Add(container.NewBorder(nil, nil, nil, note, home))
	}
	for _, dir := range st.SkillFolders {
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), nil)
		remove.OnTapped = func() { m.removeSkillFolder(dir, remove) }
		m.skillsBox.Add(container.NewBorder(nil, nil, nil, remove, mono(dir)))
	}
	// The list's height changed: the tab lays itself out again, as a
	// resize to the same size would not.
	m.skillsBox.Refresh()
	m.skillsBody.Refresh()
	m.skillsScroll.Refresh()
}

// skillRow is one skill: its address, where it comes from and its
// description; a source's skill that changed since it was accepted says
// what changed, with a button to the change, where it is accepted.
func (m *mainWindow) skillRow(sk SkillInfo) fyne.CanvasObject {
	name := widget.NewLabelWithStyle(sk.Address, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	from := widget.NewLabel(sk.From)
	from.SizeName = theme.SizeNameCaptionText
	from.Truncation = fyne.TextTruncateEllipsis
	top := container.NewBorder(nil, nil, name, nil, from)
	desc := widget.NewLabel(hiddentext.Show(sk.Description))
	desc.Wrapping = fyne.TextWrapWord
	row := container.NewVBox(top, desc)
	if sk.Changed {
		changed := widget.NewLabel(fmt.Sprintf("Changed since you accepted it: %s. The model is told so until you accept it.", sk.Change))
		changed.Wrapping = fyne.TextWrapWord
		changed.Importance = widget.WarningImportance
		// Accepted where the change is shown whole, by the entry's hash.
		review := widget.NewButtonWithIcon("Review…", theme.VisibilityIcon(), func() { m.showChange(sk.Address) })
		row.Add(container.NewBorder(nil, nil, nil, review, changed))
	}
	return row
}

func (m *mainWindow) addSkillFolder() {
	dir := strings.TrimSpace(m.skillFolder.Text)
	if dir == "" {
		m.skillResult.Importance = widget.DangerImportance
		m.skillResult.SetText("Enter a folder of skills: its whole path (/home/you/skills) or one starting with ~/.")
		return
	}
	m.skillAdd.Disable()
	m.act.setSkillFolder(dir, true, func(err error) {
		m.skillAdd.Enable()
		if err == nil {
			m.skillFolder.SetText("")
		}
		tell(m.skillResult, err, "Not added", fmt.Sprintf("Added %s: its skills show at the next search.", dir))
	})
}

func (m *mainWindow) removeSkillFolder(dir string, b *widget.Button) {
	b.Disable()
	m.act.setSkillFolder(dir, false, func(err error) {
		b.Enable()
		tell(m.skillResult, err, "Not removed", fmt.Sprintf("Removed %s; its files stay where they are.", dir))
	})
}
