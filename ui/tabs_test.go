//go:build !headless

package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"
)

// sourceRowOf is the row of the source named name in the Sources tab.
func sourceRowOf(t *testing.T, m *mainWindow, name string) *fyne.Container {
	t.Helper()
	for _, o := range m.sourcesBox.Objects {
		row, ok := o.(*fyne.Container)
		if ok && slices.Contains(texts(row), name) {
			return row
		}
	}
	t.Fatalf("no row for source %s in:\n%s", name, strings.Join(texts(m.sourcesBox), "\n"))
	return nil
}

func TestSourcesTabManagesSources(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	m.win.Resize(fyne.NewSize(900, 680))
	m.show(tabSources)

	shown := strings.Join(texts(m.win.Content()), "\n")
	for _, want := range []string{"41 tools", "Last error: connection refused (https://mcp.slack.example/mcp)", "stderr",
		"Error: listen EADDRINUSE 127.0.0.1:3000", "Show tools (3 tools)", "Add a source"} {
		if !strings.Contains(shown, want) {
			t.Errorf("Sources tab does not show %q:\n%s", want, shown)
		}
	}

	// Restart and Disable act on their own source; a disabled source offers
	// Enable, and no Restart.
	test.Tap(findButton(sourceRowOf(t, m, "slack"), "Restart"))
	c.step()
	test.Tap(findButton(sourceRowOf(t, m, "filesystem"), "Disable"))
	c.step()
	if diff := cmp.Diff([]string{"slack"}, h.restarted); diff != "" {
		t.Errorf("restarted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sourceToggle{{"filesystem", false}}, h.enabled); diff != "" {
		t.Errorf("enabled (-want +got):\n%s", diff)
	}
	row := sourceRowOf(t, m, "filesystem")
	if findButton(row, "Enable") == nil || !findButton(row, "Restart").Disabled() || !slices.Contains(texts(row), "Disabled filesystem.") {
		t.Errorf("the disabled source's row: %q", texts(row))
	}
	test.Tap(findButton(sourceRowOf(t, m, "filesystem"), "Enable"))
	c.step()
	if diff := cmp.Diff([]sourceToggle{{"filesystem", false}, {"filesystem", true}}, h.enabled); diff != "" {
		t.Errorf("enabled (-want +got):\n%s", diff)
	}

	// Remove asks once more before it removes.
	test.Tap(findButton(sourceRowOf(t, m, "memory"), "Remove"))
	c.step()
	if len(h.removed) != 0 {
		t.Fatalf("the first tap removed %v", h.removed)
	}
	test.Tap(findButton(sourceRowOf(t, m, "memory"), "Remove with its secrets?"))
	c.step()
	if diff := cmp.Diff([]string{"memory"}, h.removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if strings.Contains(strings.Join(texts(m.sourcesBox), "\n"), "memory") && !strings.Contains(strings.Join(texts(m.sourcesBox), "\n"), "Removed memory.") {
		t.Errorf("memory is still listed:\n%s", strings.Join(texts(m.sourcesBox), "\n"))
	}

	// A failing action says so under the source.
	h.mu.Lock()
	h.sourceErr = errors.New("config.json is read-only")
	h.mu.Unlock()
	test.Tap(findButton(sourceRowOf(t, m, "github"), "Restart"))
	c.step()
	if row := sourceRowOf(t, m, "github"); !slices.Contains(texts(row), "Not done: config.json is read-only") {
		t.Errorf("the failed restart: %q", texts(row))
	}
	h.mu.Lock()
	h.sourceErr = nil
	h.mu.Unlock()

	// Add: the form says what is missing, then adds a command split into
	// words.
	test.Tap(m.addButton)
	if len(h.added) != 0 || !strings.Contains(m.addResult.Text, "name the source") {
		t.Errorf("empty form: added %v, message %q", h.added, m.addResult.Text)
	}
	m.addName.SetText("notes")
	m.addTarget.SetText(`node "/opt/My Notes/server.js" --stdio`)
	m.addExtra.SetText(`NOTES_DIR="/opt/My Notes"`)
	test.Tap(m.addButton)
	c.step()
	if diff := cmp.Diff([]SourceSpec{{Name: "notes", Command: []string{"node", "/opt/My Notes/server.js", "--stdio"}, Env: map[string]string{"NOTES_DIR": "/opt/My Notes"}}}, h.added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if !strings.Contains(m.addResult.Text, "Added notes.") || m.addName.Text != "" {
		t.Errorf("after adding: %q, name %q", m.addResult.Text, m.addName.Text)
	}
	if m.addBase.Visible() || !m.addExtra.Visible() || m.addExtra.Text != "" {
		t.Errorf("for a command: base URL field shown %v, environment field shown %v, holding %q", m.addBase.Visible(), m.addExtra.Visible(), m.addExtra.Text)
	}
	m.addKind.SetSelected(addOpenAPI)
	if !m.addBase.Visible() || m.addExtra.Visible() {
		t.Error("for an OpenAPI document the base URL field shows, the other not")
	}
	m.addName.SetText("petstore")
	m.addTarget.SetText("https://petstore.example/openapi.json")
	m.addBase.SetText("http://127.0.0.1:4010")
	test.Tap(m.addButton)
	c.step()
	if got := h.added[len(h.added)-1]; got.OpenAPI != "https://petstore.example/openapi.json" || got.Name != "petstore" || got.BaseURL != "http://127.0.0.1:4010" {
		t.Errorf("added OpenAPI source %+v", got)
	}
	if m.addBase.Text != "" {
		t.Errorf("the base URL field keeps %q after adding", m.addBase.Text)
	}
	sourceRowOf(t, m, "petstore")
}

// Turning a tool off writes a deny rule from the window, which the Policy
// tab lists with its origin; turning it on removes the rule.
func TestSourcesTabTurnsAToolOff(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	test.Tap(findButton(sourceRowOf(t, m, "github"), "Show tools (3 tools)"))
	row := sourceRowOf(t, m, "github")
	if !slices.Contains(texts(row), "github.createIssue — Create an issue") || findButton(row, "Hide tools") == nil {
		t.Fatalf("the open tool list: %q", texts(row))
	}
	if n := countButtons(row, "Turn off"); n != 2 {
		t.Errorf("%d Turn off buttons, want 2 (deleteRepository is denied already)", n)
	}
	test.Tap(findButtonIn(t, row, "Turn off"))
	c.step()
	var rule *PolicyRule
	for i, r := range h.policies {
		if r.Pattern == "github.createIssue" {
			rule = &h.policies[i]
		}
	}
	if rule == nil || rule.Mode != PolicyDeny || rule.From != "window" {
		t.Fatalf("after Turn off the rules are %+v", h.policies)
	}
	m.show(tabPolicy)
	if shown := strings.Join(texts(m.win.Content()), "\n"); !strings.Contains(shown, "github.createIssue") || !strings.Contains(shown, ruleOrigin(*rule)) {
		t.Errorf("the Policy tab does not show the rule with its origin %q:\n%s", ruleOrigin(*rule), shown)
	}
	m.show(tabSources)
	row = sourceRowOf(t, m, "github")
	if !slices.Contains(texts(row), "Turned github.createIssue off: a deny rule from the window, in the Policy tab.") {
		t.Errorf("after Turn off: %q", texts(row))
	}
	if n := countButtons(row, "Turn on"); n != 2 {
		t.Errorf("%d Turn on buttons after turning createIssue off, want 2", n)
	}
	test.Tap(findButtonIn(t, row, "Turn on")) // the first: createIssue's
	c.step()
	var patterns []string
	for _, r := range h.policies {
		patterns = append(patterns, r.Pattern)
	}
	if slices.Contains(patterns, "github.createIssue") || !slices.Contains(patterns, "github.deleteRepository") {
		t.Errorf("after Turn on the rules are %q", patterns)
	}
	if row := sourceRowOf(t, m, "github"); !slices.Contains(texts(row), "Turned github.createIssue back on: its rule is removed.") {
		t.Errorf("after Turn on: %q", texts(row))
	}
}

// What a source's last listing skipped is said under it: an operation
// left out is not simply missing.
func TestSourcesTabShowsWhatAListingSkipped(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.status.Sources[0].Warnings = []string{"skipped POST /repos/{owner}/{repo}/releases/{release_id}/assets: its own server https://uploads.github.com is not on the API's origin (https://api.github.com), and a source's credentials go to that origin only; to serve it and send them there too, add \"origins\": [\"https://uploads.github.com\"] to the source in config.json"}
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	want := "Served in part: " + h.status.Sources[0].Warnings[0]
	if !slices.Contains(texts(sourceRowOf(t, m, h.status.Sources[0].Name)), want) {
		t.Errorf("the source's row does not say %q:\n%s", want, strings.Join(texts(sourceRowOf(t, m, h.status.Sources[0].Name)), "\n"))
	}
}

// An operation left out for its origin can be served from the window:
// the first tap asks, the second allows the origin for the source; Stop
// takes it back.
func TestSourcesTabServesAnotherOrigin(t *testing.T) {
	h := newFakeHub()
	h.populate()
	name := h.status.Sources[0].Name
	h.status.Sources[0].Warnings = []string{"skipped POST /upload: its own server https://uploads.example.com is not on the API's origin (https://api.example.com), and a source's credentials go to that origin only; to serve it and send them there too, add \"origins\": [\"https://uploads.example.com\"] to the source in config.json"}
	h.status.Sources[0].Elsewhere = []string{"https://uploads.example.com"}
	h.status.Sources[0].OpenAPI, h.status.Sources[0].API = true, "https://api.example.com"
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	if want := "Its operations on https://uploads.example.com are left out. Serving them sends " + name + "'s credentials there too."; !slices.Contains(texts(sourceRowOf(t, m, name)), want) {
		t.Fatalf("the row does not offer to serve them: %q", texts(sourceRowOf(t, m, name)))
	}
	test.Tap(findButton(sourceRowOf(t, m, name), "Serve them"))
	c.step()
	if len(h.allowed) != 0 || findButton(sourceRowOf(t, m, name), "Send its credentials there?") == nil {
		t.Fatalf("the first tap: allowed %v, row %q", h.allowed, texts(sourceRowOf(t, m, name)))
	}
	test.Tap(findButton(sourceRowOf(t, m, name), "Send its credentials there?"))
	c.step()
	if diff := cmp.Diff([]string{name + " https://uploads.example.com"}, h.allowed); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	row := texts(sourceRowOf(t, m, name))
	if !slices.Contains(row, "Allowed https://uploads.example.com for "+name+".") || findButton(sourceRowOf(t, m, name), "Serve them") != nil ||
		!slices.Contains(row, "It also serves its operations on https://uploads.example.com, with its credentials.") {
		t.Errorf("after allowing: %q", row)
	}
	// Stop takes it back, at once.
	test.Tap(findButton(sourceRowOf(t, m, name), "Stop serving them"))
	c.step()
	if got := h.allowed[len(h.allowed)-1]; got != "-"+name+" https://uploads.example.com" || findButton(sourceRowOf(t, m, name), "Serve them") == nil {
		t.Errorf("after Stop: calls %v, row %q", h.allowed, texts(sourceRowOf(t, m, name)))
	}
}

// An OpenAPI source's row says where its calls go, and changes its base
// URL: the field keeps what is typed while the hub's state refreshes the
// window, and Save writes it.
func TestSourcesTabChangesTheBaseURL(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "jira", State: SourceUp, Tools: 499, OpenAPI: true, API: "https://your-domain.atlassian.net"})
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	if row := texts(sourceRowOf(t, m, "jira")); !slices.Contains(row, "API: https://your-domain.atlassian.net (its document's server)") {
		t.Fatalf("the row: %q", row)
	}
	if slices.ContainsFunc(texts(sourceRowOf(t, m, "github")), func(s string) bool { return strings.HasPrefix(s, "API:") }) {
		t.Error("an MCP source's row names an API")
	}
	test.Tap(findButton(sourceRowOf(t, m, "jira"), "Change base URL"))
	m.baseEntry.SetText("https://acme.atlassian.net")
	h.emit(Event{Kind: EventSource})
	c.step()
	if m.baseEntry.Text != "https://acme.atlassian.net" || findButton(sourceRowOf(t, m, "jira"), "Save") == nil {
		t.Fatalf("after a refresh: field %q, row %q", m.baseEntry.Text, texts(sourceRowOf(t, m, "jira")))
	}
	test.Tap(findButton(sourceRowOf(t, m, "jira"), "Save"))
	c.step()
	if diff := cmp.Diff([]string{"jira https://acme.atlassian.net"}, h.baseURLs); diff != "" {
		t.Errorf("base URLs set (-want +got):\n%s", diff)
	}
	row := texts(sourceRowOf(t, m, "jira"))
	if !slices.Contains(row, "API: https://acme.atlassian.net (its base URL)") || !slices.Contains(row, "Saved the base URL of jira.") || findButton(sourceRowOf(t, m, "jira"), "Change base URL") == nil {
		t.Errorf("after saving: %q", row)
	}
	if got := apiText(SourceStatus{OpenAPI: true}); !strings.Contains(got, "set its base URL") {
		t.Errorf("no server: %q", got)
	}
}

// A source of a thousand tools opens its list at once: the list draws the
// rows in view, a filter narrows it by name, title or policy mode, and a
// refresh of the hub's state keeps the filter.
func TestSourcesTabFiltersManyTools(t *testing.T) {
	h := newFakeHub()
	h.populate()
	var tools []SourceTool
	for i := range 1222 {
		tools = append(tools, SourceTool{Address: fmt.Sprintf("gh.op%04d", i), Title: "Do thing " + strconv.Itoa(i), Mode: PolicyAsk})
	}
	tools[700] = SourceTool{Address: "gh.pullsList", Title: "List pull requests", Mode: PolicyAllow}
	tools[701] = SourceTool{Address: "gh.pullsMerge", Title: "Merge a pull request", Mode: PolicyAsk}
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "gh", State: SourceUp, Tools: len(tools), ToolList: tools})
	c := newTestController(t, h, t0)
	m := c.main
	m.show(tabSources)
	test.Tap(findButton(sourceRowOf(t, m, "gh"), "Show tools (1222 tools)"))
	p := m.toolPanels["gh"]
	if n := countButtons(p.list, "Turn off"); n == 0 || n > 2*listRows {
		t.Errorf("the list of 1222 tools drew %d rows", n)
	}
	if p.count.Text != "1222 tools" {
		t.Errorf("count %q", p.count.Text)
	}
	test.Type(p.filter, "PULL req")
	if len(p.shown) != 2 || p.count.Text != "2 of 1222 match" {
		t.Fatalf("filtered to %d tools, count %q", len(p.shown), p.count.Text)
	}
	h.emit(Event{Kind: EventSource})
	c.step()
	if p != m.toolPanels["gh"] || p.filter.Text != "PULL req" || len(p.shown) != 2 {
		t.Fatalf("a refresh lost the filter: %q, %d shown", p.filter.Text, len(p.shown))
	}
	p.filter.SetText("pull allow")
	if len(p.shown) != 1 || p.shown[0].Address != "gh.pullsList" {
		t.Fatalf("filter by mode: %+v", p.shown)
	}
	test.Tap(findButtonIn(t, p.list, "Turn off"))
	c.step()
	if !slices.ContainsFunc(h.policies, func(r PolicyRule) bool { return r.Pattern == "gh.pullsList" && r.Mode == PolicyDeny }) {
		t.Errorf("Turn off on the filtered row: rules %+v", h.policies)
	}
	p.filter.SetText("nothing like it")
	if p.count.Text != `No tool of 1222 matches "nothing like it".` {
		t.Errorf("count %q", p.count.Text)
	}
}

