//go:build !linux

package keychain

// NoBusAutolaunch: only Linux reaches its keychain and tray over a D-Bus
// session bus that a client could autolaunch.
func NoBusAutolaunch() {}
