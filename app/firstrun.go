package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/keychain"
)

// firstRun sets up a home that has no config.json yet. With nothing found
// in the person's clients it starts with the reference servers memory and
// filesystem (when npx is there). Servers found are imported only when a
// person is there to choose (a terminal on stdin and stdout); a hub that a
// client or the login session started imports nothing and leaves the offer
// open for the tray, the window, `hub status`, `doctor` and `setup`. It
// always leaves a config.json behind, so it runs once; created reports
// that it ran.
func firstRun(e *env, kc keychain.Keychain) (created bool, err error) {
	paths := config.Paths{Home: e.home()}
	if _, err := os.Stat(paths.Config()); err == nil || !errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return true, setUpHome(e, kc, paths)
}

// setUpHome writes the config.json of a new home (firstRun).
func setUpHome(e *env, kc keychain.Keychain, paths config.Paths) error {
	fmt.Fprintf(e.Stderr, "First run: setting up %s\n", paths.Home)
	found, problems := clients.Discover(clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS))
	for _, p := range problems {
		fmt.Fprintf(e.Stderr, "  skipped: %v\n", oneLine(p.Error()))
	}
	cfg := &config.Config{Sources: map[string]*config.Source{}, Policy: map[string]config.Mode{}}
	switch {
	case len(found) > 0 && e.personPresent():
		if err := cfg.Save(paths.Config()); err != nil {
			return err
		}
		if err := offerInTerminal(e, kc, found, false); err != nil {
			// The hub starts all the same; what was not imported stays
			// in the clients.
			fmt.Fprintf(e.Stderr, "Import: %v\n", oneLine(err.Error()))
		}
	case len(found) > 0:
		if err := cfg.Save(paths.Config()); err != nil {
			return err
		}
		if err := clients.SaveImportOffer(paths, clients.NewImportOffer(found, time.Now())); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "Found %d MCP %s in your clients; nothing imported without you. Import them from the tray menu, or run 'capabilities setup' in a terminal.\n",
			len(found), plural(len(found), "server", "servers"))
		return nil
	default:
		if npx, err := exec.LookPath("npx"); err == nil {
			if err := os.MkdirAll(paths.Files(), 0o700); err != nil {
				return err
			}
			cfg.Sources = clients.DefaultSources(paths, npx)
			fmt.Fprintf(e.Stderr, "No MCP servers found in your clients; starting with the reference servers memory and filesystem (scoped to %s).\n", paths.Files())
		} else {
			fmt.Fprintln(e.Stderr, "No MCP servers found and no npx to start the reference ones; add a source with 'capabilities source add'.")
		}
		if err := cfg.Save(paths.Config()); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.Stderr, "Wrote %s. Connect a client with 'capabilities install claude-code' (or claude-desktop, cursor, vscode).\n", paths.Config())
	return nil
}

// offerInTerminal lists the found servers, asks which to import and
// whether to move them out of the clients' files, and imports them.
// assumeAll imports and moves all without asking.
func offerInTerminal(e *env, kc keychain.Keychain, found []clients.Found, assumeAll bool) error {
	w := e.Stdout
	fmt.Fprintf(w, "Found %d MCP %s in your clients:\n", len(found), plural(len(found), "server", "servers"))
	for i, f := range found {
		fmt.Fprintf(w, "  %d. %s\n", i+1, offerLine(f))
	}
	in := bufio.NewReader(e.Stdin)
	picked := make([]int, len(found))
	for i := range picked {
		picked[i] = i
	}
	move := true
	if !assumeAll {
		for answered := false; !answered; {
			fmt.Fprint(w, "Import which? [a]ll, [n]one, or numbers (1 3): ")
			line, err := in.ReadString('\n')
			if err != nil && strings.TrimSpace(line) == "" {
				// No answer (standard input ended): the offer stays open.
				fmt.Fprintln(w)
				if serr := clients.SaveImportOffer(config.Paths{Home: e.home()}, clients.NewImportOffer(found, time.Now())); serr != nil {
					return serr
				}
				fmt.Fprintln(w, "No answer; nothing imported. 'capabilities setup' or the tray menu offers them again.")
				return nil
			}
			sel, perr := parseSelection(line, len(found))
			switch {
			case perr == nil:
				picked, answered = sel, true
			case err != nil:
				return perr
			default:
				fmt.Fprintf(w, "  %v\n", perr)
			}
		}
		if len(picked) == 0 {
			clients.CloseImportOffer(config.Paths{Home: e.home()})
			fmt.Fprintln(w, "Nothing imported. 'capabilities setup' offers them again.")
			return nil
		}
		fmt.Fprint(w, "Move them out of the clients' files, so they run only once, through capabilities? The files are backed up first. [Y/n]: ")
		line, err := in.ReadString('\n')
		// Without an answer nothing is moved: moving edits the clients' files.
		move = yesDefault(line) && (err == nil || strings.TrimSpace(line) != "")
	}
	choices := make([]clients.ImportChoice, len(picked))
	for i, n := range picked {
		choices[i] = clients.ImportChoice{Name: found[n].Name, Move: move}
	}
	rep, err := importFound(e, kc, found, choices)
	printImportReport(w, rep)
	return err
}

