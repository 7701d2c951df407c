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
