//go:build !headless && linux

package ui

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// trayChildEnv makes the test binary run the real app (Run, the GL driver,
// Fyne's systray) on a fake hub instead of running tests; see TestMain.
const trayChildEnv = "CAPABILITIES_UI_TRAY_CHILD"

func init() {
	childMain = func() (int, bool) {
		if os.Getenv(trayChildEnv) == "" {
			return 0, false
		}
		return runTrayChild(), true
	}
}

// runTrayChild is the app TestRealTray drives. A line "add" on stdin adds a
// waiting call to the hub.
func runTrayChild() int {
	h := newFakeHub()
	h.populate()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			switch sc.Text() {
			case "add":
				a, raw := sampleApproval("ap_1", time.Now())
				a.Expires = time.Now().Add(time.Hour)
				h.add(a, raw)
			case "stop": // as hub stop does
				cancel()
			}
		}
	}()
	if err := Run(ctx, h, Options{Logf: log.Printf}); err != nil {
		log.Print(err)
		return 1
	}
	return 0
}

// TestRealTray runs the app with the real Fyne systray against the desktop's
// StatusNotifierWatcher (xfce4-panel's, started by scripts/with-session.sh or
// here) and a notification server this test owns on the session bus. The
// icon must register with the watcher, its menu (read over D-Bus as the
// panel reads it) must start with the status line, its tooltip must say the
// same, a call that starts waiting must reach the notification server, and
// Quit from the menu, after the approval dialog came up, must end the
// process with status 0.
func TestRealTray(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under scripts/with-session.sh")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Skipf("no session bus (run under scripts/with-session.sh): %v", err)
	}
	defer conn.Close()
	ensureTrayHost(t, conn)
	notes := ownNotifications(t)

	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.kde.StatusNotifierWatcher"), dbus.WithMatchMember("StatusNotifierItemRegistered")); err != nil {
		t.Fatal(err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("com.canonical.dbusmenu"), dbus.WithMatchMember("LayoutUpdated")); err != nil {
		t.Fatal(err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged")); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), trayChildEnv+"=1", "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("app output:\n%s", out.String())
		}
	}()

	deadline := time.After(60 * time.Second)
	wait := func(what string, done func() bool) {
		t.Helper()
		for !done() {
			select {
			case <-sigs:
			case err := <-exited:
				t.Fatalf("the app exited (%v) while waiting for %s", err, what)
			case <-deadline:
				t.Fatalf("no %s within 60s", what)
			}
		}
	}

	// The icon registers with the watcher.
	var item string // "busname/path" as the watcher lists it
	wait("tray item of the app registered with the StatusNotifierWatcher", func() bool {
		item = registeredItemOf(t, conn, uint32(cmd.Process.Pid))
		return item != ""
	})
	busName, objPath, _ := strings.Cut(item, "/")
	if objPath == "" {
		busName, objPath = item, "StatusNotifierItem"
	}
	obj := conn.Object(busName, dbus.ObjectPath("/"+objPath))
	var menuPath dbus.ObjectPath
	if err := obj.StoreProperty("org.kde.StatusNotifierItem.Menu", &menuPath); err != nil {
		t.Fatalf("reading the item's Menu: %v", err)
	}
	menu := conn.Object(busName, menuPath)

	// Its menu starts with the status line, once the hub's state loaded.
	const status = "Running · 4 sources · 52 tools · 1 down"
	var items []menuLabel
	wait("status line "+status, func() bool {
		items = menuLayout(t, menu)
		return len(items) > 0 && items[0].label == status && items[len(items)-1].label == "Quit"
	})
	labels := make([]string, len(items))
	for i, it := range items {
		labels[i] = it.label
	}
	for _, want := range []string{"Open window…", "Connect a client…", "Open logs", "Pause hub", "Quit"} {
		if !contains(labels, want) {
			t.Errorf("tray menu %q has no %q", labels, want)
		}
	}
	var tip struct {
		Icon   string
		Pixmap []struct {
			W, H int32
			Data []byte
		}
		Title, Text string
	}
	wait("tooltip "+status, func() bool {
		if err := obj.StoreProperty("org.kde.StatusNotifierItem.ToolTip", &tip); err != nil {
			t.Fatalf("reading the tooltip: %v", err)
		}
		return tip.Title == "capabilities: "+status
	})

	// A call that starts waiting: a notification, and the menu says so.
	if _, err := fmt.Fprintln(stdin, "add"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		if n.summary != "A tool call waits for you" || !strings.Contains(n.body, "github.createIssue") || n.app != AppID {
			t.Errorf("notification %+v", n)
		}
	case err := <-exited:
		t.Fatalf("the app exited (%v) before notifying", err)
	case <-deadline:
		t.Fatal("no notification reached the notification server within 60s")
	}
	wait("menu item for the waiting call", func() bool {
		items = menuLayout(t, menu)
		return len(items) > 1 && items[0].label == status+" · 1 waiting" && items[1].label == "1 pending approval…" && items[len(items)-1].label == "Quit"
	})

	// Quit from the menu, as the panel sends it: the process ends with 0.
	quit := -1
	for _, it := range items {
		if it.label == "Quit" {
			quit = int(it.id)
		}
	}
	if quit < 0 {
		t.Fatalf("no Quit in %v", items)
	}
	if err := menu.Call("com.canonical.dbusmenu.Event", 0, int32(quit), "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("clicking Quit: %v", err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after Quit the app ended with %v", err)
		}
		if s := out.String(); strings.Contains(s, "panic") || strings.Contains(s, "SIGSEGV") {
			t.Fatalf("the app crashed on Quit:\n%s", s)
		}
	case <-deadline:
		t.Fatal("the app did not end within 60s of Quit")
	}
}