func TestRunsTabShowsCallsAndKeepsTheSelection(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	m.showRun("run_7f3a")
	if m.runCalls.Text != "Reading the calls…" {
		t.Errorf("before the calls are read: %q", m.runCalls.Text)
	}
	c.step() // the calls are read
	for _, want := range []string{
		"#3  github.createIssue  waiting  (0s)  on connection work",
		"decision: waiting for a decision",
		`"title": "Flaky test: TestCheckout"`,
		"#1  github.listIssues  ok  (412ms)  on connection work",
		"decision: always allowed by ana in the terminal\n  asked because: policy ask",
		`"number": 4121`,
	} {
		if !strings.Contains(m.runCalls.Text, want) {
			t.Errorf("Calls of run_7f3a do not show %q:\n%s", want, m.runCalls.Text)
		}
	}

	// A new run arrives on top: the selection stays on the run shown,
	// whose calls, unchanged, are not read again.
	reads := h.runCallReads
	h.mu.Lock()
	h.runs = append([]RunSummary{{ID: "run_new", Status: "running", Client: "cursor 0.48", Started: t0.Add(time.Minute)}}, h.runs...)
	h.mu.Unlock()
	h.emit(Event{Kind: EventRun, ID: "run_new"})
	c.step()
	if m.runID != "run_7f3a" || !strings.Contains(m.runHeader.Text, "run_7f3a") {
		t.Errorf("after a refresh the window shows %q (%q)", m.runID, m.runHeader.Text)
	}
	if h.runCallReads != reads {
		t.Errorf("a refresh that left the run shown as it was read its calls %d times", h.runCallReads-reads)
	}
	// The run shown moves on: its calls are read again.
	h.mu.Lock()
	h.runs[1].Status = "ok"
	h.runs[1].Calls[2].Decision, h.runs[1].Calls[2].State, h.runs[1].Calls[2].OK = "allow", "ok", true
	h.mu.Unlock()
	h.emit(Event{Kind: EventRun, ID: "run_7f3a"})
	c.step()
	c.step()
	if h.runCallReads != reads+1 || !strings.Contains(m.runCalls.Text, "#3  github.createIssue  ok") {
		t.Errorf("after the run moved on: %d reads, calls:\n%s", h.runCallReads-reads, m.runCalls.Text)
	}
	if got := runIndex(m.snap.runs, m.runID); got != 1 {
		t.Errorf("the run shown is at %d of the list, want 1", got)
	}

	// The run is gone (pruned): nothing is shown in its place.
	h.mu.Lock()
	h.runs = h.runs[:1]
	h.mu.Unlock()
	h.emit(Event{Kind: EventRun})
	c.step()
	if m.runHeader.Text != "Pick a run" {
		t.Errorf("after the run went: %q", m.runHeader.Text)
	}
}