// importFound imports chosen servers into this home, writing the shim
// entry of this binary into the client files servers move out of.
func importFound(e *env, kc keychain.Keychain, found []clients.Found, choices []clients.ImportChoice) (clients.ImportReport, error) {
	exe, home := e.clientExe(), e.Getenv("CAPABILITIES_HOME")
	if home != "" {
		home = e.home()
	}
	return clients.ImportFound(config.Paths{Home: e.home()}, kc, found, choices,
		func(client string) map[string]any { return clients.ShimEntry(client, exe, home) }, time.Now())
}

func printImportReport(w io.Writer, rep clients.ImportReport) {
	for _, n := range rep.Imported {
		fmt.Fprintf(w, "Imported %s (namespace %s).\n", n, naming.Namespace(n))
	}
	for _, n := range rep.Skipped {
		fmt.Fprintf(w, "Skipped %s: a source of that name exists.\n", n)
	}
	for _, s := range rep.Secrets {
		fmt.Fprintf(w, "Moved %s into the keychain.\n", s)
	}
	for _, f := range rep.Files {
		fmt.Fprintf(w, "Moved out of %s: capabilities runs them now (backup %s).\n", f.Path, f.Backup)
	}
}

// offerLine is one found server as the terminal lists it.
func offerLine(f clients.Found) string {
	var from []string
	for _, cc := range f.In {
		from = append(from, cc.Client)
	}
	s := fmt.Sprintf("%-20s from %s (%s)", f.Name, strings.Join(from, ", "), f.File)
	if len(f.Moved) > 0 {
		var names []string
		for _, m := range f.Moved {
			names = append(names, strings.TrimPrefix(m, f.Name+"."))
		}
		s += "; secret " + strings.Join(names, ", ") + " moves to the keychain"
	}
	return s
}

// parseSelection reads an answer to "Import which?" for n servers: "a",
// "all" or "" (all), "n" or "none", or numbers from 1 to n separated by
// spaces or commas. It returns 0-based indexes, sorted, without repeats.
func parseSelection(line string, n int) ([]int, error) {
	line = strings.ToLower(strings.TrimSpace(line))
	switch line {
	case "", "a", "all", "y", "yes":
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	case "n", "no", "none":
		return []int{}, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > n {
			return nil, fmt.Errorf("%q: answer a, n, or numbers from 1 to %d", f, n)
		}
		if !seen[k-1] {
			seen[k-1] = true
			out = append(out, k-1)
		}
	}
	sort.Ints(out)
	return out, nil
}

// yesDefault reads a [Y/n] answer.
func yesDefault(line string) bool {
	a := strings.ToLower(strings.TrimSpace(line))
	return a != "n" && a != "no"
}

func setupCommand() *command {
	var all bool
	var only string
	var move bool
	return &command{
		name: "setup", args: "[--all | --only NAME,NAME [--move]]",
		summary: "Import the MCP servers your clients run (the first-run offer), choosing in a terminal",
		long: `Looks for the MCP servers of Claude Code, Claude Desktop, Cursor and VS Code,
lists them and asks which to import and whether to move them out of the
clients' files (their entries and plaintext secrets give way to the
capabilities entry, after a backup, so a server does not run twice). Secrets
move into the keychain. A hub started by a client or at login imports
nothing: this command, or the tray menu, takes up its offer.

Without a terminal, --all imports and moves everything, and --only imports
the named servers (moved with --move).`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&all, "all", false, "import and move every server found, without asking")
			fs.StringVar(&only, "only", "", "import only these comma-separated `NAMES`, without asking")
			fs.BoolVar(&move, "move", false, "with --only: move them out of the clients' files")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			if all && only != "" {
				return usagef("takes --all or --only, not both")
			}
			if move && only == "" {
				return usagef("--move goes with --only")
			}
			if !all && only == "" && !e.personPresent() {
				return withHint(errors.New("no terminal to ask on"), "run it in a terminal, or pass --all or --only NAME,NAME")
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			if _, _, err := e.loadConfig(); err != nil {
				return err
			}
			found, problems := clients.Discover(clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS))
			for _, p := range problems {
				fmt.Fprintf(e.Stderr, "skipped: %v\n", oneLine(p.Error()))
			}
			if len(found) == 0 {
				clients.CloseImportOffer(config.Paths{Home: e.home()})
				fmt.Fprintln(e.Stdout, "No MCP servers found in your clients.")
				return nil
			}
			if only != "" {
				var choices []clients.ImportChoice
				have := map[string]bool{}
				for _, f := range found {
					have[f.Name] = true
				}
				for _, n := range splitList(only) {
					if !have[n] {
						var names []string
						for _, f := range found {
							names = append(names, f.Name)
						}
						return withHint(fmt.Errorf("--only %s: no server of that name was found", n), "found: "+strings.Join(names, ", "))
					}
					choices = append(choices, clients.ImportChoice{Name: n, Move: move})
				}
				rep, err := importFound(e, kc, found, choices)
				printImportReport(e.Stdout, rep)
				return err
			}
			return offerInTerminal(e, kc, found, all)
		},
	}
}
