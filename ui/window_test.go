//go:build !headless

package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"
)

func TestMainWindowTabs(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	m.win.Resize(fyne.NewSize(900, 620))

	m.show(tabApprovals)
	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	shown := strings.Join(texts(m.win.Content()), "\n")
	for _, want := range []string{"Waiting for a decision", "github.createIssue · policy ask · claude-code 1.2", "filesystem.list_directory always allowed (run run_5d10, via dialog)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("Approvals tab does not show %q", want)
		}
	}
	// Picking a waiting call opens the dialog on it.
	c.dialog.hide()
	m.pendingList.Select(0)
	if !c.dialog.shown || c.dialog.address.Text != "github.createIssue" {
		t.Error("picking a waiting call did not open the dialog on it")
	}

	m.showRun("run_5d10")
	c.step() // the calls are read
	if m.tabs.Selected().Text != tabRuns {
		t.Fatalf("tab %q, want Runs", m.tabs.Selected().Text)
	}
	if !strings.Contains(m.runHeader.Text, "run_5d10") || !strings.Contains(m.runCode.Text, "filesystem.list_directory") {
		t.Errorf("run detail: %q / %q", m.runHeader.Text, m.runCode.Text)
	}
	if !strings.Contains(m.runCalls.Text, "#1  filesystem.list_directory  ok  (8ms)") {
		t.Errorf("calls: %q", m.runCalls.Text)
	}
	if !strings.Contains(m.runEnvelope.Text, "\"result\": 23") {
		t.Errorf("envelope not pretty-printed: %q", m.runEnvelope.Text)
	}

	m.show(tabSources)
	shown = strings.Join(texts(m.win.Content()), "\n")
	for _, want := range []string{"github", "up, 41 tools", "down (connection refused", "work (default); personal, no secret stored", "slack.postMessage", "new optional argument unfurl_links"} {
		if !strings.Contains(shown, want) {
			t.Errorf("Sources tab does not show %q", want)
		}
	}
}

func TestSecretForm(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main

	// Nothing picked: the form says what is missing and calls nothing.
	test.Tap(m.secretSave)
	c.step()
	if len(h.secrets) != 0 || m.secretResult.Text == "" {
		t.Errorf("empty form: secrets %v, message %q", h.secrets, m.secretResult.Text)
	}

	m.secretSource.SetSelected("github")
	if diff := cmp.Diff([]string{"work", "personal"}, m.connChoices); diff != "" {
		t.Errorf("connection choices (-want +got):\n%s", diff)
	}
	if !m.secretValue.Password {
		t.Error("the secret entry is not a password entry")
	}
	m.secretConn.SetText("personal")
	c.step()
	if want := "the header X-Api-Key of github's requests (stored in the OS keychain, never in config.json)"; m.secretWhere.Text != want {
		t.Errorf("Goes to %q, want %q", m.secretWhere.Text, want)
	}
	test.Type(m.secretValue, "s3cr3t-value")
	test.Tap(m.secretSave)
	c.step()
	if diff := cmp.Diff([]secretCall{{"github", "personal", "s3cr3t-value"}}, h.secrets); diff != "" {
		t.Errorf("SetSecret calls (-want +got):\n%s", diff)
	}
	if m.secretValue.Text != "" {
		t.Error("the secret stays in the entry after saving")
	}
	if !strings.Contains(m.secretResult.Text, "Saved") || strings.Contains(m.secretResult.Text, "s3cr3t") {
		t.Errorf("result message %q", m.secretResult.Text)
	}
}