// TestNoTrayHost: on a session bus without a StatusNotifierWatcher the app
// runs without an icon and says once how to open its window; stopping it
// (as hub stop does) after its dialog came up ends it with status 0.
func TestNoTrayHost(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under scripts/with-session.sh")
	}
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon")
	}
	// A session bus of its own, with nothing on it.
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	addrOut, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	addr, err := bufio.NewReader(addrOut).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), trayChildEnv+"=1", "DBUS_SESSION_BUS_ADDRESS="+strings.TrimSpace(addr),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	out := &hubtest.LogBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	const hint = "open its window with 'capabilities hub open'"
	var exit error
	gone := false
	if !testwait.Until(60*time.Second, func() bool {
		if strings.Contains(out.String(), hint) {
			return true
		}
		select {
		case exit = <-exited:
			gone = true
			return true
		default:
			return false
		}
	}) {
		cmd.Process.Kill()
		t.Fatalf("no word on how to open the window within 60s:\n%s", out)
	}
	if gone {
		t.Fatalf("the app exited (%v):\n%s", exit, out)
	}
	fmt.Fprintln(stdin, "add")
	fmt.Fprintln(stdin, "stop")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("stopped, the app ended with %v:\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the app did not stop within 60s")
	}
	if n := strings.Count(out.String(), hint); n != 1 {
		t.Errorf("said %d times how to open the window:\n%s", n, out)
	}
}

// ensureTrayHost makes sure a StatusNotifierWatcher owns its name on the
// session bus, starting xfce4-panel (with throwaway configuration) when none
// does.
func ensureTrayHost(t *testing.T, conn *dbus.Conn) {
	t.Helper()
	const watcher = "org.kde.StatusNotifierWatcher"
	if hasOwner(t, conn, watcher) {
		return
	}
	panel, err := exec.LookPath("xfce4-panel")
	if err != nil {
		t.Skip("no tray host: neither a StatusNotifierWatcher on the session bus nor xfce4-panel")
	}
	owners := make(chan *dbus.Signal, 8)
	conn.Signal(owners)
	defer conn.RemoveSignal(owners)
	if err := conn.AddMatchSignal(dbus.WithMatchSender("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, watcher)); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(panel, "--disable-wm-check")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.After(60 * time.Second)
	for !hasOwner(t, conn, watcher) {
		select {
		case <-owners:
		case <-deadline:
			t.Fatal("xfce4-panel did not own org.kde.StatusNotifierWatcher within 60s")
		}
	}
}

func hasOwner(t *testing.T, conn *dbus.Conn, name string) bool {
	t.Helper()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
		t.Fatal(err)
	}
	return has
}

// registeredItemOf returns the watcher's entry for the item of process pid,
// or "".
func registeredItemOf(t *testing.T, conn *dbus.Conn, pid uint32) string {
	t.Helper()
	var items []string
	w := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")
	if err := w.StoreProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems", &items); err != nil {
		t.Fatalf("reading RegisteredStatusNotifierItems: %v", err)
	}
	for _, it := range items {
		name, _, _ := strings.Cut(it, "/")
		var owner uint32
		if err := conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&owner); err == nil && owner == pid {
			return it
		}
	}
	return ""
}

type menuLabel struct {
	id    int32
	label string
}

