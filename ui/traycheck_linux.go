//go:build !headless && (linux || freebsd || openbsd || netbsd)

package ui

import (
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// TrayAvailable reports whether a system tray can show the icon: on Linux
// and the BSDs, a StatusNotifierWatcher must own its name on the session
// bus. It returns why not as an error. It never panics, also without any
// D-Bus.
func TrayAvailable() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("checking the session bus: %v", r)
		}
	}()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("no session bus: %w", err)
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	if err != nil {
		return fmt.Errorf("asking the session bus for a StatusNotifierWatcher: %w", err)
	}
	if !has {
		return errors.New("no StatusNotifierWatcher on the session bus (the desktop has no tray, or needs an AppIndicator extension)")
	}
	return nil
}