// TestSecretFormNamesThePlace: where the hub cannot tell where an MCP
// server's secret goes, the form asks for the environment variable (a
// program the hub starts) or the header (an HTTP server, a bearer token
// or not), and saves the secret there.
func TestSecretFormNamesThePlace(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.noPlace = map[string]bool{"filesystem": true, "slack": false}
	c := newTestController(t, h, t0)
	m := c.main

	m.secretSource.SetSelected("github")
	c.step()
	if m.secretNameRow.Visible() {
		t.Error("the name row shows where the hub knows the place")
	}
	m.secretSource.SetSelected("filesystem")
	m.secretConn.SetText("default")
	c.step()
	if !m.secretNameRow.Visible() || m.secretNameFor.Text != "Variable" || m.secretBearer.Visible() || !strings.Contains(m.secretWhere.Text, "name below the environment variable") {
		t.Fatalf("a stdio source: row %v %q, bearer %v, goes to %q", m.secretNameRow.Visible(), m.secretNameFor.Text, m.secretBearer.Visible(), m.secretWhere.Text)
	}
	test.Type(m.secretValue, "ghp_s3cr3t")
	test.Tap(m.secretSave)
	c.step()
	if len(h.secrets) != 0 || m.secretResult.Text != "name the variable the secret goes in" {
		t.Errorf("no name: secrets %v, message %q", h.secrets, m.secretResult.Text)
	}
	m.secretName.SetText("GITHUB_PERSONAL_ACCESS_TOKEN")
	test.Tap(m.secretSave)
	c.step()
	if diff := cmp.Diff([]string{"filesystem default GITHUB_PERSONAL_ACCESS_TOKEN bearer=false"}, h.placed); diff != "" {
		t.Errorf("SetSecretIn calls (-want +got):\n%s", diff)
	}
	c.step()
	if m.secretResult.Text != "Saved the secret of filesystem/default in the keychain." || m.secretNameRow.Visible() || m.secretValue.Text != "" {
		t.Errorf("after saving: %q, name row %v", m.secretResult.Text, m.secretNameRow.Visible())
	}

	m.secretSource.SetSelected("slack")
	m.secretConn.SetText("personal")
	c.step()
	if !m.secretNameRow.Visible() || m.secretNameFor.Text != "Header" || !m.secretBearer.Visible() {
		t.Fatalf("an HTTP source: row %v %q, bearer %v", m.secretNameRow.Visible(), m.secretNameFor.Text, m.secretBearer.Visible())
	}
	m.secretName.SetText("Authorization")
	m.secretBearer.SetChecked(true)
	test.Type(m.secretValue, "xoxb-s3cr3t")
	test.Tap(m.secretSave)
	c.step()
	if got := h.placed[len(h.placed)-1]; got != "slack personal Authorization bearer=true" {
		t.Errorf("the header: %q", got)
	}
}

func TestPolicyForm(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main

	m.policyPattern.SetText("not a pattern")
	test.Tap(m.policySet)
	c.step()
	if len(h.policies) != 5 || !strings.Contains(m.policyResult.Text, "not a tool address") {
		t.Errorf("bad pattern: %d rules, message %q", len(h.policies), m.policyResult.Text)
	}

	m.policyList.Select(0) // github.deleteRepository deny
	if m.policyPattern.Text != "github.deleteRepository" || m.policyMode.Selected != PolicyDeny {
		t.Errorf("selecting a rule filled %q %q", m.policyPattern.Text, m.policyMode.Selected)
	}
	m.policyPattern.SetText("slack.*")
	m.policyMode.SetSelected(PolicyAllow)
	test.Tap(m.policySet)
	c.step()
	if got, _ := h.Policies(); got[len(got)-1] != (PolicyRule{"slack.*", PolicyAllow, "window", "every connection", ""}) {
		t.Errorf("rules after set: %v", got)
	}
	if m.policyList.Length() != 6 {
		t.Errorf("list shows %d rules, want 6", m.policyList.Length())
	}

	// Each row says where its rule came from, and removes it.
	m.show(tabPolicy)
	m.win.Resize(fyne.NewSize(900, 620))
	m.policyList.Refresh()
	shown := strings.Join(texts(m.win.Content()), "\n")
	for _, want := range []string{"remembered from a dialog", "config.json", "set in a terminal, connection work"} {
		if !strings.Contains(shown, want) {
			t.Errorf("policy rows do not show %q:\n%s", want, shown)
		}
	}
	m.removePolicy("github.deleteRepository", widget.NewButton("", nil))
	c.step()
	if got, _ := h.Policies(); len(got) != 5 || got[0].Pattern == "github.deleteRepository" {
		t.Errorf("rules after remove: %v", got)
	}
	if !strings.Contains(m.policyResult.Text, "Removed the rules for github.deleteRepository") {
		t.Errorf("result %q", m.policyResult.Text)
	}
	m.removePolicy("nothing.here", widget.NewButton("", nil))
	c.step()
	if !strings.Contains(m.policyResult.Text, "Not removed: no rule for nothing.here") {
		t.Errorf("result %q", m.policyResult.Text)
	}
}

