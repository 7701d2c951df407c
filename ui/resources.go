//go:build !headless

package ui

import (
	"fyne.io/fyne/v2"

	"capabilities.sh/capabilities/assets"
)

var (
	appIcon     = fyne.NewStaticResource("capabilities.png", assets.Icon)
	trayIdleRes = fyne.NewStaticResource("tray-idle.png", assets.TrayIdle)
	trayPendRes = fyne.NewStaticResource("tray-pending.png", assets.TrayPending)
	trayDownRes = fyne.NewStaticResource("tray-down.png", assets.TrayDown)
	trayPausRes = fyne.NewStaticResource("tray-paused.png", assets.TrayPaused)
)

// trayIcon is the icon of a tray state.
func trayIcon(s trayState) fyne.Resource {
	switch s {
	case trayPending:
		return trayPendRes
	case trayDown:
		return trayDownRes
	case trayPaused:
		return trayPausRes
	}
	return trayIdleRes
}
