//go:build !headless && !(linux || freebsd || openbsd || netbsd)

package ui

// TrayAvailable reports whether a system tray can show the icon; macOS and
// Windows always have one.
func TrayAvailable() error { return nil }