// A changed tool shows its definitions as accepted and as now, line by
// line; Accept pins the definition shown, and one that changed again
// since it was shown is not accepted.
func TestAcceptChangedTool(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	c.menuAction(actChanges) // the tray's "1 tool and 1 skill changed…"
	c.step()                 // the definitions are read
	if m.tabs.Selected().Text != tabSources || m.sourcesScroll.Offset.Y <= 0 {
		t.Errorf("the tray item opened %q scrolled to %v, not the Sources tab at the changes", m.tabs.Selected().Text, m.sourcesScroll.Offset)
	}
	p := m.changes
	if p.picked != "slack.postMessage" || p.shown.Hash != "5c1a9e" {
		t.Fatalf("picked %q, shown %+v", p.picked, p.shown)
	}
	shown := strings.Join(texts(p.box), "\n")
	for _, want := range []string{"1 tool and 1 skill changed since they were accepted", "slack.postMessage",
		"What changed since you accepted it: description changed; new optional argument unfurl_links.",
		`-   "description": "Post a message",`, `+   "description": "Post a message to any channel",`, `+       "unfurl_links": {`} {
		if !strings.Contains(shown, want) {
			t.Errorf("the change does not show %q:\n%s", want, shown)
		}
	}

	// It changes again after it was shown: accepting what was shown fails.
	h.mu.Lock()
	h.changed[0].Hash = "77d0b2"
	h.mu.Unlock()
	test.Tap(p.accept)
	c.step()
	if len(h.accepted) != 0 || !strings.Contains(p.result.Text, "Not accepted: slack.postMessage changed again since shown") {
		t.Fatalf("accepted %q after the definition moved on; result %q", h.accepted, p.result.Text)
	}
	h.emit(Event{Kind: EventSource})
	c.step() // the list, then the definitions as they are now
	c.step()
	if p.shown.Hash != "77d0b2" {
		t.Fatalf("after the second change the window shows %+v", p.shown)
	}
	test.Tap(p.accept)
	c.step()
	if diff := cmp.Diff([]string{"slack.postMessage"}, h.accepted); diff != "" {
		t.Errorf("AcceptTools calls (-want +got):\n%s", diff)
	}
	if got := strings.Join(texts(p.box), " "); !strings.Contains(got, "1 skill changed since it was accepted") || !strings.Contains(got, "Accepted slack.postMessage as shown.") {
		t.Errorf("changed tools after accepting: %q", got)
	}
}

// A new version of a document can change a thousand tools at once: the
// list draws the rows in view, and Accept all takes a second tap.
func TestAcceptManyChangedTools(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.changed = nil
	for i := range 1200 {
		h.changed = append(h.changed, ToolChange{Address: fmt.Sprintf("gh.op%04d", i), Summary: "title changed", Hash: fmt.Sprintf("h%d", i)})
	}
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	c.step()
	p := m.changes
	if rows := countLabels(p.list); rows == 0 || rows > 2*listRows {
		t.Errorf("the list of 1200 changes drew %d rows", rows)
	}
	if !strings.Contains(p.hint.Text, "1200 tools changed") || p.all.Text != "Accept all 1200" {
		t.Fatalf("hint %q, button %q", p.hint.Text, p.all.Text)
	}
	// Accepting one goes on to the next.
	p.list.Select(5)
	c.step()
	test.Tap(p.accept)
	c.step()
	c.step()
	if !slices.Equal(h.accepted, []string{"gh.op0005"}) || p.picked != "gh.op0006" || p.all.Text != "Accept all 1199" {
		t.Fatalf("accepted %q, then picked %q; button %q", h.accepted, p.picked, p.all.Text)
	}
	test.Tap(p.all)
	c.step()
	if len(h.accepted) != 1 || p.all.Text != "Accept all 1199 without looking at each?" {
		t.Fatalf("the first tap accepted %d more; button %q", len(h.accepted)-1, p.all.Text)
	}
	// Another changes before the second tap: the button asks again.
	h.mu.Lock()
	h.changed = append(h.changed, ToolChange{Address: "gh.op9999", Summary: "path changed", Hash: "h9999"})
	h.mu.Unlock()
	h.emit(Event{Kind: EventSource})
	c.step()
	if p.all.Text != "Accept all 1200" {
		t.Fatalf("after another change the button reads %q", p.all.Text)
	}
	test.Tap(p.all)
	c.step()
	test.Tap(p.all)
	c.step()
	c.step()
	if len(h.accepted) != 1201 || !strings.Contains(p.result.Text, "Accepted 1200 new definitions.") || !p.all.Hidden {
		t.Errorf("after the second tap: %d accepted, result %q, button shown %v", len(h.accepted), p.result.Text, !p.all.Hidden)
	}
}

