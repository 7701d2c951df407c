//go:build !headless

package ui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/secrets"
)

func TestAllowTogetherLabel(t *testing.T) {
	for _, tc := range []struct {
		n    int
		plan bool
		want string
	}{
		{1, true, "Allow 1 call"},
		{3, true, "Allow these 3 calls"},
		{2, false, "Allow these 2 calls once"},
		{1, false, "Allow 1 call once"},
	} {
		if got := allowTogetherLabel(tc.n, tc.plan); got != tc.want {
			t.Errorf("allowTogetherLabel(%d, %v) = %q, want %q", tc.n, tc.plan, got, tc.want)
		}
	}
}

func TestPressButton(t *testing.T) {
	for _, tc := range []struct {
		key         fyne.KeyName
		deny, press bool
	}{
		{fyne.KeyEscape, true, false},
		{fyne.KeyReturn, false, true},
		{fyne.KeyEnter, false, true},
		{fyne.KeySpace, false, false},
		{fyne.KeyTab, false, false},
	} {
		if deny, press := pressButton(tc.key); deny != tc.deny || press != tc.press {
			t.Errorf("pressButton(%s) = %v, %v; want %v, %v", tc.key, deny, press, tc.deny, tc.press)
		}
	}
}

// TestRequestTextDeprecated: the request line of an operation its API
// deprecates says so, in the dialog and among a plan's marks.
func TestRequestTextDeprecated(t *testing.T) {
	a := Approval{Method: "PUT", URL: "https://api.github.com/teams/{team_id}/members/{username}", Preview: `{"team_id":7,"username":"bob"}`, Deprecated: true}
	want := "PUT https://api.github.com/teams/7/members/bob · deprecated by its API"
	if got := requestText(a); got != want {
		t.Errorf("requestText = %q, want %q", got, want)
	}
	if marks := callMarks(a); !slices.Contains(marks, want) {
		t.Errorf("callMarks = %q, want %q among them", marks, want)
	}
	a.Deprecated = false
	if got := requestText(a); strings.Contains(got, "deprecated") {
		t.Errorf("a live operation: %q", got)
	}
}

func TestDefinitionDiff(t *testing.T) {
	var long []string
	for i := range 12 {
		long = append(long, `"k`+string(rune('a'+i))+`": 1`)
	}
	obj := func(extra string) string { return "{" + strings.Join(long, ",") + extra + "}" }
	for _, tc := range []struct {
		name, was, is string
		want          []string
	}{
		{"one value changed",
			`{"description":"Remove an item.","name":"removeItem"}`,
			`{"description":"Remove every item.","name":"removeItem"}`,
			[]string{"  {", `-   "description": "Remove an item.",`, `+   "description": "Remove every item.",`, `    "name": "removeItem"`, "  }"}},
		{"far from the change is left out", obj(""), obj(`,"kz": 2`),
			[]string{"  … 10 unchanged lines", `    "kj": 1,`, `    "kk": 1,`, `-   "kl": 1`, `+   "kl": 1,`, `+   "kz": 2`, "  }"}},
		{"the accepted one was not kept", "", `{"name":"x"}`,
			[]string{"The accepted definition was not kept; the current one:", "  {", `    "name": "x"`, "  }"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range definitionDiff(tc.was, tc.is) {
				got = append(got, l.text)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("definitionDiff (-want +got):\n%s", diff)
			}
		})
	}
	if got := definitionDiff("", ""); got != nil {
		t.Errorf("no change and no definitions: %v", got)
	}
}

// TestPlanGrid: every call of a plan with its arguments, the shown one
// marked, the marks of each, and the calls policy denied.
func TestPlanGrid(t *testing.T) {
	calls := planApprovals(t0)
	calls[1].Change = "description changed"
	calls[2].Plan = &PlanInfo{Missing: true, Stop: calls[2].Plan.Stop, Denied: []string{"memory.deleteEntities (#4)"}}
	var items []queueItem
	for _, a := range calls {
		items = append(items, queueItem{a: a})
	}
	got := gridText(planGrid(items, []int{0, 1, 2}, 1))
	for _, want := range []string{
		"  #1 memory.createEntities\n    {\n      \"entities\": [",
		"▶ #2 memory.addObservations · changed definition\n    {",
		"\"entityName\": <result of call 1>.entities[0].name,",
		"  #3 memory.createRelations · needs a secret first\n",
		"✕ memory.deleteEntities (#4) · denied by policy, never runs",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the plan lacks %q:\n%s", want, got)
		}
	}
	styles := map[lineStyle]int{}
	for _, l := range planGrid(items, []int{0, 1, 2}, 1) {
		styles[l.style]++
	}
	if styles[lineCurrent] != 1 || styles[lineHead] != 2 || styles[lineWarn] != 1 {
		t.Errorf("line styles %v: one current head, two other heads, one denied", styles)
	}
}

