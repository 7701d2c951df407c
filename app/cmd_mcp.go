package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
)

func mcpCommand() *command {
	var embedded bool
	return &command{
		name:    "mcp",
		args:    "[--embedded]",
		summary: "Serve MCP over stdio for a client (starts the hub when none runs)",
		long: `MCP clients start this command. It forwards to the hub of
CAPABILITIES_HOME over its local socket, starting the hub in the background
when none runs. Logs go to stderr; stdout carries the protocol only.

--embedded runs the hub inside this process instead (containers, tests); it
still serves the local API so the CLI works.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&embedded, "embedded", false, "run the hub in this process")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			if embedded {
				return runEmbedded(ctx, e, log)
			}
			replaceOlderHub(ctx, e, log)
			return hub.RunShim(ctx, hub.ShimOptions{
				Paths:    hub.Paths{Home: e.home()},
				Stdin:    e.Stdin,
				Stdout:   e.Stdout,
				Logger:   log,
				StartHub: func() error { return startHubDetached(e) },
			})
		},
	}
}

// runEmbedded serves MCP on stdio from a hub in this process, and the local
// API on the socket when no other hub holds it.
func runEmbedded(ctx context.Context, e *env, log *slog.Logger) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	h, err := openHub(ctx, e, log, time.Second, true)
	if err != nil {
		return err
	}
	defer h.Close()
	srv := h.NewMCPServer(version)
	svc, err := hub.Listen(hub.ServiceOptions{Paths: h.Paths(), Logger: log, MCPServer: srv, Handler: h.APIHandler(hub.APIOptions{Version: version, Exe: e.Exe, Stop: stop})})
	served := make(chan error, 1)
	switch {
	case err == nil:
		go func() { served <- svc.Serve(ctx) }()
	case errors.Is(err, hub.ErrHubRunning):
		log.Warn("another hub serves this home's local API; the CLI talks to that one", "err", err)
		served <- nil
	default:
		return err
	}
	go fillCatalog(ctx, h, log)
	err = srv.Run(ctx, &mcp.StdioTransport{})
	stop()
	if serr := <-served; err == nil && serr != nil && !errors.Is(serr, context.Canceled) {
		err = serr
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