// countLabels counts the labels drawn inside o, widgets included.
func countLabels(o fyne.CanvasObject) int {
	switch w := o.(type) {
	case *widget.Label:
		return 1
	case *fyne.Container:
		n := 0
		for _, c := range w.Objects {
			n += countLabels(c)
		}
		return n
	case fyne.Widget:
		n := 0
		for _, c := range test.WidgetRenderer(w).Objects() {
			n += countLabels(c)
		}
		return n
	}
	return 0
}

// fakeTray records what the controller puts in the system tray.
type fakeTray struct {
	fyne.App
	icons []fyne.Resource
	menus []*fyne.Menu
}

func (f *fakeTray) SetSystemTrayMenu(m *fyne.Menu)    { f.menus = append(f.menus, m) }
func (f *fakeTray) SetSystemTrayIcon(r fyne.Resource) { f.icons = append(f.icons, r) }
func (f *fakeTray) SetSystemTrayWindow(w fyne.Window) {}

func menuItem(m *fyne.Menu, label string) *fyne.MenuItem {
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	return nil
}

func TestTray(t *testing.T) {
	h := newFakeHub()
	h.populate()
	ft := &fakeTray{App: test.NewTempApp(t)}
	var autostart []bool
	on := false
	opts := Options{
		Logf:             t.Logf,
		Autostart:        func(v bool) error { autostart = append(autostart, v); on = v; return nil },
		AutostartEnabled: func() bool { return on },
	}
	c := newController(ft, h, opts, true)
	c.now = func() time.Time { return t0 }
	var tips []string
	c.tray.tooltip = func(s string) { tips = append(tips, s) }
	t.Cleanup(h.Subscribe(c.post))
	c.step()
	if want := "capabilities: Running · 4 sources · 52 tools · 1 down"; len(tips) == 0 || tips[len(tips)-1] != want {
		t.Errorf("tooltips %q, want last %q", tips, want)
	}
	menuItem(ft.menus[len(ft.menus)-1], "Connect a client…").Action()
	if c.main.tabs.Selected().Text != tabClients {
		t.Errorf("Connect a client… opened tab %q", c.main.tabs.Selected().Text)
	}

	// slack is down in populate.
	if len(ft.icons) != 1 || ft.icons[0] != trayIcon(trayDown) {
		t.Fatalf("icons %v, want the down icon", ft.icons)
	}
	menu := ft.menus[len(ft.menus)-1]
	if it := menuItem(menu, "Start at login"); it == nil || it.Checked {
		t.Fatalf("start at login item: %+v", it)
	}
	menuItem(menu, "Start at login").Action()
	c.step()
	if diff := cmp.Diff([]bool{true}, autostart); diff != "" {
		t.Errorf("Autostart calls (-want +got):\n%s", diff)
	}
	menu = ft.menus[len(ft.menus)-1]
	if !menuItem(menu, "Start at login").Checked {
		t.Error("start at login not checked after turning it on")
	}

	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	if got := ft.icons[len(ft.icons)-1]; got != trayIcon(trayPending) {
		t.Errorf("icon %v, want pending", got.Name())
	}
	menu = ft.menus[len(ft.menus)-1]
	c.dialog.hide()
	menuItem(menu, "1 pending approval…").Action()
	if !c.dialog.shown {
		t.Error("the pending item did not open the queue")
	}

	menuItem(menu, "Pause hub").Action()
	c.step()
	if diff := cmp.Diff([]bool{true}, h.paused); diff != "" {
		t.Errorf("SetPaused calls (-want +got):\n%s", diff)
	}
	if menuItem(ft.menus[len(ft.menus)-1], "Resume hub") == nil {
		t.Error("no Resume item once paused")
	}

	// An event that changes nothing shown does not rebuild the native menu.
	n := len(ft.menus)
	h.emit(Event{Kind: EventSource})
	c.step()
	if len(ft.menus) != n {
		t.Errorf("menu rebuilt without a change (%d -> %d)", n, len(ft.menus))
	}

	runs := menuItem(ft.menus[len(ft.menus)-1], "Recent runs")
	runs.ChildMenu.Items[0].Action()
	if c.main.tabs.Selected().Text != tabRuns || c.main.runID != "run_7f3a" {
		t.Errorf("run item opened tab %q run %q", c.main.tabs.Selected().Text, c.main.runID)
	}

	quit := ft.menus[len(ft.menus)-1].Items[len(ft.menus[len(ft.menus)-1].Items)-1]
	if !quit.IsQuit || quit.Label != "Quit" {
		t.Errorf("last item %+v is not Quit", quit)
	}
}

