//go:build windows

package packaging

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/windows/registry"
)

// runKey is the per-user list of programs Windows starts at login.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

func registryAutostart(on bool, opts AutostartOptions) ([]string, error) {
	name := `HKCU\` + runKey + `\` + AppName
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE|registry.SET_VALUE)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", runKey, err)
	}
	defer k.Close()
	if !on {
		err := k.DeleteValue(AppName)
		if errors.Is(err, registry.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("removing autostart entry: %w", err)
		}
		return []string{name}, nil
	}
	argv, err := opts.argv()
	if err != nil {
		return nil, err
	}
	if err := k.SetStringValue(AppName, windowsCommandLine(argv)); err != nil {
		return nil, fmt.Errorf("writing autostart entry: %w", err)
	}
	return []string{name}, nil
}

func registryAutostartEnabled(AutostartOptions) bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	_, _, err = k.GetStringValue(AppName)
	return err == nil
}

// windowsCommandLine joins argv the way CommandLineToArgvW splits it.
func windowsCommandLine(argv []string) string {
	var s string
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += syscall.EscapeArg(a)
	}
	return s
}
