// Package packaging holds the files that put capabilities on a desktop: the
// launcher (.desktop), the XDG autostart entry, a systemd user unit for the
// headless hub, the launchd agent for macOS, and the Windows "Run" registry
// value, together with the code that installs and removes the start-at-login
// entry of the current platform.
//
// The files are templates embedded in the binary (linux/, darwin/); each is
// rendered with the path of the running executable, which only the caller
// knows. Nothing here reads process globals: the executable, the user's home
// and config folders are passed in AutostartOptions, so tests point them at a
// temporary folder. The package is pure Go and builds with CGO_ENABLED=0 on
// every platform.
package packaging

import (
	"bytes"
	"embed"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"
)

// AppID is the reverse-DNS identifier of the application, shared with
// FyneApp.toml, the launchd label and the icon name.
const AppID = "sh.capabilities.hub"

// AppName is the name of the command and of the files installed for it.
const AppName = "capabilities"

//go:embed linux/capabilities.desktop linux/capabilities-autostart.desktop linux/capabilities.service darwin/sh.capabilities.hub.plist
var files embed.FS

// AutostartOptions says what to start at login and where the user's folders are.
type AutostartOptions struct {
	// Exe is the absolute path of the capabilities executable. Required.
	Exe string
	// Home is the user's home folder. Required on Linux and macOS.
	Home string
	// ConfigDir is the XDG config folder; empty means Home/.config.
	ConfigDir string
	// Args are the arguments after Exe; nil means "hub" (the tray app).
	Args []string
}

func (o AutostartOptions) argv() ([]string, error) {
	if o.Exe == "" {
		return nil, errors.New("autostart: no executable path")
	}
	args := o.Args
	if args == nil {
		args = []string{"hub"}
	}
	return append([]string{o.Exe}, args...), nil
}

func (o AutostartOptions) configDir() (string, error) {
	if o.ConfigDir != "" {
		return o.ConfigDir, nil
	}
	if o.Home == "" {
		return "", errors.New("autostart: no home folder")
	}
	return filepath.Join(o.Home, ".config"), nil
}

// Autostart turns starting capabilities at login on or off for the current
// user and returns what it wrote (on) or removed (off): file paths, or the
// registry value on Windows. Turning off what is not on is not an error.
//
// Linux and the BSDs get an XDG autostart entry
// ($XDG_CONFIG_HOME/autostart/capabilities.desktop), macOS a launchd agent
// (~/Library/LaunchAgents/sh.capabilities.hub.plist, loaded at the next
// login), Windows a value under HKCU\Software\Microsoft\Windows\CurrentVersion\Run.
func Autostart(on bool, opts AutostartOptions) (written []string, err error) {
	switch runtime.GOOS {
	case "windows":
		return registryAutostart(on, opts)
	case "darwin":
		return launchdAutostart(on, opts)
	default:
		return xdgAutostart(on, opts)
	}
}

// AutostartEnabled reports whether the start-at-login entry that Autostart
// writes is in place.
func AutostartEnabled(opts AutostartOptions) bool {
	switch runtime.GOOS {
	case "windows":
		return registryAutostartEnabled(opts)
	case "darwin":
		p, err := launchdPath(opts)
		return err == nil && exists(p)
	default:
		p, err := xdgAutostartPath(opts)
		return err == nil && exists(p)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// xdgAutostartPath is where the XDG autostart entry goes.
func xdgAutostartPath(opts AutostartOptions) (string, error) {
	dir, err := opts.configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "autostart", AppName+".desktop"), nil
}

func xdgAutostart(on bool, opts AutostartOptions) ([]string, error) {
	path, err := xdgAutostartPath(opts)
	if err != nil {
		return nil, err
	}
	if !on {
		return remove(path)
	}
	b, err := AutostartEntry(opts)
	if err != nil {
		return nil, err
	}
	return write(path, b)
}

// launchdPath is where the launchd agent goes.
func launchdPath(opts AutostartOptions) (string, error) {
	if opts.Home == "" {
		return "", errors.New("autostart: no home folder")
	}
	return filepath.Join(opts.Home, "Library", "LaunchAgents", AppID+".plist"), nil
}

func launchdAutostart(on bool, opts AutostartOptions) ([]string, error) {
	path, err := launchdPath(opts)
	if err != nil {
		return nil, err
	}
	if !on {
		return remove(path)
	}
	b, err := LaunchdPlist(opts)
	if err != nil {
		return nil, err
	}
	return write(path, b)
}

func remove(path string) ([]string, error) {
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("removing autostart entry: %w", err)
	}
	return []string{path}, nil
}