func TestClientsTabConnectedAndProfiles(t *testing.T) {
	h := newFakeHub()
	h.populate()
	var connects [][2]string
	connected := []ConnectedClient{{Name: "claude-code", Version: "2.1.0", Mode: "code", Since: t0}}
	a := test.NewTempApp(t)
	c := newController(a, h, Options{Logf: t.Logf,
		Connect: func(client, profile string) (string, error) {
			connects = append(connects, [2]string{client, profile})
			return "Added capabilities-" + profile + " to " + client + ".", nil
		},
		Connected: func() []ConnectedClient { return slices.Clone(connected) },
	}, false)
	c.now = func() time.Time { return t0.Add(time.Minute) }
	t.Cleanup(h.Subscribe(c.post))
	c.step()
	m := c.main
	m.show(tabClients)
	if want := "claude-code 2.1.0 — every source, code mode, since 09:26:53"; m.connectedLabel.Text != want {
		t.Errorf("connected: %q, want %q", m.connectedLabel.Text, want)
	}
	if diff := cmp.Diff([]string{wholeHub, "personal", "work"}, m.profilePick.Options); diff != "" {
		t.Errorf("profile choices (-want +got):\n%s", diff)
	}
	m.profilePick.SetSelected("work")
	if got := m.clientCmds["cursor"].Text; got != "capabilities install cursor --profile work" {
		t.Errorf("cursor's command with work picked: %q", got)
	}
	test.Tap(findButtonIn(t, m.tabs.Selected().Content, "Connect"))
	c.step()
	if len(connects) != 1 || connects[0][1] != "work" {
		t.Errorf("Connect calls: %v", connects)
	}

	// A client connects: Refresh shows it, with its profile.
	connected = append(connected, ConnectedClient{Name: "cursor", Version: "1.7", Profile: "work", Mode: "code", Since: t0.Add(30 * time.Second)})
	test.Tap(findButtonIn(t, m.tabs.Selected().Content, "Refresh"))
	c.step()
	if !strings.Contains(m.connectedLabel.Text, "cursor 1.7 — profile work, code mode") {
		t.Errorf("after Refresh: %q", m.connectedLabel.Text)
	}
	// The picked profile is kept across refreshes while it exists.
	if m.profilePick.Selected != "work" {
		t.Errorf("the picked profile became %q", m.profilePick.Selected)
	}
}