// menuLayout reads the top level of a dbusmenu, as a tray host does.
func menuLayout(t *testing.T, menu dbus.BusObject) []menuLabel {
	t.Helper()
	var revision uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(1), []string{}).Store(&revision, &layout); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	var out []menuLabel
	for _, c := range layout.Children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) < 2 {
			t.Fatalf("menu item %v: not (id, props, children)", c)
		}
		id, _ := fields[0].(int32)
		props, _ := fields[1].(map[string]dbus.Variant)
		if typ, ok := props["type"]; ok && typ.Value() == "separator" {
			continue
		}
		if vis, ok := props["visible"]; ok && vis.Value() == false {
			continue
		}
		label, _ := props["label"].Value().(string)
		out = append(out, menuLabel{id, label})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type notification struct{ app, summary, body string }

// notifyServer is org.freedesktop.Notifications, as much as a sender needs.
type notifyServer struct{ got chan notification }

func (n *notifyServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.got <- notification{app, summary, body}
	return 1, nil
}

func (n *notifyServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notifyServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "capabilities-test", "capabilities", "1", "1.2", nil
}

func (n *notifyServer) CloseNotification(id uint32) *dbus.Error { return nil }

// ownNotifications serves org.freedesktop.Notifications on the session bus
// for the test and returns the notifications it receives.
func ownNotifications(t *testing.T) <-chan notification {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	srv := &notifyServer{got: make(chan notification, 16)}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagReplaceExisting|dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: reply %v, %v", reply, err)
	}
	return srv.got
}

// TestTrayMenuScreenshot opens the tray menu as a person does, with a click
// on the icon in xfce4-panel, and writes tray-menu.png to
// $CAPABILITIES_SCREENSHOTS (make screenshots). A menu counts as the app's
// only when the panel asked the app for it over dbusmenu. It runs only when
// that is set, and then needs xdotool and ImageMagick's import.
func TestTrayMenuScreenshot(t *testing.T) {
	dir := os.Getenv("CAPABILITIES_SCREENSHOTS")
	if dir == "" {
		t.Skip("CAPABILITIES_SCREENSHOTS is not set (make screenshots sets it)")
	}
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("CAPABILITIES_SCREENSHOTS is set but there is no display: run under scripts/with-session.sh")
	}
	for _, tool := range []string{"xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the tray menu's screenshot: %v", tool, err)
		}
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ensureTrayHost(t, conn)
	ownNotifications(t)

	before := rootShot(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), trayChildEnv+"=1", "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("app output:\n%s", out.String())
		}
	}()

	eventually := func(what string, cond func() bool) {
		t.Helper()
		testwait.For(t, 60*time.Second, what, cond)
	}
	var item string
	eventually("tray item", func() bool {
		item = registeredItemOf(t, conn, uint32(cmd.Process.Pid))
		return item != ""
	})
	busName, _, _ := strings.Cut(item, "/")
	var menuPath dbus.ObjectPath
	if err := conn.Object(busName, "/StatusNotifierItem").StoreProperty("org.kde.StatusNotifierItem.Menu", &menuPath); err != nil {
		t.Fatal(err)
	}
	eventually("the hub's state in the menu", func() bool {
		items := menuLayout(t, conn.Object(busName, menuPath))
		return len(items) > 0 && strings.HasPrefix(items[0].label, "Running") && items[len(items)-1].label == "Quit"
	})
	// The icon is where the panel changed.
	var icon image.Rectangle
	eventually("tray icon drawn in the panel", func() bool {
		icon = colourfulIn(before, rootShot(t), 30)
		return !icon.Empty()
	})
	// Wait for the first frame of the menu after the hub's state loaded.
	eventually("the icon to settle", func() bool {
		a := rootShot(t)
		time.Sleep(300 * time.Millisecond)
		return changed(a, rootShot(t), a.Bounds()).Empty()
	})
	beforeMenu := rootShot(t)
	if d := os.Getenv("CAPABILITIES_SCREENSHOTS_DEBUG"); d != "" {
		for name, img := range map[string]image.Image{"before.png": before, "after.png": beforeMenu} {
			var b bytes.Buffer
			png.Encode(&b, img)
			os.WriteFile(filepath.Join(d, name), b.Bytes(), 0o644)
		}
		t.Logf("icon at %v", icon)
	}
	x, y := (icon.Min.X+icon.Max.X)/2, (icon.Min.Y+icon.Max.Y)/2
	// A click near the icon may open the panel's own menu ("Status Tray
	// Plugin"), which changes the screen as much as the app's does: the
	// app's menu is the one the panel asked the app about over dbusmenu.
	asked := watchMenuCalls(t, busName, menuPath)
	var menu image.Rectangle
	opened := false
	for _, button := range []string{"3", "1", "3", "1"} {
		drain(asked)
		if out, err := exec.Command("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", button).CombinedOutput(); err != nil {
			t.Fatalf("xdotool: %v %s", err, out)
		}
		opened = testwait.Until(5*time.Second, func() bool {
			menu = changed(beforeMenu, rootShot(t), image.Rect(0, 30, beforeMenu.Bounds().Dx(), beforeMenu.Bounds().Dy()))
			return menu.Dy() >= 100 && len(asked) > 0
		})
		if opened {
			break
		}
		// Whatever opened instead goes away before the next try.
		exec.Command("xdotool", "key", "Escape").Run()
		testwait.Until(5*time.Second, func() bool {
			return changed(beforeMenu, rootShot(t), beforeMenu.Bounds()).Empty()
		})
	}
	for len(asked) > 0 {
		t.Logf("dbusmenu call: %s", <-asked)
	}
	if !opened {
		t.Fatalf("clicking the tray icon opened no menu of the app's (screen changed in %v, %d dbusmenu calls to the app)", menu, len(asked))
	}
	var shot image.Image
	eventually("the menu to settle", func() bool {
		a := rootShot(t)
		time.Sleep(300 * time.Millisecond)
		b := rootShot(t)
		shot = b
		return changed(a, b, b.Bounds()).Empty()
	})
	menu = changed(beforeMenu, shot, image.Rect(0, 30, shot.Bounds().Dx(), shot.Bounds().Dy()))
	// The menu with the panel and the icon above it.
	crop := menu.Union(icon).Inset(-8).Intersect(shot.Bounds())
	crop.Min.Y = 0
	sub := image.NewRGBA(image.Rect(0, 0, crop.Dx(), crop.Dy()))
	draw.Draw(sub, sub.Bounds(), shot, crop.Min, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, sub); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tray-menu.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	exec.Command("xdotool", "key", "Escape").Run()
}