// write replaces path with b through a temporary file in the same folder, so
// a session starting meanwhile never reads half an entry.
func write(path string, b []byte) ([]string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("writing autostart entry: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("writing autostart entry: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("writing autostart entry: %w", err)
	}
	return []string{path}, nil
}

// DesktopEntry renders the application launcher, to be installed as
// share/applications/capabilities.desktop. When opts.Args is nil it runs
// "hub --window": a person who launches the app sees its window.
func DesktopEntry(opts AutostartOptions) ([]byte, error) {
	if opts.Args == nil {
		opts.Args = []string{"hub", "--window"}
	}
	return renderExec("linux/capabilities.desktop", opts, desktopExec)
}

// AutostartEntry renders the XDG autostart entry that Autostart installs on Linux.
func AutostartEntry(opts AutostartOptions) ([]byte, error) {
	return renderExec("linux/capabilities-autostart.desktop", opts, desktopExec)
}

// SystemdUnit renders the systemd user unit for the hub without a tray. When
// opts.Args is nil it runs "hub --headless".
func SystemdUnit(opts AutostartOptions) ([]byte, error) {
	if opts.Args == nil {
		opts.Args = []string{"hub", "--headless"}
	}
	return renderExec("linux/capabilities.service", opts, systemdExec)
}

// LaunchdPlist renders the launchd agent that Autostart installs on macOS.
func LaunchdPlist(opts AutostartOptions) ([]byte, error) {
	argv, err := opts.argv()
	if err != nil {
		return nil, err
	}
	t, err := template.New("sh.capabilities.hub.plist").
		Funcs(template.FuncMap{"xml": xmlEscape}).
		ParseFS(files, "darwin/sh.capabilities.hub.plist")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	data := struct {
		Label string
		Args  []string
	}{AppID, argv}
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("rendering launchd agent: %w", err)
	}
	return b.Bytes(), nil
}

func xmlEscape(s string) (string, error) {
	var b strings.Builder
	err := xml.EscapeText(&b, []byte(s))
	return b.String(), err
}

func renderExec(name string, opts AutostartOptions, quote func([]string) string) ([]byte, error) {
	argv, err := opts.argv()
	if err != nil {
		return nil, err
	}
	t, err := template.ParseFS(files, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ Exec string }{quote(argv)}); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", filepath.Base(name), err)
	}
	return b.Bytes(), nil
}

// desktopExec quotes argv for the Exec key of a desktop entry: arguments
// with reserved characters are double-quoted with `"`, "`", "$" and "\"
// escaped, "%" is doubled (field codes), and the value as a whole escapes
// backslashes once more, as the Desktop Entry Specification asks.
func desktopExec(argv []string) string {
	const reserved = " \t\n\"'\\><~|&;$*?#()`="
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "%", "%%")
		if a != "" && !strings.ContainsAny(a, reserved) {
			out[i] = a
			continue
		}
		var q strings.Builder
		q.WriteByte('"')
		for _, r := range a {
			if strings.ContainsRune("\"`$\\", r) {
				q.WriteByte('\\')
			}
			q.WriteRune(r)
		}
		q.WriteByte('"')
		out[i] = q.String()
	}
	return strings.ReplaceAll(strings.Join(out, " "), `\`, `\\`)
}

// systemdExec quotes argv for ExecStart: arguments with spaces or quotes are
// double-quoted, "%" (specifiers) and "$" (variables) are doubled.
func systemdExec(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "%", "%%")
		a = strings.ReplaceAll(a, "$", "$$")
		if a != "" && !strings.ContainsAny(a, " \t\"'\\;") {
			out[i] = a
			continue
		}
		a = strings.ReplaceAll(a, `\`, `\\`)
		a = strings.ReplaceAll(a, `"`, `\"`)
		out[i] = `"` + a + `"`
	}
	return strings.Join(out, " ")
}
