//go:build !headless

package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"capabilities.sh/capabilities/hub/secrets"
)

// newTestController wires a controller to a fake hub on the test driver. The
// controller's loop does not run: tests call step, so every hub call and
// every widget update happens on the test goroutine, in order.
func newTestController(t *testing.T, h *fakeHub, now time.Time) *controller {
	t.Helper()
	a := test.NewTempApp(t)
	c := newController(a, h, Options{Logf: t.Logf}, false)
	c.now = func() time.Time { return now }
	t.Cleanup(h.Subscribe(c.post))
	c.step()
	return c
}

func tapDecision(t *testing.T, c *controller, b *decisionButton) {
	t.Helper()
	if b.Disabled() {
		t.Fatalf("%q is disabled", b.Text)
	}
	test.Tap(b)
	c.step()
}

func TestDialogDecisions(t *testing.T) {
	tests := []struct {
		name  string
		press func(d *approvalDialog)
		want  Decision
	}{
		{"allow once", func(d *approvalDialog) { test.Tap(d.allowOnce) }, AllowOnce},
		{"always allow", func(d *approvalDialog) { test.Tap(d.allowAlways) }, AllowAlways},
		{"deny", func(d *approvalDialog) { test.Tap(d.deny) }, Deny},
		{"always deny", func(d *approvalDialog) { test.Tap(d.denyAlways) }, DenyAlways},
		{"escape", func(d *approvalDialog) {
			d.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}, Deny},
		{"escape with a button focused", func(d *approvalDialog) {
			d.win.Canvas().Focus(d.allowOnce)
			d.win.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}, Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHub()
			c := newTestController(t, h, t0)
			d := c.dialog
			if d.shown {
				t.Fatal("dialog shown with nothing pending")
			}
			a, raw := sampleApproval("ap_1", t0)
			h.add(a, raw)
			c.step()
			if !d.shown {
				t.Fatal("dialog not shown after approval_added")
			}
			if d.address.Text != "github.createIssue" || d.count.Text != "1 of 1" {
				t.Errorf("shows %q, %q", d.address.Text, d.count.Text)
			}
			tt.press(d)
			c.step()
			if diff := cmp.Diff([]decisionCall{{"ap_1", tt.want}}, h.decided()); diff != "" {
				t.Errorf("Decide calls (-want +got):\n%s", diff)
			}
			if d.shown || len(d.items) != 0 {
				t.Errorf("dialog still shown (%v) with %d items after the decision", d.shown, len(d.items))
			}
		})
	}
}

// TestDialogKeys: Space and Tab decide nothing; Enter allows the shown
// call once; Enter on a focused button presses that button, so Enter on
// Deny denies.
func TestDialogKeys(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := longApproval("ap_2", t0.Add(time.Second))
	h.add(a1, r1)
	h.add(a2, r2)
	c.step()
	cv := c.dialog.win.Canvas()
	for _, k := range []fyne.KeyName{fyne.KeySpace, fyne.KeyTab} {
		cv.OnTypedKey()(&fyne.KeyEvent{Name: k})
	}
	c.step()
	if got := h.decided(); len(got) != 0 {
		t.Errorf("Space or Tab decided: %v", got)
	}
	cv.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
	c.step()
	cv.Focus(c.dialog.deny)
	cv.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnter})
	c.step()
	if diff := cmp.Diff([]decisionCall{{"ap_1", AllowOnce}, {"ap_2", Deny}}, h.decided()); diff != "" {
		t.Errorf("decisions by Enter (-want +got):\n%s", diff)
	}
}