// findButton returns the first button with the label inside o.
func findButton(o fyne.CanvasObject, label string) *widget.Button {
	switch w := o.(type) {
	case *widget.Button:
		if w.Text == label {
			return w
		}
	case *fyne.Container:
		for _, c := range w.Objects {
			if b := findButton(c, label); b != nil {
				return b
			}
		}
	}
	return nil
}

func TestSourcesImportOfferAndSignIn(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.status.ImportOffer = 2
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "linear", State: SourceIdle, SignIns: []SignInStatus{
		{Connection: "work", SignedIn: true, Summary: "signed in until 2026-03-14 13:00 UTC"},
		{Connection: "personal", Summary: "needs sign-in: token expired"},
	}})
	h.loginGo, h.loginEnd = make(chan struct{}), make(chan loginCall, 1)
	firstRuns := 0
	c, m := sourcesTab(t, h, Options{Logf: t.Logf, FirstRun: func() (FirstRun, error) {
		firstRuns++
		return FirstRun{Candidates: []ImportCandidate{{Name: "everything", Clients: []string{"claude-code"}}, {Name: "memory", Clients: []string{"cursor"}}},
			Import: func(ImportSelection) (string, error) { return "", nil }}, nil
	}})

	shown := strings.Join(texts(m.win.Content()), "\n")
	for _, want := range []string{"Your MCP clients run 2 servers that capabilities does not run yet", "work: signed in until 2026-03-14 13:00 UTC", "personal: needs sign-in: token expired"} {
		if !strings.Contains(shown, want) {
			t.Errorf("Sources tab does not show %q", want)
		}
	}
	if n := countButtons(m.sourcesBox, "Sign in"); n != 1 {
		t.Errorf("%d Sign in buttons, want one (for linear/personal):\n%s", n, shown)
	}

	// Import… opens the first-run window on what FirstRun read.
	test.Tap(findButton(m.importBox, "Import…"))
	c.step()
	if firstRuns != 1 || c.firstRun == nil || len(c.firstRun.boxes) != 2 || c.firstRun.boxes[1].Text != "memory — from cursor" {
		t.Fatalf("Import… did not open the first-run window: FirstRun called %d times, window %+v", firstRuns, c.firstRun)
	}
	// Again, from the tray: the same window comes up, nothing read twice.
	c.menuAction(actImport)
	c.step()
	if firstRuns != 1 {
		t.Errorf("FirstRun called %d times for one open window", firstRuns)
	}

	// Sign in calls Login with the source and connection, without waiting
	// for the person: the button says it waits while Login blocks.
	test.Tap(findButton(m.sourcesBox, "Sign in"))
	if b := findButton(m.sourcesBox, "Waiting for the browser…"); b == nil || !b.Disabled() {
		t.Fatalf("while signing in the button is %+v", b)
	}
	h.loginGo <- struct{}{}
	if got := <-h.loginEnd; got != (loginCall{"linear", "personal"}) {
		t.Errorf("Login(%v), want linear/personal", got)
	}
	if got := <-m.signInDone; got != "linear/personal" {
		t.Errorf("sign-in %q reported back", got)
	}
	c.step()
	shown = strings.Join(texts(m.win.Content()), "\n")
	if !strings.Contains(shown, "personal: signed in until") || countButtons(m.sourcesBox, "Sign in")+countButtons(m.sourcesBox, "Waiting for the browser…") != 0 {
		t.Errorf("after signing in the tab shows:\n%s", shown)
	}
	if diff := cmp.Diff([]loginCall{{"linear", "personal"}}, h.loginCalls()); diff != "" {
		t.Errorf("Login calls (-want +got):\n%s", diff)
	}

	// A failed sign-in, started from the tray, says why under the connection
	// and offers the button again.
	h.mu.Lock()
	h.status.Sources[len(h.status.Sources)-1].SignIns = []SignInStatus{{Connection: "personal", Summary: "needs sign-in"}}
	h.loginErr = errors.New("the authorization server refused: access_denied")
	h.mu.Unlock()
	h.emit(Event{Kind: EventSource})
	c.step()
	c.menuAction(signInAction("linear", "personal"))
	h.loginGo <- struct{}{}
	<-h.loginEnd
	<-m.signInDone
	shown = strings.Join(texts(m.win.Content()), "\n")
	if !strings.Contains(shown, "Not signed in: the authorization server refused: access_denied") || findButton(m.sourcesBox, "Sign in") == nil {
		t.Errorf("after a failed sign-in the tab shows:\n%s", shown)
	}
	if m.tabs.Selected().Text != tabSources {
		t.Errorf("the tray's sign-in opened tab %q", m.tabs.Selected().Text)
	}

	// Signed in since, from a terminal: the failure is no longer shown
	// beside "signed in".
	h.mu.Lock()
	h.status.Sources[len(h.status.Sources)-1].SignIns = []SignInStatus{{Connection: "personal", SignedIn: true, Summary: "signed in until 2026-03-14 13:00 UTC"}}
	h.mu.Unlock()
	h.emit(Event{Kind: EventSource})
	c.step()
	shown = strings.Join(texts(m.win.Content()), "\n")
	if strings.Contains(shown, "Not signed in") || !strings.Contains(shown, "personal: signed in until") {
		t.Errorf("after a sign-in elsewhere the tab shows:\n%s", shown)
	}

	// Sign out beside a signed-in connection signs it out; the row then
	// offers Sign in.
	if n := countButtons(m.sourcesBox, "Sign out"); n != 1 {
		t.Errorf("%d Sign out buttons, want one, for the signed-in personal:\n%s", n, shown)
	}
	test.Tap(findButton(m.sourcesBox, "Sign out"))
	if got := <-m.signInDone; got != "linear/personal" {
		t.Errorf("sign-out %q reported back", got)
	}
	c.step()
	shown = strings.Join(texts(m.win.Content()), "\n")
	if diff := cmp.Diff([]loginCall{{"linear", "personal"}}, h.logouts); diff != "" {
		t.Errorf("Logout calls (-want +got):\n%s", diff)
	}
	if !strings.Contains(shown, "personal: needs sign-in: not signed in") || findButton(m.sourcesBox, "Sign in") == nil {
		t.Errorf("after signing out the tab shows:\n%s", shown)
	}

	// The secret form says a sign-in provides linear's credentials, and
	// offers no Save for them.
	m.secretSource.SetSelected("linear")
	c.step()
	if !strings.Contains(m.secretWhere.Text, "signs in with OAuth") || !m.secretSave.Disabled() {
		t.Errorf("secret form for linear: %q, save disabled %v", m.secretWhere.Text, m.secretSave.Disabled())
	}
}

