//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/packaging"
	"capabilities.sh/capabilities/ui"
)

var errNoUI = errors.New("built without the tray app")

// runUI runs the tray app on this (the main) goroutine until ctx ends or
// the person quits. Each tab name received on shows opens the main window
// (capabilities hub open).
func runUI(ctx context.Context, e *env, h *hub.Hub, log *slog.Logger, shows <-chan string) error {
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
		Show:             shows,
		Connect:          func(client string) (string, error) { return connectClient(e, client) },
		FirstRun: func() (ui.FirstRun, error) {
			kc, err := e.keychain()
			if err != nil {
				return ui.FirstRun{}, err
			}
			return firstRunUI(e, kc), nil
		},
	})
}

// connectClient writes the capabilities entry into an MCP client's config,
// as 'capabilities install CLIENT' does, and says what it did.
func connectClient(e *env, client string) (string, error) {
	cc, err := clients.ClientConfigFor(client, e.UserHome, e.UserConfig, runtime.GOOS)
	if err != nil {
		return "", err
	}
	home := e.Getenv("CAPABILITIES_HOME")
	if home != "" {
		home = e.home()
	}
	res, err := clients.Install(cc, clients.ShimEntry(cc.Client, e.Exe, home), time.Now())
	if err != nil {
		return "", err
	}
	if !res.Changed {
		return fmt.Sprintf("%s already runs capabilities (%s).", cc.Client, res.Path), nil
	}
	msg := fmt.Sprintf("Added capabilities to %s (%s). Restart %s to pick it up.", cc.Client, res.Path, cc.Client)
	if res.Backup != "" {
		msg += " Backup: " + res.Backup
	}
	return msg, nil
}

func autostartOptions(e *env) packaging.AutostartOptions {
	cfg := e.Getenv("XDG_CONFIG_HOME")
	return packaging.AutostartOptions{Exe: e.clientExe(), Home: e.UserHome, ConfigDir: strings.TrimSpace(cfg)}
}

// trayHost reports whether the desktop shows tray icons.
func trayHost() error { return ui.TrayAvailable() }
