//go:build !windows

package packaging

import "errors"

// The registry exists only on Windows; Autostart never calls these elsewhere.

func registryAutostart(bool, AutostartOptions) ([]string, error) {
	return nil, errors.New("autostart: the Windows registry is not available on this platform")
}

func registryAutostartEnabled(AutostartOptions) bool { return false }