func TestDialogQueue(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0.Add(time.Minute))
	d := c.dialog
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(10*time.Second))
	a3, r3 := longApproval("ap_3", t0.Add(20*time.Second))
	// Arrive out of order: the queue is oldest first.
	h.add(a2, r2)
	c.step()
	h.add(a3, r3)
	h.add(a1, r1)
	c.step()
	if diff := cmp.Diff([]string{"ap_1", "ap_2", "ap_3"}, ids(d.items)); diff != "" {
		t.Fatalf("queue (-want +got):\n%s", diff)
	}
	// The first arrival was shown first and stays shown.
	if d.count.Text != "2 of 3" || d.address.Text != "slack.postMessage" {
		t.Errorf("shows %q %q, want the first arrival at 2 of 3", d.count.Text, d.address.Text)
	}
	if d.prev.Disabled() || d.next.Disabled() {
		t.Error("prev/next disabled in the middle of the queue")
	}
	test.Tap(d.prev)
	if d.count.Text != "1 of 3" || !d.prev.Disabled() {
		t.Errorf("after prev: %q, prev disabled %v", d.count.Text, d.prev.Disabled())
	}

	// Decide the first: the next one is shown.
	tapDecision(t, c, d.allowOnce)
	if d.count.Text != "1 of 2" || d.address.Text != "slack.postMessage" {
		t.Errorf("after deciding: %q %q", d.count.Text, d.address.Text)
	}

	// Decided elsewhere (CLI): leaves at once, the dialog stays for the rest.
	h.decideElsewhere("ap_2", Deny)
	c.step()
	if d.count.Text != "1 of 1" || d.address.Text != "filesystem.write_file" || !d.shown {
		t.Errorf("after a decision elsewhere: %q %q shown=%v", d.count.Text, d.address.Text, d.shown)
	}
	// The last one decided elsewhere closes the window.
	h.decideElsewhere("ap_3", AllowOnce)
	c.step()
	if d.shown {
		t.Error("dialog still shown with an empty queue")
	}
	if diff := cmp.Diff([]decisionCall{{"ap_1", AllowOnce}}, h.decided()); diff != "" {
		t.Errorf("Decide calls (-want +got):\n%s", diff)
	}
}

func TestDialogExpired(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0.Add(time.Minute))
	d := c.dialog
	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(time.Second))
	h.add(a1, r1)
	h.add(a2, r2)
	c.step()
	h.expire("ap_1")
	c.step()
	if d.count.Text != "1 of 2" || d.address.Text != "github.createIssue" {
		t.Fatalf("expired call not kept in view: %q %q", d.count.Text, d.address.Text)
	}
	for _, b := range d.decisionButtons() {
		if !b.Disabled() {
			t.Errorf("%q enabled on an expired call", b.Text)
		}
	}
	if !d.status.Visible() || !strings.Contains(d.status.Text, "expired") {
		t.Errorf("status %q (visible %v) does not say expired", d.status.Text, d.status.Visible())
	}
	d.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	c.step()
	if got := h.decided(); len(got) != 0 {
		t.Errorf("Escape decided an expired call: %v", got)
	}
	if !d.dismiss.Visible() {
		t.Fatal("no Dismiss button on an expired call")
	}
	test.Tap(d.dismiss)
	if d.count.Text != "1 of 1" || d.address.Text != "slack.postMessage" {
		t.Errorf("after dismiss: %q %q", d.count.Text, d.address.Text)
	}
	if d.allowOnce.Disabled() || d.dismiss.Visible() {
		t.Error("live call shown with disabled buttons or a Dismiss button")
	}

	// The deadline passing without an event disables the buttons too.
	c.now = func() time.Time { return a2.Expires.Add(time.Second) }
	d.tick()
	if !d.allowOnce.Disabled() || !strings.Contains(d.deadline.Text, "expired") {
		t.Errorf("after the deadline: allow disabled %v, deadline %q", d.allowOnce.Disabled(), d.deadline.Text)
	}
}

func TestDialogDecideRefused(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0)
	d := c.dialog
	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	h.decideErr = errors.New("approval ap_1 was already decided")
	test.Tap(d.allowOnce)
	if !d.allowOnce.Disabled() {
		t.Error("buttons stay enabled while the decision is on its way")
	}
	test.Tap(d.deny) // ignored: one decision at a time
	c.step()
	if got := len(h.decided()); got != 1 {
		t.Errorf("%d Decide calls, want 1", got)
	}
	if !strings.Contains(d.status.Text, "already decided") || d.allowOnce.Disabled() {
		t.Errorf("after a refused decision: status %q, allow disabled %v", d.status.Text, d.allowOnce.Disabled())
	}
}