// watchMenuCalls reports the dbusmenu calls that a host makes to the app's
// menu at path on bus when it shows that menu (AboutToShow, Event and their
// group forms); a host that only refreshes the layout makes none of them. It listens on a connection of its own that
// becomes a monitor of the session bus.
func watchMenuCalls(t *testing.T, bus string, path dbus.ObjectPath) chan string {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	var owner string
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, bus).Store(&owner); err != nil {
		conn.Close()
		t.Fatalf("owner of %s: %v", bus, err)
	}
	var rules []string
	for _, member := range []string{"AboutToShow", "AboutToShowGroup", "Event", "EventGroup"} {
		rules = append(rules, fmt.Sprintf("type='method_call',interface='com.canonical.dbusmenu',member='%s',path='%s'", member, path))
	}
	if call := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)); call.Err != nil {
		conn.Close()
		t.Fatalf("monitoring the session bus: %v", call.Err)
	}
	msgs := make(chan *dbus.Message, 64)
	conn.Eavesdrop(msgs)
	calls := make(chan string, 256)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case m := <-msgs:
				dest, _ := m.Headers[dbus.FieldDestination].Value().(string)
				member, _ := m.Headers[dbus.FieldMember].Value().(string)
				if dest != bus && dest != owner {
					continue
				}
				select {
				case calls <- fmt.Sprint(member, m.Body):
				default:
				}
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(done); conn.Close() })
	return calls
}

// drain empties c of what is waiting in it.
func drain(c chan string) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// rootShot is the whole screen.
func rootShot(t *testing.T) image.Image {
	t.Helper()
	out, err := exec.Command("import", "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import -window root: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// changed is the bounding box of the pixels inside area that differ
// between a and b.
func changed(a, b image.Image, area image.Rectangle) image.Rectangle {
	var box image.Rectangle
	area = area.Intersect(a.Bounds()).Intersect(b.Bounds())
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// colourfulIn is the box of the saturated pixels in the top height rows
// (the panel, grey with grey text) of b that were not there in a: the tray
// icon, wherever the panel's layout moved the rest.
func colourfulIn(a, b image.Image, height int) image.Rectangle {
	sat := func(c color.Color) bool {
		r, g, bl, _ := c.RGBA()
		hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
		return hi-lo > 60
	}
	var box image.Rectangle
	w := min(a.Bounds().Dx(), b.Bounds().Dx())
	for y := 0; y < height; y++ {
		for x := 0; x < w; x++ {
			if sat(b.At(x, y)) && !sat(a.At(x, y)) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}