// countButtons counts the buttons with the label inside o.
func countButtons(o fyne.CanvasObject, label string) int {
	switch w := o.(type) {
	case *widget.Button:
		if w.Text == label {
			return 1
		}
	case *fyne.Container:
		n := 0
		for _, c := range w.Objects {
			n += countButtons(c, label)
		}
		return n
	case fyne.Widget: // a list's rows in view, say
		n := 0
		for _, c := range test.WidgetRenderer(w).Objects() {
			n += countButtons(c, label)
		}
		return n
	}
	return 0
}

// TestSourcesClientForm: a sign-in whose authorization server takes no
// registration the hub can make offers a form for the client registered
// beforehand; saving it keeps the client through the hub and signs in as
// it.
func TestSourcesClientForm(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "tasks", State: SourceUp, Tools: 2, SignIns: []SignInStatus{
		{Connection: "default", Summary: "needs sign-in: the API's document offers an OAuth sign-in"},
	}})
	h.loginErr = fmt.Errorf("the authorization server of tasks (scheme oauth) takes no registration the hub can make: %w", ErrNeedsClient)
	c, m := sourcesTab(t, h, Options{Logf: t.Logf})

	test.Tap(findButton(m.sourcesBox, "Sign in"))
	<-m.signInDone
	c.step()
	f := m.clientForms["tasks/default"]
	shown := strings.Join(texts(m.win.Content()), "\n")
	if f == nil || !strings.Contains(shown, needsClientText) || !strings.Contains(shown, "http://127.0.0.1:PORT/callback") {
		t.Fatalf("after a sign-in that needs a client the tab shows:\n%s", shown)
	}
	test.Tap(f.save)
	c.step()
	if shown := strings.Join(texts(m.win.Content()), "\n"); len(h.clients) != 0 || !strings.Contains(shown, "give the client id and the port") {
		t.Fatalf("an empty form was saved (%+v):\n%s", h.clients, shown)
	}
	test.Type(f.id, "pre-1")
	test.Type(f.secret, "shh-secret")
	test.Type(f.port, "8765")
	// The sign-in that follows waits at the gate until the step that
	// saved the client is over.
	h.mu.Lock()
	h.loginGo = make(chan struct{})
	h.mu.Unlock()
	test.Tap(f.save)
	c.step()
	h.loginGo <- struct{}{}
	<-m.signInDone
	c.step()
	if diff := cmp.Diff([]clientCall{{"tasks", "default", "pre-1", "shh-secret", 8765}}, h.clients); diff != "" {
		t.Errorf("SetOAuthClient calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]loginCall{{"tasks", "default"}, {"tasks", "default"}}, h.loginCalls()); diff != "" {
		t.Errorf("Login calls (-want +got):\n%s", diff)
	}
	shown = strings.Join(texts(m.win.Content()), "\n")
	if !strings.Contains(shown, "default: signed in") || strings.Contains(shown, needsClientText) || m.clientForms["tasks/default"] != nil {
		t.Errorf("after saving the client the tab shows:\n%s", shown)
	}
}

