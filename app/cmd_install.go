package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"capabilities.sh/capabilities/assets"
	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/packaging"
)

func installCommand() *command {
	var printOnly bool
	var httpAddr, profile string
	return &command{
		name:    "install",
		args:    "claude-code|claude-desktop|cursor|vscode|app [--print] [--http :PORT] [--profile NAME]",
		summary: "Connect an MCP client to the hub (writes its config, after a backup), or install the app",
		long: `Adds a "capabilities" server to the client's MCP config, running
'capabilities mcp'. The file is backed up first (FILE.bak-TIMESTAMP) and every
other key, comment and the layout are kept. --print shows the entry and the
file instead of writing. The entry runs the installed binary when there is
one (see 'install app'), so it keeps working when a clone moves.

'install app' (what 'make install' runs) copies this binary to ~/.local/bin
(/usr/local/bin as root) with the launcher and icon, and points the clients'
entries and the start-at-login entry at it.

--http :PORT connects the client to the hub's streamable HTTP endpoint
('capabilities hub --http :PORT') instead, and writes the endpoint's bearer
token ('capabilities hub token') into the client's file, which then holds a
credential: the file is made readable by you alone (0600), its backups keep a
note in place of the token, and 'capabilities hub token --rotate' replaces the
token everywhere. Use it only for clients that cannot start a command.

--profile NAME connects the client to a profile ('capabilities profile add'):
the entry, named capabilities-NAME beside any plain one, runs
'capabilities mcp --profile NAME' (over HTTP: the path /mcp/p/NAME), so the
client sees only the profile's sources; the model cannot switch it.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&printOnly, "print", false, "print the entry instead of writing it")
			fs.StringVar(&httpAddr, "http", "", "connect over streamable HTTP to 127.0.0.1`:PORT` (writes the bearer token)")
			fs.StringVar(&profile, "profile", "", "connect the client to profile `NAME` (an entry named capabilities-NAME)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs one client: claude-code, claude-desktop, cursor or vscode (or app)")
			}
			if args[0] == "app" {
				if printOnly || httpAddr != "" || profile != "" {
					return usagef("install app takes no flags")
				}
				return installApp(e)
			}
			cc, err := clients.ClientConfigFor(args[0], e.UserHome, e.UserConfig, runtime.GOOS)
			if err != nil {
				return &usageError{msg: err.Error()}
			}
			home := e.Getenv("CAPABILITIES_HOME")
			if home != "" {
				home = e.home()
			}
			if profile != "" {
				cfg, _, err := e.loadConfig()
				if err != nil {
					return err
				}
				if cfg.Profile(profile) == nil {
					return unknownProfile(cfg, profile)
				}
			}
			name := clients.EntryName(profile)
			entry := clients.ProfileShimEntry(cc.Client, e.clientExe(), home, profile)
			if httpAddr != "" {
				url, err := localapi.HTTPEndpointURL(httpAddr)
				if profile != "" {
					url, err = localapi.HTTPProfileURL(httpAddr, profile)
				}
				if err != nil {
					return &usageError{msg: err.Error()}
				}
				kc, err := e.keychain()
				if err != nil {
					return err
				}
				tok, err := localapi.HTTPToken(kc)
				if err != nil {
					return err
				}
				if entry, err = clients.HTTPEntry(cc.Client, url, tok); err != nil {
					return err
				}
			}
			if printOnly {
				b, _ := json.MarshalIndent(map[string]any{cc.Key: map[string]any{name: entry}}, "", "  ")
				fmt.Fprintf(e.Stdout, "# %s\n%s\n", cc.Path, b)
				return nil
			}
			res, err := clients.InstallNamed(cc, name, entry, time.Now())
			if err != nil {
				return err
			}
			if !res.Changed {
				fmt.Fprintf(e.Stdout, "%s already runs %s (%s).\n", cc.Client, name, res.Path)
				return nil
			}
			fmt.Fprintf(e.Stdout, "Added %s to %s (%s).\n", name, cc.Client, res.Path)
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
			written, err := packaging.Autostart(on, packaging.AutostartOptions{Exe: e.clientExe(), Home: e.UserHome, ConfigDir: e.Getenv("XDG_CONFIG_HOME")})
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

// installPaths are where 'install app' puts the app for this user.
func (e *env) installPaths() packaging.AppPaths {
	return packaging.InstallPaths(e.UserHome, e.Getenv("XDG_DATA_HOME"), e.IsRoot)
}

// clientExe is the binary client entries and autostart run: the installed
// one when there is one, else this one.
func (e *env) clientExe() string {
	if bin := e.installPaths().Binary(); fileExists(bin) {
		return bin
	}
	return e.Exe
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// installApp installs this binary, the launcher and the icons, then points
// every client entry and the start-at-login entry at the installed binary.
func installApp(e *env) error {
	paths := e.installPaths()
	written, err := packaging.InstallApp(paths, e.Exe, assets.Icon, assets.IconSVG)
	for _, w := range written {
		fmt.Fprintf(e.Stdout, "Installed %s\n", w)
	}
	if err != nil {
		return err
	}
	bin := paths.Binary()
	if len(written) == 0 || written[0] != bin {
		fmt.Fprintf(e.Stdout, "%s is installed.\n", bin)
	}
	now := time.Now()
	for _, cc := range clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS) {
		res, err := clients.Repoint(cc, bin, now)
		if err != nil {
			fmt.Fprintf(e.Stderr, "warning: %s: %v\n", cc.Client, oneLine(err.Error()))
			continue
		}
		if res.Changed {
			fmt.Fprintf(e.Stdout, "%s now runs %s (%s; backup %s)\n", cc.Client, bin, res.Path, res.Backup)
		}
	}
	auto := packaging.AutostartOptions{Exe: bin, Home: e.UserHome, ConfigDir: e.Getenv("XDG_CONFIG_HOME")}
	if packaging.AutostartEnabled(auto) {
		if _, err := packaging.Autostart(true, auto); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "The hub starts at login from %s.\n", bin)
	}
	if !onPath(e.Getenv("PATH"), paths.BinDir) {
		fmt.Fprintf(e.Stdout, "Add %s to your PATH to run capabilities by name.\n", paths.BinDir)
	}
	fmt.Fprintln(e.Stdout, "A hub already running from an older binary is replaced when a client next connects.")
	return nil
}

func onPath(path, dir string) bool {
	for _, p := range filepath.SplitList(path) {
		if filepath.Clean(p) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