func TestSecretWords(t *testing.T) {
	now := t0
	for _, tc := range []struct {
		name         string
		a            Approval
		field, state string
	}{
		{"new connection", Approval{NeedsSecret: true, Source: "petstore", SecretWhere: "header api_key"},
			"Fills header api_key of petstore. Saving creates its first connection, default.",
			"This call waits for a secret of petstore, which has no connection yet"},
		{"named connection", Approval{NeedsSecret: true, Source: "github", Connection: "work", SecretWhere: "environment variable GITHUB_TOKEN"},
			"Fills environment variable GITHUB_TOKEN of github, connection work.",
			"This call waits for the secret of connection work of github"},
		{"unknown place", Approval{NeedsSecret: true, Source: "notes", Connection: "work"},
			"Fills the connection's secret of notes, connection work.", "connection work of notes"},
		{"sign-in", Approval{NeedsSecret: true, SignIn: true, Source: "linear", Connection: "personal"},
			"", "This call waits for a sign-in to linear (connection personal)"},
		{"token or sign-in", Approval{NeedsSecret: true, OffersSignIn: true, Source: "tasks", Connection: "default", SecretWhere: "header Authorization"},
			"Fills header Authorization of tasks, connection default.", "This call waits for a token of tasks (connection default), not for a decision. Paste one or sign in above"},
	} {
		if tc.field != "" {
			if got := secretFieldText(tc.a); got != tc.field {
				t.Errorf("%s: secretFieldText = %q, want %q", tc.name, got, tc.field)
			}
		}
		tc.a.Expires = now.Add(time.Minute)
		if got := statusText(queueItem{a: tc.a}, now); !strings.Contains(got, tc.state) {
			t.Errorf("%s: statusText = %q, want it to contain %q", tc.name, got, tc.state)
		}
	}
	if got := signInBoxText(Approval{Source: "linear", Connection: "personal"}, "http://127.0.0.1:9/start/x"); !strings.Contains(got, "if none opened, copy this address") {
		t.Errorf("with the address: %q", got)
	}
}

// TestDialogChangedRESTCall: a changed OpenAPI operation shows its method
// and URL, and the diff of its definitions comes first.
func TestDialogChangedRESTCall(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a := restApproval("ap_1", t0)
	h.add(a, a.Preview)
	c.step()
	d := c.dialog
	if !d.request.Visible() || d.request.Text != "POST https://api.example.com/v1/admin/wipe/item%2042" {
		t.Errorf("request %q (visible %v)", d.request.Text, d.request.Visible())
	}
	if d.lower.Selected() != d.diffTab || len(d.lower.Items) != 2 || !strings.Contains(d.change.Text, "method (DELETE to POST)") {
		t.Fatalf("the diff is not the first tab: %d tabs, %v selected", len(d.lower.Items), d.lower.Selected().Text)
	}
	diff := d.diffText()
	for _, want := range []string{`-     "method": "DELETE",`, `+     "method": "POST",`, `-     "path": "/items/{id}",`, `+     "path": "/admin/wipe/{id}",`, `+       "cascade": {`} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	// The tab goes when the next call's tool did not change.
	b, raw := sampleApproval("ap_2", t0.Add(time.Second))
	h.add(b, raw)
	c.step()
	d.move(+1)
	if len(d.lower.Items) != 1 || d.request.Visible() {
		t.Errorf("an unchanged MCP tool: %d tabs, request shown %v", len(d.lower.Items), d.request.Visible())
	}
}

