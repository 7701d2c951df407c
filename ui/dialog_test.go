//go:build !headless

package ui

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"
)

// TestDialogKeyboardOrder: Tab runs from the least to the most lasting
// choice, Deny first and Always deny last.
func TestDialogKeyboardOrder(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	d := c.dialog
	cv := d.win.Canvas()
	cv.Focus(d.deny)
	var order []string
	for range 4 {
		f, ok := cv.Focused().(*decisionButton)
		if !ok {
			t.Fatalf("focus on %T after %v", cv.Focused(), order)
		}
		order = append(order, f.Text)
		cv.FocusNext()
	}
	if diff := cmp.Diff([]string{"Deny", "Allow once", "Always allow", "Always deny"}, order); diff != "" {
		t.Errorf("Tab order (-want +got):\n%s", diff)
	}
}

// TestDialogShowsCodeAndTool: the run's code with the call marked (and the
// run's other waiting call), the tool's description and annotations.
func TestDialogShowsCodeAndTool(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(time.Second))
	h.add(a1, r1)
	h.add(a2, r2)
	c.step()
	d := c.dialog
	code := d.codeText()
	if !strings.Contains(code, "▶   5      github.createIssue(") || !strings.Contains(code, "▷   6      slack.postMessage(") {
		t.Errorf("code view does not mark the calls:\n%s", code)
	}
	if strings.Contains(code, "▶   1") {
		t.Errorf("a line without the call is marked:\n%s", code)
	}
	if d.description.Text != a1.Description || d.annotations.Text != "open world (reaches systems outside)" {
		t.Errorf("description %q, annotations %q", d.description.Text, d.annotations.Text)
	}
	d.move(+1)
	if code := d.codeText(); !strings.Contains(code, "▶   6      slack.postMessage(") || !strings.Contains(code, "▷   5") {
		t.Errorf("after moving to the second call:\n%s", code)
	}
	if d.annotations.Text != "destructive (may delete or overwrite) · open world (reaches systems outside)" {
		t.Errorf("annotations %q", d.annotations.Text)
	}
}

// TestDialogAllowsARunTogether: the waiting calls of one run are named
// together and one button allows all of them once.
func TestDialogAllowsARunTogether(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(time.Second))
	a3, r3 := longApproval("ap_3", t0.Add(2*time.Second)) // another run
	for _, x := range []struct {
		a   Approval
		raw string
	}{{a1, r1}, {a2, r2}, {a3, r3}} {
		h.add(x.a, x.raw)
	}
	c.step()
	d := c.dialog
	if !d.groupBox.Visible() || d.group.Text != "This run waits on 2 calls: github.createIssue (#3), slack.postMessage (#4)." {
		t.Fatalf("group %q (visible %v)", d.group.Text, d.groupBox.Visible())
	}
	if d.allowRun.Text != "Allow these 2 calls once" || d.allowRun.Disabled() {
		t.Fatalf("allow-together button %q disabled=%v", d.allowRun.Text, d.allowRun.Disabled())
	}
	test.Tap(d.allowRun)
	c.step()
	if diff := cmp.Diff([]decisionCall{{"ap_1", AllowOnce}, {"ap_2", AllowOnce}}, h.decided()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if len(d.items) != 1 || d.items[0].a.ID != "ap_3" || d.groupBox.Visible() {
		t.Errorf("after allowing the run: %d items, group shown %v", len(d.items), d.groupBox.Visible())
	}
}

// TestDialogShowsWholeArguments: nothing of a long payload is folded away;
// the view is a monospace grid that scrolls.
func TestDialogShowsWholeArguments(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a, raw := longApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	d := c.dialog
	d.win.Resize(fyne.NewSize(780, 760))
	args := d.argsText()
	if strings.Contains(args, "more characters") || strings.Contains(args, "more items") {
		t.Error("the arguments are folded")
	}
	if n := strings.Count(args, `"name": "row"`); n != 60 {
		t.Errorf("%d of 60 rows shown", n)
	}
	if strings.Count(strings.ReplaceAll(args, "\n  ↪ ", ""), "Line of a long generated report") != 40 {
		t.Error("the long string is not whole")
	}
	if !strings.Contains(args, `"password": "[redacted]"`) {
		t.Error("the password is not masked")
	}
	for _, l := range d.argLines {
		if n := len([]rune(l.text)); n > argLineWidth+4 {
			t.Fatalf("a line of %d runes", n)
		}
	}
	if rows := len(d.args.grid.Rows); rows != len(d.argLines) || len(d.argLines) < 90 {
		t.Errorf("grid of %d rows for %d lines", rows, len(d.argLines))
	}
}