// findButtonIn finds the button with the label anywhere inside o, widgets
// included.
func findButtonIn(t *testing.T, o fyne.CanvasObject, label string) *widget.Button {
	t.Helper()
	var found *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found != nil {
			return
		}
		switch w := o.(type) {
		case *widget.Button:
			if w.Text == label {
				found = w
			}
			return
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	if found == nil {
		t.Fatalf("no button %q", label)
	}
	return found
}

// A client that connects or goes is an event: the Clients tab shows it
// without a Refresh.
func TestClientsTabFollowsConnections(t *testing.T) {
	h := newFakeHub()
	h.populate()
	var connected []ConnectedClient
	var changed func()
	a := test.NewTempApp(t)
	opts := Options{Logf: t.Logf,
		Connected:      func() []ConnectedClient { return slices.Clone(connected) },
		WatchConnected: func(fn func()) func() { changed = fn; return func() { changed = nil } },
	}
	c := newController(a, h, opts, false)
	c.now = func() time.Time { return t0 }
	t.Cleanup(h.Subscribe(c.post))
	cancel := opts.WatchConnected(func() { c.post(Event{Kind: EventClients}) })
	defer cancel()
	c.step()
	if got := c.main.connectedLabel.Text; got != "No MCP client is connected now." {
		t.Fatalf("before any client: %q", got)
	}
	connected = []ConnectedClient{{Name: "goose", Version: "1.9", Mode: "code", Since: t0}}
	changed()
	c.step()
	if got, want := c.main.connectedLabel.Text, "goose 1.9 — every source, code mode, since 09:26:53"; got != want {
		t.Errorf("after the client connected: %q, want %q", got, want)
	}
}

// TestSkillsTab: the Skills tab lists the skills the model can find, the
// folders the hub skips and why, and the folders it reads, where one is
// added or removed; a source's changed skill is accepted there.
func TestSkillsTab(t *testing.T) {
	h := newFakeHub()
	h.populate()
	h.changed = append(h.changed, ToolChange{Address: "slack.listChannels", Summary: "description changed", Hash: "77ab01", Seen: t0.Add(-time.Hour)})
	c := newTestController(t, h, t0)
	m := c.main
	m.win.Resize(fyne.NewSize(900, 680))
	m.show(tabSkills)
	shown := strings.Join(texts(m.skillsBox), "\n")
	for _, want := range []string{
		"skill:git-workflow", "Branch, commit and open pull requests the way this team does.",
		"skill:release-notes", "/home/ana/.claude/skills/release-notes",
		"skill:docs.billing/refunds", "source docs", "Changed since you accepted it: changed SKILL.md.",
		`Skipped /home/ana/.claude/skills/draft: SKILL.md: does not begin with YAML frontmatter (a line "---")`,
		"/home/ana/.config/capabilities/skills", "the hub's own folder, read first", "/home/ana/.claude/skills",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the Skills tab does not show %q:\n%s", want, shown)
		}
	}

	// Review… opens the change where it is shown whole and accepted by
	// the hash of what is shown.
	test.Tap(findButton(m.skillsBox, "Review…"))
	c.step()
	if m.changes.picked != "skill:docs.billing/refunds" || m.changes.shown.Hash != "9e2f40" {
		t.Fatalf("Review… picked %q, shown %+v", m.changes.picked, m.changes.shown)
	}
	if got := strings.Join(texts(m.changes.box), "\n"); !strings.Contains(got, "2 tools and 1 skill changed since they were accepted") ||
		!strings.Contains(got, `"Size": 958`) ||
		!strings.Contains(got, "What changed since you accepted it: changed SKILL.md. The model is told it changed until you accept it.") {
		t.Errorf("the changes panel shows:\n%s", got)
	}
	test.Tap(m.changes.accept)
	c.step()
	if slices.ContainsFunc(h.changed, func(c ToolChange) bool { return c.Address == "skill:docs.billing/refunds" }) {
		t.Errorf("the skill's change is still listed after Accept: %+v", h.changed)
	}

	test.Tap(m.skillAdd)
	if !strings.Contains(m.skillResult.Text, "Enter a folder of skills") {
		t.Errorf("an empty folder: %q", m.skillResult.Text)
	}
	m.skillFolder.SetText("team/skills")
	test.Tap(m.skillAdd)
	c.step()
	if !strings.Contains(m.skillResult.Text, `Not added: skills.paths: "team/skills" is relative`) {
		t.Errorf("a relative folder: %q", m.skillResult.Text)
	}
	m.skillFolder.SetText("~/team/skills")
	test.Tap(m.skillAdd)
	c.step()
	if !strings.Contains(m.skillResult.Text, "Added ~/team/skills") || m.skillFolder.Text != "" {
		t.Errorf("after adding: %q, entry %q", m.skillResult.Text, m.skillFolder.Text)
	}
	if !slices.Contains(texts(m.skillsBox), "~/team/skills") {
		t.Errorf("the added folder is not listed:\n%s", strings.Join(texts(m.skillsBox), "\n"))
	}
	var row *fyne.Container
	for _, o := range m.skillsBox.Objects {
		if r, ok := o.(*fyne.Container); ok && slices.Contains(texts(r), "/home/ana/.claude/skills") {
			row = r
		}
	}
	if row == nil {
		t.Fatal("no row for /home/ana/.claude/skills")
	}
	test.Tap(findButton(row, "Remove"))
	c.step()
	if slices.Contains(texts(m.skillsBox), "/home/ana/.claude/skills") || !strings.Contains(m.skillResult.Text, "Removed /home/ana/.claude/skills; its files stay") {
		t.Errorf("after removing: %q\n%s", m.skillResult.Text, strings.Join(texts(m.skillsBox), "\n"))
	}
}