// TestDialogLongReasonKeepsItsWidth: a long reason wraps; the window does
// not grow past its width, so the buttons stay on screen.
func TestDialogLongReasonKeepsItsWidth(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a := longReasonApproval("ap_1", t0)
	h.add(a, a.Preview)
	c.step()
	d := c.dialog
	if w := d.win.Content().MinSize().Width; w > dialogWidth {
		t.Errorf("the content needs %v wide, more than %d", w, dialogWidth)
	}
	if d.reason.Text != a.Reason || d.reason.Wrapping != fyne.TextWrapWord {
		t.Errorf("the reason is not whole and wrapped: %q", d.reason.Text)
	}
}

// TestDialogPlanShowsEveryCall: the args view of a plan's call lists each
// call of the plan with its arguments.
func TestDialogPlanShowsEveryCall(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	for _, p := range planApprovals(t0) {
		h.add(p, p.Preview)
	}
	c.step()
	d := c.dialog
	args := d.argsText()
	for _, want := range []string{"▶ #1 memory.createEntities", "  #2 memory.addObservations", "  #3 memory.createRelations", `"to": "Analytical Engine"`} {
		if !strings.Contains(args, want) {
			t.Errorf("the plan lacks %q:\n%s", want, args)
		}
	}
	if d.allowRun.Text != "Allow these 3 calls" || !strings.Contains(d.group.Text, "This run's plan: 3 calls,") {
		t.Errorf("button %q, group %q", d.allowRun.Text, d.group.Text)
	}
}

