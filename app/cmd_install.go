package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/packaging"
)

func installCommand() *command {
	var printOnly bool
	var httpAddr string
	return &command{
		name:    "install",
		args:    "claude-code|claude-desktop|cursor|vscode [--print] [--http :PORT]",
		summary: "Connect an MCP client to the hub (writes its config, after a backup)",
		long: `Adds a "capabilities" server to the client's MCP config, running
'capabilities mcp'. The file is backed up first (FILE.bak-TIMESTAMP) and every
other key is kept. --print shows the entry and the file instead of writing.

--http :PORT connects the client to the hub's streamable HTTP endpoint
('capabilities hub --http :PORT') instead, and writes the endpoint's bearer
token ('capabilities hub token') into the client's file, which then holds a
credential: use it only for clients that cannot start a command.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&printOnly, "print", false, "print the entry instead of writing it")
			fs.StringVar(&httpAddr, "http", "", "connect over streamable HTTP to 127.0.0.1`:PORT` (writes the bearer token)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs one client: claude-code, claude-desktop, cursor or vscode")
			}
			cc, err := hub.ClientConfigFor(args[0], e.UserHome, e.UserConfig, runtime.GOOS)
			if err != nil {
				return &usageError{msg: err.Error()}
			}
			home := e.Getenv("CAPABILITIES_HOME")
			if home != "" {
				home = e.home()
			}
			entry := hub.ShimEntry(cc.Client, e.Exe, home)
			if httpAddr != "" {
				url, err := hub.HTTPEndpointURL(httpAddr)
				if err != nil {
					return &usageError{msg: err.Error()}
				}
				kc, err := e.keychain()
				if err != nil {
					return err
				}
				tok, err := hub.HTTPToken(kc)
				if err != nil {
					return err
				}
				if entry, err = hub.HTTPEntry(cc.Client, url, tok); err != nil {
					return err
				}
			}
			if printOnly {
				b, _ := json.MarshalIndent(map[string]any{cc.Key: map[string]any{"capabilities": entry}}, "", "  ")
				fmt.Fprintf(e.Stdout, "# %s\n%s\n", cc.Path, b)
				return nil
			}
			res, err := hub.Install(cc, entry, time.Now())
			if err != nil {
				return err
			}
			if !res.Changed {
				fmt.Fprintf(e.Stdout, "%s already runs capabilities (%s).\n", cc.Client, res.Path)
				return nil
			}
			fmt.Fprintf(e.Stdout, "Added capabilities to %s (%s).\n", cc.Client, res.Path)
			if res.Backup != "" {
				fmt.Fprintf(e.Stdout, "Backup: %s\n", res.Backup)
			}
			fmt.Fprintf(e.Stdout, "Restart %s to pick it up.\n", cc.Client)
			return nil
		},
	}
}

func hubAutostartCommand() *command {
	return &command{
		name: "autostart", args: "on|off", summary: "Start the hub at login, or stop doing so",
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 || (args[0] != "on" && args[0] != "off") {
				return usagef("needs on or off")
			}
			on := args[0] == "on"
			written, err := packaging.Autostart(on, packaging.AutostartOptions{Exe: e.Exe, Home: e.UserHome, ConfigDir: e.Getenv("XDG_CONFIG_HOME")})
			if err != nil {
				return err
			}
			verb := "Removed"
			if on {
				verb = "Wrote"
			}
			for _, w := range written {
				fmt.Fprintf(e.Stdout, "%s %s\n", verb, w)
			}
			if on {
				fmt.Fprintln(e.Stdout, "The hub starts at login.")
			} else {
				fmt.Fprintln(e.Stdout, "The hub no longer starts at login.")
			}
			return nil
		},
	}
}
