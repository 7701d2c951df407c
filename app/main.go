// Command capabilities is a local code-mode MCP hub that lives in the system
// tray. It connects to the person's MCP servers, REST APIs and skills and
// shows every MCP client exactly three tools: search, describe and execute.
//
// This package is the composition root: the only place that reads flags,
// picks paths, touches process globals and calls os.Exit.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"capabilities.sh/capabilities/internal/quietlocale"
	"capabilities.sh/capabilities/keychain"
)

func main() {
	quietlocale.Restore()
	keychain.NoBusAutolaunch()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, processEnv())
	stop()
	os.Exit(code)
}