// texts collects every string the object shows: label, entry and rich text
// contents, and every canvas.Text its renderers draw.
func texts(o fyne.CanvasObject) []string {
	var out []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			out = append(out, w.Text)
		case *widget.Entry:
			out = append(out, w.Text, w.PlaceHolder)
		case *widget.RichText:
			out = append(out, w.String())
		case *widget.Button:
			out = append(out, w.Text)
		case *canvas.Text:
			out = append(out, w.Text)
		case *widget.TextGrid:
			out = append(out, w.Text())
			return
		}
		switch w := o.(type) {
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
	return out
}

// TestDialogNeverShowsSecrets: arguments that hold a secret reach the
// dialog the way a real approval does, previewed by the hub's own
// redactor from the raw arguments, and the way a hub that forgot to redact
// would send them, raw; neither shows the secret.
func TestDialogNeverShowsSecrets(t *testing.T) {
	a1, r1 := sampleApproval("ap_1", t0)                  // under "token"
	a2, r2 := longApproval("ap_2", t0.Add(time.Second))   // under "password", deep in a long preview
	a3, _ := slackApproval("ap_3", t0.Add(2*time.Second)) // under "api_key"
	a4, _ := slackApproval("ap_4", t0.Add(3*time.Second)) // in free text: only the hub's shapes catch it
	r3 := `{"channel":"#eng","api_key":"` + testSecret + `"}`
	r4 := `{"channel":"#eng","text":"deploy with ` + testSecret + ` please"}`
	fixtures := []struct {
		a     Approval
		raw   string
		byHub bool // only the hub's redaction can find it
	}{{a1, r1, false}, {a2, r2, false}, {a3, r3, false}, {a4, r4, true}}
	for _, mode := range []string{"redacted by the hub", "sent raw"} {
		t.Run(mode, func(t *testing.T) {
			h := newFakeHub()
			c := newTestController(t, h, t0)
			d := c.dialog
			n := 0
			for _, f := range fixtures {
				if !strings.Contains(f.raw, testSecret) {
					t.Fatalf("the raw arguments of %s lack the secret; the test proves nothing", f.a.ID)
				}
				a := f.a
				if mode == "sent raw" {
					if f.byHub {
						continue
					}
					a.Preview = f.raw
				} else {
					a.Preview = secrets.Redactor{}.Preview(json.RawMessage(f.raw))
				}
				h.add(a, f.raw)
				n++
			}
			c.step()
			d.win.Resize(fyne.NewSize(720, 600))
			if len(d.items) != n {
				t.Fatalf("the dialog holds %d approvals, want %d", len(d.items), n)
			}
			for i := range d.items {
				d.cur = i
				d.refresh()
				// What the window draws, and every line of its virtualised
				// views, drawn or not.
				joined := strings.Join(texts(d.win.Content()), "\n") + "\n" + d.argsText() + "\n" + d.codeText()
				if strings.Contains(joined, testSecret) || strings.Contains(joined, testSecret[len(testSecret)/2:]) {
					t.Errorf("%s: the dialog shows the secret", d.items[i].a.ID)
				}
				if !strings.Contains(joined, d.items[i].a.Address) || !strings.Contains(joined, "[redacted]") {
					t.Errorf("%s: the walk missed the address or the preview:\n%s", d.items[i].a.ID, joined)
				}
			}
		})
	}
}

func TestDialogShowsEverything(t *testing.T) {
	h := newFakeHub()
	c := newTestController(t, h, t0.Add(30*time.Second))
	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	joined := strings.Join(texts(c.dialog.win.Content()), "\n")
	for _, want := range []string{
		"github.createIssue", "Create an issue in a GitHub repository", "work (default)",
		"policy ask", "claude-code 1.2, run run_7f3a, call #3", "in 4m30s",
		`"repo": "acme/widgets"`, "Allow once", "Always allow", "Deny", "Always deny", "1 of 1",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("dialog does not show %q", want)
		}
	}
	if got := c.dialog.args.grid.Text(); !strings.Contains(got, `"repo": "acme/widgets"`) {
		t.Errorf("the arguments are not in the monospace grid: %q", got)
	}
}
