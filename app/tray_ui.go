//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/packaging"
	"capabilities.sh/capabilities/ui"
)

var errNoUI = errors.New("built without the tray app")

// runUI runs the tray app on this (the main) goroutine until ctx ends or
// the person quits.
func runUI(ctx context.Context, e *env, h *hub.Hub, log *slog.Logger) error {
	auto := autostartOptions(e)
	// While the tray app runs on a display, its dialog shows every
	// approval as it arrives, and the model is told so.
	remove := h.SetApprovalPresenter(func(hub.Approval) bool { return true })
	defer remove()
	return ui.Run(ctx, ui.FromHub(ctx, h), ui.Options{
		Logf: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) },
		Autostart: func(on bool) error {
			_, err := packaging.Autostart(on, auto)
			return err
		},
		AutostartEnabled: func() bool { return packaging.AutostartEnabled(auto) },
	})
}

func autostartOptions(e *env) packaging.AutostartOptions {
	cfg := e.Getenv("XDG_CONFIG_HOME")
	return packaging.AutostartOptions{Exe: e.clientExe(), Home: e.UserHome, ConfigDir: strings.TrimSpace(cfg)}
}

// trayHost reports whether the desktop shows tray icons.
func trayHost() error { return ui.TrayAvailable() }
