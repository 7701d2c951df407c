//go:build !headless

package ui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver"

	"capabilities.sh/capabilities/internal/testwait"
)

// shotsChildEnv makes the test binary render the screenshots instead of
// running tests (see TestMain). The real GL driver needs the process's main
// goroutine, and the test driver the other tests use must not share a
// process with it, so TestScreenshots runs the binary again as a child.
const shotsChildEnv = "CAPABILITIES_UI_SCREENSHOT_CHILD"

// The screenshots, in the order they are taken. make screenshots writes
// them into docs/ (the tray menu's is TestTrayMenuScreenshot's).
var shots = []string{
	"approval-dialog.png",  // one pending call, with the run's code
	"approval-queue.png",   // a queue of three, two of one run
	"approval-long.png",    // the third: a long redacted payload
	"approval-expired.png", // the same call after it expired
	"window-approvals.png",
	"window-runs.png",
	"window-sources.png",
	"window-sources-add.png", // scrolled down: a last error and stderr tail, a disabled source and the Add form
	"window-policy.png",
	"window-clients.png",
	"first-run.png",
	"approval-plan.png",        // a run's plan of three calls, two using the first one's result
	"approval-reason.png",      // a call asked for a long reason, wrapped
	"approval-changed.png",     // an OpenAPI call whose definition changed: method, URL and the diff
	"approval-secret.png",      // a call waiting for the API key of a source with no connection yet
	"approval-token.png",       // a REST API's call waiting for a token, or a sign-in with its document's flow
	"approval-signin.png",      // a call waiting for an OAuth sign-in, the page's address to copy
	"window-skills.png",        // the skills, a source's changed one, a skipped folder and the folders read
	"window-connections.png",   // the Sources tab's connection form, asking once more before it removes one
	"window-changes.png",       // a changed tool definition: what changed, line by line, and Accept
	"window-changes-skill.png", // a source's changed skill: its files' digests and its SKILL.md's text, line by line
}

// childMain runs the app in a child process for a platform's test (set by
// that test's file); ok reports that this process is such a child.
var childMain func() (code int, ok bool)

func TestMain(m *testing.M) {
	if dir := os.Getenv(shotsChildEnv); dir != "" {
		os.Exit(renderScreenshots(dir))
	}
	if childMain != nil {
		if code, ok := childMain(); ok {
			os.Exit(code)
		}
	}
	os.Exit(m.Run())
}

// TestScreenshots renders the real windows with the GL driver and checks the
// PNGs. It needs a display (xvfb-run -a go test ./ui/). The PNGs go to
// $CAPABILITIES_SCREENSHOTS, or to a temporary folder that the test logs.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("CAPABILITIES_SCREENSHOTS")
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		if dir != "" {
			t.Fatal("CAPABILITIES_SCREENSHOTS is set but there is no display: run under xvfb-run -a")
		}
		t.Skip("no display: run under xvfb-run -a to render the real windows")
	}
	if dir == "" {
		dir = t.TempDir()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range shots {
		os.Remove(filepath.Join(dir, name))
	}
	// A child that hangs is stopped with what it wrote (the shot it was
	// at), well before the package's own time limit.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), shotsChildEnv+"="+dir, "LANG=en_US.UTF-8")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rendering screenshots: %v\n%s", err, out)
	}
	t.Logf("screenshots in %s", dir)

	var prev []byte
	for _, name := range shots {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r := img.Bounds(); r.Dx() < 500 || r.Dy() < 400 {
			t.Errorf("%s: %v, smaller than the window", name, r)
		}
		if n := colours(img); n < 16 {
			t.Errorf("%s: %d colours, the window did not render", name, n)
		}
		if bytes.Equal(b, prev) {
			t.Errorf("%s: same image as the one before", name)
		}
		prev = b
	}
}

func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			r, g, b, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, b, a}] = true
		}
	}
	return len(seen)
}

// renderScreenshots runs the real app on the main goroutine and writes the
// screenshots to dir. It returns the process exit code.
func renderScreenshots(dir string) int {
	a := app.NewWithID(AppID)
	a.SetIcon(appIcon)
	h := newFakeHub()
	h.populate()
	c := newController(a, h, Options{Logf: log.Printf, FirstRun: func() (FirstRun, error) { return FirstRun{}, nil },
		Connect: func(client, profile string) (string, error) { return "", nil },
		Connected: func() []ConnectedClient {
			return []ConnectedClient{
				{Name: "claude-code", Version: "2.1.3", Mode: "code", Since: t0.Add(-2 * time.Hour)},
				{Name: "Cursor", Version: "1.7.28", Profile: "work", Mode: "code", Since: t0.Add(-25 * time.Minute)},
				{Name: "Visual Studio Code", Version: "1.106.0", Profile: "personal", Mode: "code", Since: t0.Add(-3 * time.Minute)},
			}
		}}, false)
	c.now = func() time.Time { return t0.Add(40 * time.Second) }
	unsubscribe := h.Subscribe(c.post)
	defer unsubscribe()

	var failed atomic.Bool
	go func() {
		code := 0
		if err := takeShots(c, h, dir); err != nil {
			log.Print(err)
			failed.Store(true)
			code = 1
		}
		// Every shot is written: the child exits here rather than through
		// the app's Quit, whose shutdown is not under test and, in Fyne
		// 2.7.1, races (its lifecycle queue sends to the main thread's
		// queue as Quit closes it: -race failed the child with exit 66
		// after the last shot) or, once on a busy machine, did not come
		// back for five minutes.
		os.Exit(code)
	}()
	a.Run()
	if failed.Load() {
		return 1
	}
	return 0
}

