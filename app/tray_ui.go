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
	"capabilities.sh/capabilities/hub/mcpserver"
	"capabilities.sh/capabilities/internal/hiddentext"
	"capabilities.sh/capabilities/packaging"
	"capabilities.sh/capabilities/ui"
)

var errNoUI = errors.New("built without the tray app")

// runUI runs the tray app on this (the main) goroutine until ctx ends or
// the person quits. Each tab name received on shows opens the main window
// (capabilities hub open).
func runUI(ctx context.Context, e *env, h *hub.Hub, log *slog.Logger, shows <-chan string, sessions *mcpserver.Sessions) error {
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
		Connect:          func(client, profile string) (string, error) { return connectClient(e, client, profile) },
		Connected: func() []ui.ConnectedClient {
			var out []ui.ConnectedClient
			for _, c := range sessions.Connected() {
				out = append(out, ui.ConnectedClient{Name: hiddentext.Reveal(c.Name), Version: hiddentext.Reveal(c.Version), Profile: c.Profile, Mode: c.Mode, Since: c.Since})
			}
			return out
		},
		WatchConnected: sessions.Watch,
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
// as 'capabilities install CLIENT [--profile NAME]' does, and says what it
// did.
func connectClient(e *env, client, profile string) (string, error) {
	cc, err := clients.ClientConfigFor(client, e.UserHome, e.UserConfig, runtime.GOOS)
	if err != nil {
		return "", err
	}
	home := e.Getenv("CAPABILITIES_HOME")
	if home != "" {
		home = e.home()
	}
	name, entry := clients.EntryName(""), clients.ShimEntry(cc.Client, e.Exe, home)
	if profile != "" {
		cfg, _, err := e.loadConfig()
		if err != nil {
			return "", err
		}
		if cfg.Profile(profile) == nil {
			return "", unknownProfile(cfg, profile)
		}
		name, entry = clients.EntryName(profile), clients.ProfileShimEntry(cc.Client, e.Exe, home, profile)
	}
	res, err := clients.InstallNamed(cc, name, entry, time.Now())
	if err != nil {
		return "", err
	}
	if !res.Changed {
		return fmt.Sprintf("%s already runs %s (%s).", cc.Client, name, res.Path), nil
	}
	msg := fmt.Sprintf("Added %s to %s (%s). Restart %s to pick it up.", name, cc.Client, res.Path, cc.Client)
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

// noTrayFix is doctor's fix line when trayHost fails: the dialogs need no
// tray.
const noTrayFix = "the hub still runs and approval dialogs still open; for an icon, use a desktop with a system tray (GNOME: the AppIndicator extension)"
