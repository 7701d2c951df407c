//go:build headless

package main

import (
	"context"
	"errors"
	"log/slog"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/mcpserver"
)

var errNoUI = errors.New("built without the tray app (headless build)")

func runUI(ctx context.Context, e *env, h *hub.Hub, log *slog.Logger, shows <-chan string, _ *mcpserver.Sessions) error {
	log.Info("this build has no tray app; running headless")
	<-ctx.Done()
	return errNoUI
}

// trayHost: a headless build has no tray app.
func trayHost() error { return errors.New("this is a headless build: no tray app") }

// noTrayFix is doctor's fix line when trayHost fails: without a UI, no
// dialog asks either.
const noTrayFix = "approvals reach you in the client's own form (MCP input requests) or through 'capabilities hub approve RUNID'; for the tray and its dialogs, use the desktop build"