// takeShots drives the UI through the states of shots; it runs on its own goroutine.
func takeShots(c *controller, h *fakeHub, dir string) error {
	step := func() {
		c.step()
		fyne.DoAndWait(func() {}) // the update queued by step has run
	}
	on := func(f func()) { fyne.DoAndWait(f) }
	d, m := c.dialog, c.main

	a1, r1 := sampleApproval("ap_1", t0)
	a2, r2 := slackApproval("ap_2", t0.Add(10*time.Second))
	a3, r3 := longApproval("ap_3", t0.Add(20*time.Second))

	step()
	h.add(a1, r1)
	step()
	if err := capture(d.win, filepath.Join(dir, shots[0])); err != nil {
		return err
	}
	h.add(a2, r2)
	h.add(a3, r3)
	step()
	if err := capture(d.win, filepath.Join(dir, shots[1])); err != nil {
		return err
	}
	on(func() { d.move(+2) })
	if err := capture(d.win, filepath.Join(dir, shots[2])); err != nil {
		return err
	}
	h.expire("ap_3")
	step()
	if err := capture(d.win, filepath.Join(dir, shots[3])); err != nil {
		return err
	}

	on(func() {
		d.hide()
		m.show(tabApprovals)
	})
	if err := capture(m.win, filepath.Join(dir, shots[4])); err != nil {
		return err
	}
	on(func() { m.showRun("run_7f3a") })
	step() // its calls are read
	if err := capture(m.win, filepath.Join(dir, shots[5])); err != nil {
		return err
	}
	// The Sources tab with an open import offer and an OAuth source, one
	// connection signed in and one that needs it.
	h.mu.Lock()
	h.status.ImportOffer = 3
	h.status.Sources = append(h.status.Sources, SourceStatus{Name: "linear", State: SourceIdle, Connections: []ConnectionStatus{{"work", true, true}, {"personal", false, false}}, SignIns: []SignInStatus{
		{Connection: "work", SignedIn: true, Summary: "signed in until 2026-03-14 13:00 UTC, scopes read write"},
		{Connection: "personal", Summary: "needs sign-in: the refresh token was revoked"},
	}})
	h.mu.Unlock()
	h.emit(Event{Kind: EventSource})
	step()
	on(func() {
		m.showTools["github"] = true
		m.renderSources()
		m.show(tabSources)
	})
	if err := capture(m.win, filepath.Join(dir, shots[6])); err != nil {
		return err
	}
	h.mu.Lock()
	h.status.Sources[3].Disabled, h.status.Sources[3].State = true, SourceDisabled // memory
	h.mu.Unlock()
	h.emit(Event{Kind: EventSource})
	step()
	on(func() {
		m.showTools["github"] = false
		m.renderSources()
		m.addKind.SetSelected(addOpenAPI)
		m.addName.SetText("petstore")
		m.addTarget.SetText("https://petstore3.swagger.io/api/v3/openapi.json")
		// From slack, down to the Add form.
		m.sourcesScroll.ScrollToOffset(fyne.NewPos(0, m.sourcesBox.Position().Y+m.sourcesBox.Objects[2].Position().Y))
	})
	if err := capture(m.win, filepath.Join(dir, shots[7])); err != nil {
		return err
	}
	on(func() { m.show(tabPolicy) })
	if err := capture(m.win, filepath.Join(dir, shots[8])); err != nil {
		return err
	}
	on(func() {
		m.profilePick.SetSelected("work")
		m.show(tabClients)
	})
	if err := capture(m.win, filepath.Join(dir, shots[9])); err != nil {
		return err
	}
	var fr *firstRunWindow
	on(func() {
		m.win.Hide()
		fr = newFirstRunWindow(fyne.CurrentApp(), FirstRun{
			Candidates: []ImportCandidate{
				{Name: "github", Clients: []string{"claude-code", "cursor"}, Secrets: []string{"env.GITHUB_TOKEN"}},
				{Name: "filesystem", Clients: []string{"claude-desktop"}},
				{Name: "slack", Clients: []string{"vscode"}, Secrets: []string{"env.SLACK_BOT_TOKEN"}},
			},
			Import: func(ImportSelection) (string, error) { return "", nil },
		})
		fr.win.Show()
	})
	if err := capture(fr.win, filepath.Join(dir, shots[10])); err != nil {
		return err
	}
	on(func() { fr.win.Hide() })
	for _, id := range []string{"ap_1", "ap_2", "ap_3"} {
		h.decideElsewhere(id, AllowOnce)
	}
	step()
	for _, p := range planApprovals(t0.Add(time.Minute)) {
		h.add(p, p.Preview)
	}
	step()
	on(func() { // the call that uses the first one's result
		for i, it := range d.items {
			if it.a.ID == "ap_plan2" {
				d.cur = i
			}
		}
		d.refresh()
	})
	if err := capture(d.win, filepath.Join(dir, shots[11])); err != nil {
		return err
	}
	for _, p := range planApprovals(t0.Add(time.Minute)) {
		h.decideElsewhere(p.ID, AllowOnce)
	}
	// One call at a time, each decided elsewhere before the next comes.
	one := func(a Approval, shot string) error {
		h.add(a, a.Preview)
		step()
		return capture(d.win, filepath.Join(dir, shot))
	}
	reason := longReasonApproval("ap_reason", t0.Add(2*time.Minute))
	if err := one(reason, shots[12]); err != nil {
		return err
	}
	h.decideElsewhere(reason.ID, AllowOnce)
	rest := restApproval("ap_rest", t0.Add(3*time.Minute))
	if err := one(rest, shots[13]); err != nil {
		return err
	}
	h.decideElsewhere(rest.ID, AllowOnce)
	secret := secretApproval("ap_secret", t0.Add(4*time.Minute))
	if err := one(secret, shots[14]); err != nil {
		return err
	}
	h.decideElsewhere(secret.ID, AllowOnce)
	token := tokenApproval("ap_token", t0.Add(4*time.Minute+30*time.Second))
	if err := one(token, shots[15]); err != nil {
		return err
	}
	h.decideElsewhere(token.ID, AllowOnce)
	gate := make(chan struct{})
	defer close(gate)
	h.mu.Lock()
	h.loginGo, h.loginURL = gate, "http://127.0.0.1:53682/start/5Jw0cTqX2LmZ8vHn"
	h.mu.Unlock()
	signIn := signInApproval("ap_signin", t0.Add(5*time.Minute))
	h.add(signIn, signIn.Preview)
	step()
	on(d.startSignIn)
	testwait.Until(10*time.Second, func() bool {
		var shown bool
		on(func() { shown = d.signInURL.Visible() })
		return shown
	})
	if err := capture(d.win, filepath.Join(dir, shots[16])); err != nil {
		return err
	}
	on(func() { m.show(tabSkills) })
	if err := capture(m.win, filepath.Join(dir, shots[17])); err != nil {
		return err
	}
	on(func() {
		m.show(tabSources)
		m.secretSource.SetSelected("github")
		m.secretConn.SetText("personal")
	})
	step() // what the secret fills
	on(func() {
		m.removeConnection() // the first tap asks
		m.sourcesScroll.ScrollToBottom()
	})
	if err := capture(m.win, filepath.Join(dir, shots[18])); err != nil {
		return err
	}
	step() // the changed definitions are read
	on(func() {
		m.sourcesScroll.ScrollToOffset(fyne.NewPos(0, m.changes.box.Position().Y-40))
	})
	if err := capture(m.win, filepath.Join(dir, shots[19])); err != nil {
		return err
	}
	// As the Skills tab's Review… does.
	on(func() { m.showChange("skill:docs.billing/refunds") })
	step() // its definitions are read
	on(func() {
		m.sourcesScroll.ScrollToOffset(fyne.NewPos(0, m.changes.box.Position().Y-40))
	})
	return capture(m.win, filepath.Join(dir, shots[20]))
}