// TestClientsTabProfiles: the Clients tab lists the profiles with what
// each shows, adds one from its sources, modes and read-only, and removes
// one after asking once more; the profile picker follows.
func TestClientsTabProfiles(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	m := c.main
	m.win.Resize(fyne.NewSize(900, 680))
	m.show(tabClients)
	shown := strings.Join(texts(m.profilesBox), "\n")
	for _, want := range []string{"personal", "direct mode; sources github:personal; read-only", "work", "code mode; sources github:work, slack; rules slack.*=ask"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the profiles do not show %q:\n%s", want, shown)
		}
	}
	if diff := cmp.Diff([]string{"github", "filesystem", "slack", "memory"}, m.profileSources.Options); diff != "" {
		t.Errorf("the sources offered (-want +got):\n%s", diff)
	}

	test.Tap(m.profileAdd)
	if !strings.Contains(m.profileResult.Text, "Not added: name the profile") {
		t.Errorf("an empty form: %q", m.profileResult.Text)
	}
	m.profileName.SetText("reader")
	test.Tap(m.profileAdd)
	if !strings.Contains(m.profileResult.Text, "pick the sources the profile shows") {
		t.Errorf("no source picked: %q", m.profileResult.Text)
	}
	m.profileSources.SetSelected([]string{"github", "memory"})
	m.profileReadOnly.SetChecked(true)
	// github has two connections: the profile uses all of them, or one.
	if len(m.profilePins.Objects) != 1 || !slices.Contains(texts(m.profilePins), "github's connections") {
		t.Fatalf("the connection pickers: %q", texts(m.profilePins))
	}
	pick := m.pinSelects["github"]
	if diff := cmp.Diff([]string{"all (a call names one; work when it names none)", "only work", "only personal"}, pick.Options); diff != "" || pick.SelectedIndex() != 0 {
		t.Errorf("github's choices (-want +got):\n%s", diff)
	}
	pick.SetSelected("only work")
	m.profileName.SetText("reader")
	m.profileRules.SetText("memory.*=ask, github.createIssue=maybe")
	test.Tap(m.profileAdd)
	if !strings.Contains(m.profileResult.Text, `rule "github.createIssue=maybe": write TARGET=MODE`) {
		t.Errorf("a bad rule: %q", m.profileResult.Text)
	}
	m.profileRules.SetText("memory.*=ask, github.createIssue=deny")
	test.Tap(m.profileAdd)
	c.step()
	if !strings.Contains(m.profileResult.Text, "Added profile reader.") || m.profileName.Text != "" || len(m.profileSources.Selected) != 0 || len(m.profilePins.Objects) != 0 || m.profileRules.Text != "" {
		t.Errorf("after adding: %q, name %q, picked %v, pickers %d", m.profileResult.Text, m.profileName.Text, m.profileSources.Selected, len(m.profilePins.Objects))
	}
	if !strings.Contains(strings.Join(texts(m.profilesBox), "\n"), "code mode; sources github:work, memory; read-only; rules github.createIssue=deny, memory.*=ask") {
		t.Errorf("the added profile:\n%s", strings.Join(texts(m.profilesBox), "\n"))
	}
	if !slices.Contains(m.profilePick.Options, "reader") {
		t.Errorf("the picker does not offer the new profile: %v", m.profilePick.Options)
	}
	m.profileName.SetText("work")
	m.profileSources.SetSelected([]string{"slack"})
	test.Tap(m.profileAdd)
	c.step()
	if !strings.Contains(m.profileResult.Text, "Not added: config.json: profiles.work: a profile with this name exists") {
		t.Errorf("a name taken: %q", m.profileResult.Text)
	}

	rowOf := func(name string) *fyne.Container {
		for _, o := range m.profilesBox.Objects {
			if r, ok := o.(*fyne.Container); ok && slices.Contains(texts(r), name) {
				return r
			}
		}
		t.Fatalf("no row for profile %s", name)
		return nil
	}
	test.Tap(findButton(rowOf("personal"), "Remove"))
	h.mu.Lock()
	kept := slices.Contains(h.status.Profiles, "personal")
	h.mu.Unlock()
	if !kept {
		t.Fatal("the first tap removed the profile")
	}
	test.Tap(findButton(rowOf("personal"), "Remove profile personal?"))
	c.step()
	if strings.Contains(strings.Join(texts(m.profilesBox), "\n"), "github:personal") || !strings.Contains(m.profileResult.Text, "Removed profile personal") {
		t.Errorf("after removing: %q\n%s", m.profileResult.Text, strings.Join(texts(m.profilesBox), "\n"))
	}
}
