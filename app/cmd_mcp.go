package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/hub/mcpserver"
)

func mcpCommand() *command {
	var embedded bool
	var profile string
	return &command{
		name:     "mcp",
		protocol: true,
		args:     "[--embedded] [--profile NAME]",
		summary:  "Serve MCP over stdio for a client (starts the hub when none runs)",
		long: `MCP clients start this command. It forwards to the hub of
CAPABILITIES_HOME over its local socket, starting the hub in the background
when none runs. Logs go to stderr; stdout carries the protocol only.

--embedded runs the hub inside this process instead (containers, tests); it
still serves the local API so the CLI works. When a hub already runs for
CAPABILITIES_HOME, --embedded forwards to it like the plain command: one hub
owns a home's runs.

--profile NAME serves the client the profile of that name ('capabilities
profile add'): only its sources exist for it. A profile the config does not
have (or no longer has) ends the command with an error naming those it has;
the client is never served everything in its place.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&embedded, "embedded", false, "run the hub in this process")
			fs.StringVar(&profile, "profile", "", "serve profile `NAME`")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			if embedded {
				return runEmbedded(ctx, e, log, profile)
			}
			replaceOlderHub(ctx, e, log)
			var started atomic.Pointer[startedHub] // the hub this shim started last
			return localapi.RunShim(ctx, localapi.ShimOptions{
				Profile: profile,
				Paths:   config.Paths{Home: e.home()},
				Stdin:   e.Stdin,
				Stdout:  e.Stdout,
				Logger:  log,
				StartHub: func() error {
					h, err := startHubDetached(e)
					started.Store(h)
					return err
				},
				StartStopped: func() bool {
					h := started.Load()
					return h != nil && h.stopped()
				},
				StartOutput: func() string {
					if h := started.Load(); h != nil {
						return startOutput(e, h.from)
					}
					return ""
				},
			})
		},
	}
}

// runEmbedded serves MCP on stdio from a hub in this process, which also
// serves the local API. One hub owns a home's runs: when another hub runs
// for the home (the tray app), this process becomes a shim to it instead,
// so two hubs never attempt the same runs.
func runEmbedded(ctx context.Context, e *env, log *slog.Logger, profile string) error {
	paths := config.Paths{Home: e.home()}
	if c, err := localapi.Dial(ctx, paths); err == nil {
		c.Close()
		return shimToRunningHub(ctx, e, log, paths, profile, nil)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	h, err := openHub(ctx, e, log, time.Second, true)
	if err != nil {
		return err
	}
	var svc *localapi.Service
	defer func() {
		h.Close()
		if svc != nil {
			svc.Close() // the home's lock, kept until the hub has closed
		}
	}()
	sessions := mcpserver.NewSessions()
	servers := mcpserver.NewServers(h, mcpserver.Options{Version: version, Logger: h.Logger(), Sessions: sessions})
	defer servers.Close()
	srv, err := servers.Server(profile)
	if err != nil {
		return withHint(err, "capabilities profile list")
	}
	svc, err = localapi.Listen(localapi.ServiceOptions{Paths: h.Paths(), Logger: log, MCPServer: servers.All(), Profiles: servers.Server, Handler: localapi.NewHandler(h, localapi.APIOptions{Version: version, Exe: e.Exe, Stop: stop, Sessions: sessions})})
	if errors.Is(err, localapi.ErrHubRunning) {
		// A hub took the home while this one opened: serve through it.
		h.Close()
		return shimToRunningHub(ctx, e, log, paths, profile, err)
	}
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- svc.Serve(ctx) }()
	go fillCatalog(ctx, h, log)
	go releaseMemory(ctx, memoryCheckEvery)
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

// shimToRunningHub serves the client through the hub that runs for the
// home. It starts no hub: when that one stops, requests fail until it is
// back.
func shimToRunningHub(ctx context.Context, e *env, log *slog.Logger, paths config.Paths, profile string, why error) error {
	attrs := []any{"home", paths.Home}
	if why != nil {
		attrs = append(attrs, "err", why)
	}
	log.Warn("a hub already runs for this home; --embedded serves this client through it instead of running a second hub", attrs...)
	return localapi.RunShim(ctx, localapi.ShimOptions{
		Profile: profile,
		Paths:   paths,
		Stdin:   e.Stdin,
		Stdout:  e.Stdout,
		Logger:  log,
		// The running hub may still be binding its socket: wait for it.
		StartHub: func() error { return nil },
	})
}