// capture writes the window's canvas to path once two frames in a row are
// the same (the window has laid out and painted), or after a few seconds.
//
// The pixels come from the X server (ImageMagick's import on the window's
// X11 id): Canvas.Capture reads the GL front buffer, which Mesa's software
// renderer under Xvfb reads back empty, and reading it while the main
// goroutine paints can crash Mesa.
func capture(w fyne.Window, path string) error {
	var last, b []byte
	var err error
	// Every shot shows a new state: a frame equal to the previous shot was
	// painted before the change, so capture waits for the next.
	testwait.Until(15*time.Second, func() bool {
		prev := last
		if b, err = grab(w); err != nil {
			return true
		}
		last = b
		return prev != nil && bytes.Equal(b, prev) && !bytes.Equal(b, previousShot)
	})
	if err != nil {
		return fmt.Errorf("capturing %s: %w", filepath.Base(path), err)
	}
	previousShot = b
	log.Printf("captured %s", filepath.Base(path))
	return os.WriteFile(path, b, 0o644)
}

// previousShot is the last PNG capture wrote.
var previousShot []byte

// grab returns one PNG of the window.
func grab(w fyne.Window) ([]byte, error) {
	var xid uintptr
	if nw, ok := w.(driver.NativeWindow); ok {
		nw.RunNative(func(ctx any) {
			if x, ok := ctx.(driver.X11WindowContext); ok {
				xid = x.WindowHandle
			}
		})
	}
	if xid == 0 {
		return nil, fmt.Errorf("the canvas captured empty and the window has no X11 id")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "import", "-window", fmt.Sprintf("0x%x", xid), "png:-").Output()
	if err != nil {
		return nil, fmt.Errorf("the canvas captured empty; import -window 0x%x: %w", xid, err)
	}
	return out, nil
}
