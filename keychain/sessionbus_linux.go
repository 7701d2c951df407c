package keychain

import (
	"fmt"
	"os"
	"path/filepath"
)

// NoBusAutolaunch keeps the D-Bus clients of this process (the keychain's,
// the tray's) from autolaunching a session bus where there is none. Without
// a session bus address godbus runs dbus-launch, whose dbus-daemon, and the
// gnome-keyring-daemon that daemon activates, outlive the command: two
// processes left behind by every command on a machine with no desktop
// session. When the environment names no session bus and godbus would find
// none in the user's runtime folder, the address is set to one that does
// not connect, so the keychain reports itself unavailable with its hint
// (doctor shows it) and nothing is started. A program calls it before it
// starts any D-Bus client; the keychain calls it before its first
// operation, for a program that does not (the tests of any package that
// reach the keychain).
func NoBusAutolaunch() {
	if addr := sessionBusOverride(os.Getenv("DBUS_SESSION_BUS_ADDRESS"), filepath.Join("/run/user", fmt.Sprint(os.Getuid()))); addr != "" {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	}
}

// sessionBusOverride is the session bus address to set, or "" to leave the
// environment as it is: a named address stays; with none ("" or
// "autolaunch:"), one found in runtimeDir (bus, or dbus-session, as godbus
// looks) is left for godbus to find; else "disabled:", a transport no
// client has, so a connection fails at once instead of autolaunching.
func sessionBusOverride(addr, runtimeDir string) string {
	if addr != "" && addr != "autolaunch:" {
		return ""
	}
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(runtimeDir, name)); err == nil {
			return ""
		}
	}
	return "disabled:"
}
