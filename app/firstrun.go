package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/keychain"
)

// firstRun sets up a home that has no config.json yet: it imports the MCP
// servers the person's clients already use (asking which, on a terminal),
// or, with none found, starts with the reference servers memory and
// filesystem when npx is there. It always leaves a config.json behind, so
// it runs once.
func firstRun(e *env, kc keychain.Keychain) error {
	paths := hub.Paths{Home: e.home()}
	if _, err := os.Stat(paths.Config()); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	fmt.Fprintf(e.Stderr, "First run: setting up %s\n", paths.Home)
	cfg := &hub.Config{Sources: map[string]*hub.Source{}, Policy: map[string]hub.Mode{}}
	found, problems := hub.Discover(hub.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS))
	for _, p := range problems {
		fmt.Fprintf(e.Stderr, "  skipped: %v\n", oneLine(p.Error()))
	}
	if len(found) > 0 {
		fmt.Fprintf(e.Stderr, "Found %d MCP %s in your clients:\n", len(found), pluralWord(len(found), "server", "servers"))
		for _, f := range found {
			fmt.Fprintf(e.Stderr, "  %-20s from %s (%s)\n", f.Name, f.Client, f.File)
		}
		in := bufio.NewReader(e.Stdin)
		for _, f := range found {
			if e.StdinIsTerminal {
				fmt.Fprintf(e.Stderr, "Import %s? [Y/n] ", f.Name)
				line, _ := in.ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a == "n" || a == "no" {
					continue
				}
			}
			stored := true
			for key, secret := range f.Secrets {
				if err := kc.Set(key, secret); err != nil {
					fmt.Fprintf(e.Stderr, "  not importing %s: its secrets cannot go to the keychain: %v\n", f.Name, oneLine(err.Error()))
					stored = false
					break
				}
			}
			if !stored {
				continue
			}
			if err := cfg.AddSource(paths.Config(), f.Name, f.Source, false); err != nil {
				fmt.Fprintf(e.Stderr, "  not importing %s: %v\n", f.Name, oneLine(err.Error()))
				continue
			}
			fmt.Fprintf(e.Stderr, "  imported %s", f.Name)
			if len(f.Moved) > 0 {
				fmt.Fprintf(e.Stderr, " (moved %s into the keychain)", strings.Join(f.Moved, ", "))
			}
			fmt.Fprintln(e.Stderr)
		}
	} else if npx, err := exec.LookPath("npx"); err == nil {
		if err := os.MkdirAll(paths.Files(), 0o700); err != nil {
			return err
		}
		cfg.Sources = hub.DefaultSources(paths, npx)
		fmt.Fprintf(e.Stderr, "No MCP servers found in your clients; starting with the reference servers memory and filesystem (scoped to %s).\n", paths.Files())
	} else {
		fmt.Fprintln(e.Stderr, "No MCP servers found and no npx to start the reference ones; add a source with 'capabilities source add'.")
	}
	if err := cfg.Save(paths.Config()); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "Wrote %s. Connect a client with 'capabilities install claude-code' (or claude-desktop, cursor, vscode).\n", paths.Config())
	return nil
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