// A REST API whose client gets its tokens on its own (client
// credentials) asks for the client's id and secret, and no redirect port.
func TestSourcesClientCredentialsForm(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "billing", State: SourceUp, Tools: 4, SignIns: []SignInStatus{
		{Connection: "default", Summary: "needs sign-in: the API's document offers an OAuth sign-in"},
	}})
	h.loginErr = fmt.Errorf("the API of billing takes a token its client gets on its own (scheme svc, client credentials): %w", ErrNeedsClientCredentials)
	c, m := sourcesTab(t, h, Options{Logf: t.Logf})

	test.Tap(findButton(m.sourcesBox, "Sign in"))
	<-m.signInDone
	c.step()
	f := m.clientForms["billing/default"]
	shown := strings.Join(texts(m.win.Content()), "\n")
	if f == nil || !f.credentials || !strings.Contains(shown, needsCredentialsText) || !strings.Contains(shown, credentialsFormText) ||
		strings.Contains(shown, "Redirect port") || strings.Contains(shown, "PORT/callback") {
		t.Fatalf("after a sign-in that needs the client's credentials the tab shows:\n%s", shown)
	}
	test.Type(f.id, "svc")
	test.Tap(f.save) // no secret: nothing is saved
	c.step()
	if shown := strings.Join(texts(m.win.Content()), "\n"); len(h.clients) != 0 || !strings.Contains(shown, "give the client's id and secret") {
		t.Fatalf("a client without its secret was saved (%+v):\n%s", h.clients, shown)
	}
	test.Type(f.secret, "svc-secret")
	// The sign-in that follows waits at the gate until the step that
	// saved the client is over.
	h.mu.Lock()
	h.loginGo = make(chan struct{})
	h.mu.Unlock()
	test.Tap(findButton(m.sourcesBox, "Save client and get a token"))
	c.step()
	h.loginGo <- struct{}{}
	<-m.signInDone
	c.step()
	if diff := cmp.Diff([]clientCall{{"billing", "default", "svc", "svc-secret", 0}}, h.clients); diff != "" {
		t.Errorf("SetOAuthClient calls (-want +got):\n%s", diff)
	}
	if shown := strings.Join(texts(m.win.Content()), "\n"); !strings.Contains(shown, "default: signed in") || m.clientForms["billing/default"] != nil {
		t.Errorf("after saving the client the tab shows:\n%s", shown)
	}
}