// TestDialogKeepsItsViewsWhileTheCallsStay: the dialog refreshes every
// second while it counts down; a call with a megabyte of arguments is cut
// into lines when it is shown, not at each refresh. It counts the bytes a
// refresh allocates.
func TestDialogKeepsItsViewsWhileTheCallsStay(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a, raw := sampleApproval("ap_1", t0)
	a.Preview = `{"content": "` + strings.Repeat("word ", (1<<20)/5) + `"}`
	h.add(a, raw)
	c.step()
	d := c.dialog
	lines := len(d.argLines)
	if lines < 1<<20/argLineWidth {
		t.Fatalf("%d lines for a megabyte of arguments", lines)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d.refresh()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2<<20 {
		t.Errorf("a refresh of the same call allocated %d MB", got>>20)
	}
	if len(d.argLines) != lines {
		t.Errorf("%d lines after the refresh, %d before", len(d.argLines), lines)
	}
	// Another call is cut anew.
	b, rawB := slackApproval("ap_2", t0.Add(time.Second))
	h.add(b, rawB)
	c.step()
	d.move(+1)
	if !strings.Contains(d.argsText(), "#eng") {
		t.Errorf("the second call's arguments are not shown:\n%.300s", d.argsText())
	}
}

// TestDialogMissingSecret: a call that waits for a connection's secret
// offers a field for it; the secret goes to the hub (the keychain), and no
// decision button is enabled.
func TestDialogMissingSecret(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a, raw := slackApproval("ap_1", t0)
	a.NeedsSecret, a.Source, a.Reason = true, "slack", "connection personal has no secret yet"
	h.add(a, raw)
	c.step()
	d := c.dialog
	if !d.secretBox.Visible() || !strings.Contains(d.status.Text, "waits for the secret") {
		t.Fatalf("secret box visible %v, status %q", d.secretBox.Visible(), d.status.Text)
	}
	for _, b := range d.decisionButtons() {
		if !b.Disabled() {
			t.Errorf("%q enabled for a missing secret", b.Text)
		}
	}
	test.Type(d.secretEntry, "xoxb-secret")
	test.Tap(d.secretSave)
	c.step()
	if diff := cmp.Diff([]secretCall{{"slack", "personal", "xoxb-secret"}}, h.secrets); diff != "" {
		t.Errorf("SetSecret calls (-want +got):\n%s", diff)
	}
	if !strings.Contains(d.status.Text, "Saved in the keychain") || d.secretEntry.Text != "" || !d.dismiss.Visible() {
		t.Errorf("after saving: status %q, entry %q, dismiss %v", d.status.Text, d.secretEntry.Text, d.dismiss.Visible())
	}
}

// TestDialogSecretFieldIsPerRequest: a value typed into the secret field for
// one connection's request is gone when the dialog shows another request,
// and does not come back when it returns to the first.
func TestDialogSecretFieldIsPerRequest(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a, raw := slackApproval("ap_1", t0)
	a.NeedsSecret, a.Source, a.Reason = true, "slack", "connection personal has no secret yet"
	h.add(a, raw)
	b, raw2 := slackApproval("ap_2", t0.Add(time.Second))
	b.RunID, b.Address, b.NeedsSecret, b.Source, b.Connection = "run_other", "github.createIssue", true, "github", "work"
	h.add(b, raw2)
	c.step()
	d := c.dialog
	if !d.secretBox.Visible() {
		t.Fatal("no secret field for a call that waits for a secret")
	}
	first := d.address.Text
	test.Type(d.secretEntry, "xoxb-typed-for-slack")
	test.Tap(d.next)
	if d.address.Text == first || d.secretEntry.Text != "" {
		t.Fatalf("after moving to %s the field holds %q, typed for %s", d.address.Text, d.secretEntry.Text, first)
	}
	test.Type(d.secretEntry, "ghp-typed-for-github")
	test.Tap(d.prev)
	if d.address.Text != first || d.secretEntry.Text != "" {
		t.Fatalf("back on %s the field holds %q", d.address.Text, d.secretEntry.Text)
	}
	if len(h.secrets) != 0 {
		t.Errorf("secrets handed to the hub without Save: %v", h.secrets)
	}
}

// TestDialogCodePaneHidesCredentials: a credential of a well-known shape in
// the run's code is hidden in the code pane, as in the arguments.
func TestDialogCodePaneHidesCredentials(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	token := "ghp_" + strings.Repeat("A1b2", 9)
	a, raw := slackApproval("ap_1", t0)
	a.Code = "const auth = \"Bearer " + token + "\";\nawait slack.postMessage({ channel: \"#eng\", text: \"" + token + "\" });"
	h.add(a, raw)
	c.step()
	code := c.dialog.codeText()
	if strings.Contains(code, token) || !strings.Contains(code, "[redacted]") || !strings.Contains(code, "slack.postMessage") {
		t.Errorf("the code pane shows:\n%s", code)
	}
}
