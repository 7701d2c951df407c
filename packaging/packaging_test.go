package packaging

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// desktopKey returns the value of key in the [Desktop Entry] group of b.
func desktopKey(t *testing.T, b []byte, key string) string {
	t.Helper()
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	t.Fatalf("no %s= line in:\n%s", key, b)
	return ""
}

func TestAutostartLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG autostart entry is what Autostart writes on Linux")
	}
	home := t.TempDir()
	opts := AutostartOptions{Exe: "/opt/capabilities/bin/capabilities", Home: home}
	want := filepath.Join(home, ".config", "autostart", "capabilities.desktop")

	if AutostartEnabled(opts) {
		t.Fatal("enabled before turning it on")
	}
	written, err := Autostart(true, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{want}, written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := desktopKey(t, b, "Exec"); got != "/opt/capabilities/bin/capabilities hub" {
		t.Errorf("Exec=%s", got)
	}
	if got := desktopKey(t, b, "Type"); got != "Application" {
		t.Errorf("Type=%s", got)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}
	if !AutostartEnabled(opts) {
		t.Error("not enabled after turning it on")
	}
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 1 {
		t.Errorf("autostart folder holds %d files, want only the entry", len(entries))
	}

	// Turning it on again replaces the entry (a moved executable).
	opts.Exe = "/usr/bin/capabilities"
	if _, err := Autostart(true, opts); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(want)
	if got := desktopKey(t, b, "Exec"); got != "/usr/bin/capabilities hub" {
		t.Errorf("after rewrite Exec=%s", got)
	}

	removed, err := Autostart(false, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{want}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("entry still there after off: %v", err)
	}
	if AutostartEnabled(opts) {
		t.Error("enabled after turning it off")
	}
	removed, err = Autostart(false, opts)
	if err != nil || removed != nil {
		t.Errorf("off twice: %v, %v", removed, err)
	}
}

func TestAutostartXDGConfigDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	cfg := filepath.Join(t.TempDir(), "xdg")
	opts := AutostartOptions{Exe: "/bin/capabilities", Home: t.TempDir(), ConfigDir: cfg, Args: []string{"hub", "--minimized"}}
	written, err := Autostart(true, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cfg, "autostart", "capabilities.desktop")
	if diff := cmp.Diff([]string{want}, written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	b, _ := os.ReadFile(want)
	if got := desktopKey(t, b, "Exec"); got != "/bin/capabilities hub --minimized" {
		t.Errorf("Exec=%s", got)
	}
}

func TestAutostartNeedsPaths(t *testing.T) {
	if _, err := Autostart(true, AutostartOptions{Home: t.TempDir()}); err == nil {
		t.Error("no Exe: want an error")
	}
	if runtime.GOOS != "windows" {
		if _, err := Autostart(true, AutostartOptions{Exe: "/bin/capabilities"}); err == nil {
			t.Error("no Home: want an error")
		}
	}
}

func TestLaunchdAgent(t *testing.T) {
	home := t.TempDir()
	opts := AutostartOptions{Exe: "/Applications/capabilities.app/Contents/MacOS/capabilities", Home: home, Args: []string{"hub", "a<b&c"}}
	written, err := launchdAutostart(true, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, "Library", "LaunchAgents", "sh.capabilities.hub.plist")
	if diff := cmp.Diff([]string{want}, written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	// Decode the plist's dict as key/value pairs to check it is well formed.
	var doc struct {
		Dict struct {
			Keys    []string `xml:"key"`
			Strings []string `xml:"string"`
			Array   struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("plist is not XML: %v\n%s", err, b)
	}
	if diff := cmp.Diff([]string{opts.Exe, "hub", "a<b&c"}, doc.Dict.Array.Strings); diff != "" {
		t.Errorf("ProgramArguments (-want +got):\n%s", diff)
	}
	if len(doc.Dict.Strings) == 0 || doc.Dict.Strings[0] != AppID {
		t.Errorf("Label strings = %v", doc.Dict.Strings)
	}
	if !strings.Contains(string(b), "<key>RunAtLoad</key>\n\t<true/>") {
		t.Errorf("RunAtLoad not true:\n%s", b)
	}
	if removed, err := launchdAutostart(false, opts); err != nil || len(removed) != 1 {
		t.Errorf("off: %v, %v", removed, err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("agent still there after off: %v", err)
	}
}

func TestExecQuoting(t *testing.T) {
	tests := []struct {
		argv          []string
		desktop, unit string
	}{
		{[]string{"/usr/bin/capabilities", "hub"}, `/usr/bin/capabilities hub`, `/usr/bin/capabilities hub`},
		{[]string{"/home/a b/capabilities", "hub"}, `"/home/a b/capabilities" hub`, `"/home/a b/capabilities" hub`},
		{[]string{"/x/100%/capabilities"}, `/x/100%%/capabilities`, `/x/100%%/capabilities`},
		{[]string{`/x/$HOME"q`}, `"/x/\\$HOME\\"q"`, `"/x/$$HOME\"q"`},
		{[]string{"/x", ""}, `/x ""`, `/x ""`},
	}
	for _, tt := range tests {
		if got := desktopExec(tt.argv); got != tt.desktop {
			t.Errorf("desktopExec(%q) = %s, want %s", tt.argv, got, tt.desktop)
		}
		if got := systemdExec(tt.argv); got != tt.unit {
			t.Errorf("systemdExec(%q) = %s, want %s", tt.argv, got, tt.unit)
		}
	}
}

func TestTemplates(t *testing.T) {
	opts := AutostartOptions{Exe: "/usr/bin/capabilities"}
	unit, err := SystemdUnit(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "\nExecStart=/usr/bin/capabilities hub --headless\n") {
		t.Errorf("unit:\n%s", unit)
	}
	launcher, err := DesktopEntry(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := desktopKey(t, launcher, "Exec"); got != "/usr/bin/capabilities hub --window" {
		t.Errorf("launcher Exec=%s", got)
	}
	if got := desktopKey(t, launcher, "Icon"); got != AppID {
		t.Errorf("launcher Icon=%s", got)
	}
	for _, b := range [][]byte{unit, launcher} {
		if strings.Contains(string(b), "{{") {
			t.Errorf("unrendered template action:\n%s", b)
		}
	}
}