// TestDialogSecretForASourceWithNoConnection: the field says which header
// it fills and that saving creates the first connection; the secret goes
// to the hub with no connection named.
func TestDialogSecretForASourceWithNoConnection(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a := secretApproval("ap_1", t0)
	h.add(a, a.Preview)
	c.step()
	d := c.dialog
	if !d.secretBox.Visible() || d.signInBox.Visible() || d.secretLabel.Text != "Fills header api_key of petstore. Saving creates its first connection, default." {
		t.Fatalf("secret box %v, sign-in box %v, label %q", d.secretBox.Visible(), d.signInBox.Visible(), d.secretLabel.Text)
	}
	test.Type(d.secretEntry, "special-key")
	test.Tap(d.secretSave)
	c.step()
	if diff := cmp.Diff([]secretCall{{"petstore", "", "special-key"}}, h.secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
}

// TestDialogSignIn: an OAuth connection gets a Sign in button, no secret
// field; the sign-in page's address is shown to copy while it runs.
func TestDialogSignIn(t *testing.T) {
	h := newFakeHub()
	gate := make(chan struct{})
	h.loginGo, h.loginURL = gate, "http://127.0.0.1:53682/start/abc"
	c := newTestController(t, h, t0)
	a := signInApproval("ap_1", t0)
	h.add(a, a.Preview)
	c.step()
	d := c.dialog
	if !d.signInBox.Visible() || d.secretBox.Visible() || d.signInURL.Visible() {
		t.Fatalf("sign-in box %v, secret box %v, address shown %v", d.signInBox.Visible(), d.secretBox.Visible(), d.signInURL.Visible())
	}
	// The dialog's sign-in reports to the test once the address is shown
	// and once the sign-in ended (the callbacks run on Login's goroutine).
	shown, ended := make(chan struct{}, 1), make(chan struct{}, 1)
	orig := d.signIn
	d.signIn = func(source, conn string, showURL func(string), done func(error)) {
		orig(source, conn, func(u string) { showURL(u); shown <- struct{}{} }, func(err error) { done(err); ended <- struct{}{} })
	}
	test.Tap(d.signInButton)
	<-shown
	if !d.signInURL.Visible() || d.signInURL.Text != h.loginURL {
		t.Fatalf("the sign-in page's address: shown %v, %q", d.signInURL.Visible(), d.signInURL.Text)
	}
	if !d.signInButton.Disabled() || !strings.Contains(d.signInLabel.Text, "if none opened") || d.signInButton.Text != "Waiting for the browser…" {
		t.Errorf("while signing in: button disabled %v, label %q", d.signInButton.Disabled(), d.signInLabel.Text)
	}
	d.signInURL.SetText("edited")
	if d.signInURL.Text != h.loginURL {
		t.Errorf("the address can be edited: %q", d.signInURL.Text)
	}
	close(gate)
	<-ended
	c.step()
	if diff := cmp.Diff([]loginCall{{"linear", "personal"}}, h.loginCalls()); diff != "" {
		t.Errorf("logins (-want +got):\n%s", diff)
	}
	if d.signInURL.Visible() || !d.dismiss.Visible() || d.signInButton.Text != "Sign in" {
		t.Errorf("after the sign-in: address shown %v, dismiss %v", d.signInURL.Visible(), d.dismiss.Visible())
	}
}

// TestDialogSignInNeedsClient: a sign-in from the dialog whose server
// takes no registration opens the window's Sources tab on the
// connection's client form, and the dialog says where to go; a client
// credentials API's asks for its id and secret there.
func TestDialogSignInNeedsClient(t *testing.T) {
	for _, tc := range []struct {
		err         error
		credentials bool
		why         string
	}{
		{ErrNeedsClient, false, needsClientText},
		{ErrNeedsClientCredentials, true, needsCredentialsText},
		// The client it has went to another server: the hub's reason,
		// which names both, and not its command line.
		{elsewhereErr{"the authorization server of linear is now https://b.example; the secret of its client pre-1 goes only to https://a.example, where its first sign-in sent it", ErrNeedsClient}, false,
			"the authorization server of linear is now https://b.example; the secret of its client pre-1 goes only to https://a.example, where its first sign-in sent it."},
	} {
		h := newFakeHub()
		h.loginErr = fmt.Errorf("the authorization server of linear: %w", tc.err)
		c := newTestController(t, h, t0)
		a := signInApproval("ap_1", t0)
		h.add(a, a.Preview)
		c.step()
		d, m := c.dialog, c.main
		tapSignInAndWait(d)
		c.step()
		f := m.clientForms["linear/personal"]
		if f == nil || f.credentials != tc.credentials || m.tabs.Selected().Text != tabSources || m.signInErr["linear/personal"] != "Not signed in: "+tc.why {
			t.Errorf("%v: the window's client form %+v, tab %q, sign-in error %q", tc.err, f, m.tabs.Selected().Text, m.signInErr["linear/personal"])
		}
		want := "Not signed in: " + tc.why + " Give the client in the window's Sources tab, opened beside this dialog, under linear."
		if d.status.Text != want {
			t.Errorf("%v: the dialog says %q, want %q", tc.err, d.status.Text, want)
		}
	}
}

// elsewhereErr is a sign-in's error as the hub gives it when the
// connection's client went to another server (kind: ErrNeedsClient or
// ErrNeedsClientCredentials).
type elsewhereErr struct {
	reason string
	kind   error
}

func (e elsewhereErr) Error() string {
	return e.reason + "; register a client there, then: capabilities connection login linear personal --client-id ID --client-secret-stdin"
}
func (e elsewhereErr) Reason() string  { return e.reason }
func (e elsewhereErr) Unwrap() []error { return []error{e.kind, ErrClientElsewhere} }

// TestPreviewKeepsAngleBrackets: a value with < and > is shown as
// written, not as JSON's HTML escapes.
func TestPreviewKeepsAngleBrackets(t *testing.T) {
	got := strings.Join(fullPreview(`{"q":"a < b && c > d"}`), "\n")
	if !strings.Contains(got, `"q": "a < b && c > d"`) {
		t.Errorf("fullPreview = %q", got)
	}
}

// TestLongArgumentsAreCutInOnePass: a call whose argument is one long
// string (a file's content) is shown whole, in pieces of argLineWidth,
// without copying the rest of the line for each piece: a 4 MB argument
// took the dialog four minutes so. It counts the bytes the cut allocates.
func TestLongArgumentsAreCutInOnePass(t *testing.T) {
	const n = 256 << 10
	preview := `{"content": "` + strings.Repeat("word ", n/5) + `"}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lines := fullPreview(preview)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64*n {
		t.Errorf("cutting a %d KB argument allocated %d MB, over 64 times its size", n>>10, got>>20)
	}
	var text strings.Builder
	for i, l := range lines {
		if utf8.RuneCountInString(l) > argLineWidth {
			t.Fatalf("line %d is %d characters, over %d", i, utf8.RuneCountInString(l), argLineWidth)
		}
		text.WriteString(strings.TrimPrefix(l, "  ↪ "))
	}
	if !strings.Contains(text.String(), strings.Repeat("word ", n/5)) {
		t.Errorf("the pieces do not make the argument again")
	}
}

// TestLargeArgumentsSayWhereTheyAreCut: the hub cuts a preview past
// secrets.MaxPreviewBytes; the dialog's last line of it says so, as a
// warning.
func TestLargeArgumentsSayWhereTheyAreCut(t *testing.T) {
	raw, _ := json.Marshal(map[string]string{"path": "/tmp/big.txt", "content": strings.Repeat("word ", 200000)})
	lines := previewLines(secrets.Redactor{}.Preview(raw))
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last.text, "… (cut here: the arguments are 976 KB; the first 64 KB are shown)") || last.style != lineWarn {
		t.Errorf("the last line of a cut preview: %+v", last)
	}
	if size := cutSize(secrets.Redactor{}.Preview(raw)); size != "976 KB" {
		t.Errorf("cutSize = %q, want 976 KB", size)
	}
	if small := previewLines(`{"path": "/tmp/a"}`); small[len(small)-1].style == lineWarn || cutSize(`{"path": "/tmp/a"}`) != "" {
		t.Errorf("a whole preview ends in a warning: %+v", small)
	}
}

// TestDialogShowsHiddenCharacters: what the person reads beside an
// approval shows every character a reader would not see as an escape (a
// zero-width space in an argument, a joiner that makes another variable,
// tag characters), and the run's code is cut into lines where JavaScript
// ends them, so a line separator cannot hide a statement in a comment.
func TestDialogShowsHiddenCharacters(t *testing.T) {
	args := strings.Join(fullPreview(`{"to":"alice`+"\u200b"+`42","note":"`+"\U000e0048\U000e0069"+`"}`), "\n")
	for _, want := range []string{`"to": "alice\u200b42"`, `"note": "\udb40\udc48\udb40\udc69"`} {
		if !strings.Contains(args, want) {
			t.Errorf("arguments %q, want %s in them", args, want)
		}
	}
	code := "const to\u200d = \"mallory\";\n// check the address\u2028await bank.transfer({ to: to\u200d, amount: 10 });\rreturn 1;"
	lines := codeView(code, "bank.transfer", nil)
	var texts []string
	for _, l := range lines {
		texts = append(texts, l.text)
	}
	want := []string{`const to\u200d = "mallory";`, "// check the address", `await bank.transfer({ to: to\u200d, amount: 10 });`, "return 1;"}
	if !slices.Equal(texts, want) {
		t.Errorf("code lines %q, want %q", texts, want)
	}
	if len(lines) == 4 && lines[2].mark != markCall {
		t.Errorf("the call's line is not marked: %+v", lines[2])
	}

	// Letters that look alike: a Cyrillic а in a payee, a Cyrillic о in
	// a variable.
	warn := gridText(lookAlikeLines(`{"to": "аlice42", "memo": "rent"}`, `const tо = "mallory"; await bank.transfer({ to: tо });`, ""))
	for _, want := range []string{`! "аlice42" mixes Latin and Cyrillic letters that look alike`, `! "tо" mixes Latin and Cyrillic letters that look alike (in the run's code)`} {
		if !strings.Contains(warn, want) {
			t.Errorf("look-alike warnings %q, want %s", warn, want)
		}
	}
	// The code's string that is the argument is warned of once.
	if got := lookAlikeLines(`{"to": "аlice42"}`, `await bank.transfer({ to: "аlice42" });`, ""); len(got) != 1 {
		t.Errorf("a word in the arguments and the code: %+v, want one warning", got)
	}
	if got := lookAlikeLines(`{"name": "Αλέξης", "city": "東京", "note": "iPhone用"}`, "return 1;", ""); len(got) != 0 {
		t.Errorf("words of one script, or of scripts that do not look alike, are warned of: %+v", got)
	}
}

func TestDialogConnectionText(t *testing.T) {
	for _, tc := range []struct {
		a    Approval
		want string
	}{
		{Approval{Connection: "work", DefaultConnection: true}, "work (default)"},
		{Approval{NeedsSecret: true}, "none yet: saving the secret creates default"},
		{Approval{NeedsSecret: true, SignIn: true}, "none yet: signing in creates default"},
		{Approval{NeedsSecret: true, OffersSignIn: true}, "none yet: saving the secret or signing in creates default"},
		{Approval{NeedsSecret: true, Connection: "personal"}, "personal"},
	} {
		if got := dialogConnectionText(tc.a); got != tc.want {
			t.Errorf("dialogConnectionText(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}

// TestDialogRunsWaitingCallsWithTheirArguments: the waiting calls of one
// run outside a plan are listed with their arguments too, the shown one
// marked.
func TestDialogRunsWaitingCallsWithTheirArguments(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(time.Second))
	h.add(a1, r1)
	h.add(a2, r2)
	c.step()
	d := c.dialog
	args := d.argsText()
	for _, want := range []string{"▶ #3 github.createIssue", `"repo": "acme/widgets"`, "  #4 slack.postMessage", `"channel": "#eng"`} {
		if !strings.Contains(args, want) {
			t.Errorf("the run's calls lack %q:\n%s", want, args)
		}
	}
	if !strings.HasPrefix(d.argsTitle.Text, "The run's waiting calls") {
		t.Errorf("title %q", d.argsTitle.Text)
	}
}

// TestDialogOffersSignIn: a REST API's call whose token its document's
// OAuth flow gives shows the secret field and a Sign in button; signing in
// signs the call's connection in.
func TestDialogOffersSignIn(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a := secretApproval("ap_1", t0)
	a.Source, a.Connection, a.SecretWhere, a.OffersSignIn = "tasks", "default", "header Authorization", true
	h.add(a, a.Preview)
	c.step()
	d := c.dialog
	if !d.signInBox.Visible() || !d.secretBox.Visible() || !strings.HasPrefix(d.signInLabel.Text, "Or sign in to tasks") {
		t.Fatalf("sign-in box %v (%q), secret box %v; want both", d.signInBox.Visible(), d.signInLabel.Text, d.secretBox.Visible())
	}
	tapSignInAndWait(d)
	c.step()
	if diff := cmp.Diff([]loginCall{{"tasks", "default"}}, h.loginCalls()); diff != "" {
		t.Errorf("logins (-want +got):\n%s", diff)
	}
	if d.signInBox.Visible() || !d.dismiss.Visible() {
		t.Errorf("after the sign-in: sign-in box %v, dismiss %v", d.signInBox.Visible(), d.dismiss.Visible())
	}
}

// tapSignInAndWait taps the dialog's sign-in button and returns once the
// sign-in it starts has ended.
func tapSignInAndWait(d *approvalDialog) {
	ended := make(chan struct{}, 1)
	orig := d.signIn
	d.signIn = func(source, conn string, showURL func(string), done func(error)) {
		orig(source, conn, showURL, func(err error) { done(err); ended <- struct{}{} })
	}
	test.Tap(d.signInButton)
	<-ended
}

// TestDialogPlanOfManyCalls: a plan of 500 calls is some 6,000 lines; the
// view's grid holds only a window of them, around the ones in view, and
// moves with the view.
func TestDialogPlanOfManyCalls(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	base := planApprovals(t0)[2]
	for i := range 500 {
		a := base
		a.ID, a.Seq = fmt.Sprintf("ap_plan%d", i+1), i+1
		h.add(a, a.Preview)
	}
	c.step()
	d := c.dialog
	d.win.Resize(fyne.NewSize(780, 760))
	lines := strings.Split(d.argsText(), "\n")
	if len(lines) < 5000 || !strings.Contains(d.argsText(), "#500 memory.createRelations") {
		t.Fatalf("the plan's view has %d lines, the last call: %v", len(lines), strings.Contains(d.argsText(), "#500 "))
	}
	if rows := len(d.args.grid.Rows); rows > gridWindow {
		t.Errorf("the grid holds %d rows of %d lines, more than its window of %d", rows, len(lines), gridWindow)
	}
	if !strings.Contains(d.args.grid.Text(), "▶ #1 memory.createRelations") {
		t.Errorf("the grid does not hold the current call:\n%s", d.args.grid.Text())
	}
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "#450 ") })
	d.args.scrollTo(at)
	if !strings.Contains(d.args.grid.Text(), "#450 memory.createRelations") || strings.Contains(d.args.grid.Text(), "#1 memory") {
		t.Errorf("scrolled to call 450, the grid holds lines %d to %d", d.args.first, d.args.first+len(d.args.grid.Rows))
	}
	if y := d.args.grid.Position().Y; y != float32(d.args.first)*d.args.cell.Height || y <= 0 {
		t.Errorf("the grid sits at %v, not at its first line %d", y, d.args.first)
	}
}