// sourcesTab opens the window over h with opts at the Sources tab, its
// sign-ins reporting on m.signInDone.
func sourcesTab(t *testing.T, h *fakeHub, opts Options) (*controller, *mainWindow) {
	t.Helper()
	c := newController(test.NewTempApp(t), h, opts, false)
	c.now = func() time.Time { return t0 }
	t.Cleanup(h.Subscribe(c.post))
	c.step()
	m := c.main
	m.signInDone = make(chan string, 1)
	m.win.Resize(fyne.NewSize(900, 620))
	m.show(tabSources)
	return c, m
}

// The connection form makes a connection the default and removes one,
// asking once more first; both act only on a connection the source has.
func TestConnectionButtons(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	conns := func() []ConnectionStatus {
		for _, s := range m.snap.status.Sources {
			if s.Name == "github" {
				return s.Connections
			}
		}
		return nil
	}

	if !m.connDefault.Disabled() || !m.connRemove.Disabled() {
		t.Fatal("the connection buttons are on with nothing picked")
	}
	m.secretSource.SetSelected("github")
	m.secretConn.SetText("holiday") // a new name: only Save applies
	if !m.connDefault.Disabled() || !m.connRemove.Disabled() {
		t.Error("the connection buttons are on for a connection the source does not have")
	}
	m.secretConn.SetText("work")
	if !m.connDefault.Disabled() || m.connRemove.Disabled() {
		t.Errorf("for the default connection: Make default off %v, Remove off %v", m.connDefault.Disabled(), m.connRemove.Disabled())
	}

	m.secretConn.SetText("personal")
	test.Tap(m.connDefault)
	c.step()
	if diff := cmp.Diff([]ConnectionStatus{{"work", false, true}, {"personal", true, false}}, conns()); diff != "" {
		t.Errorf("connections after Make default (-want +got):\n%s", diff)
	}
	if !m.connDefault.Disabled() || m.secretResult.Text != "personal is now the default connection of github: its calls that name no connection use it." {
		t.Errorf("after Make default: button off %v, message %q", m.connDefault.Disabled(), m.secretResult.Text)
	}

	test.Tap(m.connRemove)
	c.step()
	if len(conns()) != 2 || m.connRemove.Text != "Remove with its secrets?" || !strings.Contains(m.secretResult.Text, "press again") {
		t.Fatalf("the first tap: connections %v, button %q, message %q", conns(), m.connRemove.Text, m.secretResult.Text)
	}
	m.secretConn.SetText("work") // another connection: the question is dropped
	if m.connRemove.Text != "Remove connection" {
		t.Errorf("the question stays for another connection: %q", m.connRemove.Text)
	}
	m.secretConn.SetText("personal")
	test.Tap(m.connRemove)
	test.Tap(m.connRemove)
	c.step()
	if diff := cmp.Diff([]ConnectionStatus{{"work", true, true}}, conns()); diff != "" {
		t.Errorf("connections after removing personal (-want +got):\n%s", diff)
	}
	if m.secretResult.Text != "Removed connection personal of github with its secrets." || !m.connRemove.Disabled() {
		t.Errorf("after removing: message %q, Remove off %v", m.secretResult.Text, m.connRemove.Disabled())
	}

	h.sourceErr = errors.New("connection work of github is pinned by profile office")
	m.secretConn.SetText("work")
	test.Tap(m.connRemove)
	test.Tap(m.connRemove)
	c.step()
	if m.secretResult.Text != "Not removed: connection work of github is pinned by profile office" || m.connRemove.Disabled() {
		t.Errorf("a refused removal: message %q, Remove off %v", m.secretResult.Text, m.connRemove.Disabled())
	}
}
