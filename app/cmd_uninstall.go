package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/packaging"
)

func uninstallCommand() *command {
	var all, yes bool
	return &command{
		name: "uninstall", args: "CLIENT | --all [--yes]",
		summary: "Disconnect a client from the hub, or remove everything capabilities set up",
		long: `'uninstall CLIENT' (claude-code, claude-desktop, cursor, vscode) removes the
"capabilities" entry from that client's MCP config, after a backup, and keeps
the rest of the file.

'uninstall --all' also removes the start-at-login entry, the launcher and
icons, and this home's secrets in the keychain (` + "`CAPABILITIES_HOME`" + `'s
service). It lists what it removes and asks first; --yes does not ask.
Without a terminal it needs --yes. It leaves config.json, the database and
the binary (other homes may run it).`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&all, "all", false, "remove every client entry, autostart, the launcher and this home's keychain entries")
			fs.BoolVar(&yes, "yes", false, "with --all: do not ask")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			now := time.Now()
			if !all {
				if len(args) != 1 {
					return usagef("needs one client (claude-code, claude-desktop, cursor, vscode) or --all")
				}
				if yes {
					return usagef("--yes goes with --all")
				}
				cc, err := clients.ClientConfigFor(args[0], e.UserHome, e.UserConfig, runtime.GOOS)
				if err != nil {
					return &usageError{msg: err.Error()}
				}
				res, err := clients.Uninstall(cc, now)
				if err != nil {
					return err
				}
				if !res.Changed {
					fmt.Fprintf(e.Stdout, "%s has no capabilities entry (%s).\n", cc.Client, cc.Path)
					return nil
				}
				fmt.Fprintf(e.Stdout, "Removed capabilities from %s (%s; backup %s). Restart %s to pick it up.\n", cc.Client, res.Path, res.Backup, cc.Client)
				return nil
			}
			if len(args) > 0 {
				return usagef("--all takes no client")
			}
			return uninstallAll(e, yes, now)
		},
	}
}

// uninstallAll removes what capabilities set up for this user and home,
// after saying what and asking (unless yes).
func uninstallAll(e *env, yes bool, now time.Time) error {
	if !yes && !e.personPresent() {
		return withHint(errors.New("no terminal to ask on"), "pass --yes to remove everything without asking")
	}
	kc, err := e.keychain()
	if err != nil {
		return err
	}
	var installed []clients.ClientConfig
	for _, cc := range clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS) {
		if clients.HasEntry(cc) {
			installed = append(installed, cc)
		}
	}
	auto := packaging.AutostartOptions{Exe: e.clientExe(), Home: e.UserHome, ConfigDir: e.Getenv("XDG_CONFIG_HOME")}
	paths := e.installPaths()
	fmt.Fprintln(e.Stdout, "This removes:")
	for _, cc := range installed {
		fmt.Fprintf(e.Stdout, "  the capabilities entry of %s (%s), after a backup\n", cc.Client, cc.Path)
	}
	if packaging.AutostartEnabled(auto) {
		fmt.Fprintln(e.Stdout, "  starting the hub at login")
	}
	for _, f := range append([]string{paths.DesktopFile()}, paths.Icons()...) {
		if fileExists(f) {
			fmt.Fprintf(e.Stdout, "  %s\n", f)
		}
	}
	fmt.Fprintf(e.Stdout, "  every secret of %s in the keychain (service %q): sources lose their connections' secrets\n", e.home(), kc.ServiceName())
	if !yes {
		fmt.Fprint(e.Stdout, "Remove all of this? [y/N]: ")
		line, _ := bufio.NewReader(e.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(e.Stdout, "Nothing removed.")
			return nil
		}
	}
	var errs []string
	for _, cc := range installed {
		res, err := clients.Uninstall(cc, now)
		if err != nil {
			errs = append(errs, err.Error())
		} else if res.Changed {
			fmt.Fprintf(e.Stdout, "Removed capabilities from %s (backup %s).\n", cc.Client, res.Backup)
		}
	}
	if removed, err := packaging.Autostart(false, auto); err != nil {
		errs = append(errs, err.Error())
	} else {
		for _, r := range removed {
			fmt.Fprintf(e.Stdout, "Removed %s\n", r)
		}
	}
	if removed, err := packaging.UninstallApp(paths); err != nil {
		errs = append(errs, err.Error())
	} else {
		for _, r := range removed {
			fmt.Fprintf(e.Stdout, "Removed %s\n", r)
		}
	}
	if err := kc.DeleteAll(); err != nil {
		errs = append(errs, err.Error())
	} else {
		fmt.Fprintf(e.Stdout, "Removed this home's keychain entries (%s).\n", kc.ServiceName())
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	if fileExists(paths.Binary()) {
		fmt.Fprintf(e.Stdout, "Left %s, config.json and the database in %s; remove them by hand if you wish.\n", paths.Binary(), e.home())
	} else {
		fmt.Fprintf(e.Stdout, "Left config.json and the database in %s.\n", e.home())
	}
	return nil
}
