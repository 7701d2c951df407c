package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/hub/mcpserver"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hiddentext"
	"capabilities.sh/capabilities/internal/proc"
	"capabilities.sh/capabilities/sandbox"
)

func hubCommand() *command {
	var headless, window bool
	var httpAddr string
	return &command{
		name:    "hub",
		summary: "Run the hub (tray app), or talk to the running one",
		args:    "[--headless] [--window] [--http :PORT]",
		long: `Without a subcommand, runs the hub: the tray icon, approval dialogs and the
local API that 'capabilities mcp' shims and this CLI use. One hub runs per
CAPABILITIES_HOME. Where there is no display it runs headless. With --window
(the desktop launcher's way) it opens its window too; the first time, on the
servers found in your clients to import, or on the Clients tab to connect
one. Started again while it runs, it opens the running hub's window.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&headless, "headless", false, "run without the tray and dialogs")
			fs.BoolVar(&window, "window", false, "open the window once the hub runs")
			fs.StringVar(&httpAddr, "http", "", "also serve MCP over streamable HTTP on 127.0.0.1`:PORT` (bearer token in the keychain)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("unknown subcommand %q (status, open, stop, runs, approve, changes, accept)", args[0])
			}
			if headless && window {
				return usagef("takes --headless or --window, not both")
			}
			return runHub(ctx, e, hubRunOptions{headless: headless, window: window, httpAddr: httpAddr})
		},
		subs: []*command{hubStatusCommand(), hubStopCommand(), hubOpenCommand(), hubRunsCommand(), hubApproveCommand(), hubChangesCommand(), hubAcceptCommand(), hubAutostartCommand(), hubTokenCommand()},
	}
}

type hubRunOptions struct {
	headless bool
	window   bool // open the main window once the UI runs
	httpAddr string
	embedded bool // in the mcp command's process: no UI, MCP on stdio
}

// newDriver is the sandbox for model code: a pool of worker processes of
// this same binary.
func newDriver(e *env) (sandbox.Driver, error) {
	return sandbox.NewPool(sandbox.PoolOptions{Command: []string{e.Exe, workerCommand}, Size: 2})
}

const workerCommand = "__sandbox-worker"

func workerCmd() *command {
	return &command{
		name:     workerCommand,
		hidden:   true,
		protocol: true,
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			return sandbox.ServeWorker(ctx, e.Stdin, e.Stdout)
		},
	}
}

const openapiCommand = "__openapi-parse"

// openapiChild parses the hub's OpenAPI documents in this binary re-run as
// openapiCommand, so the hub never holds a document's parsed model. With
// no binary to re-run (an env that names none, as in-process tests make),
// the documents are parsed in process.
func openapiChild(e *env) *openapi.Child {
	if e.Exe == "" {
		return nil
	}
	var env []string
	if root := e.Getenv("SYSTEMROOT"); root != "" {
		env = append(env, "SYSTEMROOT="+root) // Windows needs it to start a process
	}
	return &openapi.Child{Command: []string{e.Exe, openapiCommand}, Env: env, CacheDir: config.Paths{Home: e.home()}.OpenAPICache()}
}

func openapiCmd() *command {
	return &command{
		name:     openapiCommand,
		args:     "-- FILE|URL",
		hidden:   true,
		protocol: true,
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("takes the document's file or URL; the document comes on stdin")
			}
			return openapi.ServeChild(e.Stdin, e.Stdout, args[0])
		},
	}
}

// openHub opens the hub of CAPABILITIES_HOME in this process.
//
// Model code from MCP clients runs in worker processes (pool); a hub opened
// for one CLI command that runs no model code uses the in-process driver,
// which starts nothing.
func openHub(ctx context.Context, e *env, log *slog.Logger, poll time.Duration, pool bool) (*hub.Hub, error) {
	var drv sandbox.Driver
	if pool {
		var err error
		if drv, err = newDriver(e); err != nil {
			return nil, err
		}
	} else {
		drv = sandbox.NewInProcess()
	}
	kc, err := e.keychain()
	if err != nil {
		drv.Close()
		return nil, err
	}
	h, err := hub.New(ctx, hub.Options{Home: e.home(), Keychain: kc, Logger: log, Driver: drv, ConfigPoll: poll, OpenAPIChild: openapiChild(e)})
	if err != nil {
		return nil, withHint(err, "check config.json and the database in "+e.home())
	}
	return h, nil
}

func runHub(ctx context.Context, e *env, o hubRunOptions) error {
	log, closeLog, err := newLogger(e, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer closeLog()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if c, err := e.client(ctx); err == nil {
		defer c.Close()
		// Launched again (from the desktop's menu, say): show the running
		// hub's window instead.
		if !o.headless && displayAvailable(e) && c.Open(ctx, "") == nil {
			fmt.Fprintf(e.Stdout, "The hub for %s already runs; opened its window.\n", e.home())
			return nil
		}
		return withHint(fmt.Errorf("a hub already runs for %s", e.home()), "use 'capabilities hub status', or 'capabilities hub stop' first")
	}
	kc, err := e.keychain()
	if err != nil {
		return err
	}
	created, err := firstRun(e, kc)
	if err != nil {
		return err
	}
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
	win := newWindowRequests()
	var bearer *localapi.HTTPBearer
	if o.httpAddr != "" {
		if bearer, err = localapi.NewHTTPBearer(kc); err != nil {
			return err
		}
	}
	// One registry of the connected clients for the socket and HTTP.
	sessions := mcpserver.NewSessions()
	servers := mcpserver.NewServers(h, mcpserver.Options{Version: version, Logger: h.Logger(), Sessions: sessions})
	defer servers.Close()
	svc, err = localapi.Listen(localapi.ServiceOptions{
		Paths:     h.Paths(),
		Logger:    log,
		MCPServer: servers.All(),
		Profiles:  servers.Server,
		Handler:   localapi.NewHandler(h, localapi.APIOptions{Version: version, Exe: e.Exe, Stop: stop, Open: win.open, HTTPBearer: bearer, Sessions: sessions}),
	})
	if err != nil {
		if errors.Is(err, localapi.ErrHubRunning) {
			return withHint(err, "use 'capabilities hub status', or 'capabilities hub stop' first")
		}
		return err
	}
	// Everything started from here ends before the hub closes (the
	// deferred h.Close): the local API, the HTTP endpoint, fillCatalog.
	served := make(chan error, 1)
	go func() { served <- svc.Serve(ctx) }()
	var httpDone <-chan error
	var bg sync.WaitGroup
	defer func() {
		stop()
		bg.Wait()
	}()
	fail := func(err error) error {
		stop()
		<-served
		return err
	}
	if bearer != nil {
		httpServers := mcpserver.NewServers(h, mcpserver.Options{Version: version, Logger: h.Logger(), Sessions: sessions})
		defer httpServers.Close()
		addr, done, err := localapi.ServeHTTP(ctx, localapi.HTTPOptions{Addr: o.httpAddr, Token: bearer.Token, MCPServer: httpServers.All(), Profiles: httpServers.Server, Logger: log,
			MaxBodyBytes: int64(h.Limits().ArgsBytes) + 1<<20})
		if err != nil {
			return fail(err)
		}
		httpDone = done
		log.Info("serving MCP over streamable HTTP", "addr", "http://"+addr+"/mcp", "token", "in the keychain (hub/http-token)")
	}
	log.Info("hub running", "home", e.home(), "socket", svc.Addr(), "pid", os.Getpid())
	bg.Go(func() { fillCatalog(ctx, h, log) })
	bg.Go(func() { releaseMemory(ctx, memoryCheckEvery) })

	if !o.headless && displayAvailable(e) {
		win.up.Store(true)
		if o.window {
			// The window of a home set up just now opens on the next
			// step: the import of the servers found in the person's
			// clients (on the Sources tab), or connecting a client.
			tab := ""
			if created {
				tab = "Clients"
				if offer, _ := clients.LoadImportOffer(h.Paths()); offer != nil && len(offer.Servers) > 0 {
					tab = "Sources"
				}
			}
			log.Info("opening the window", "tab", cmp.Or(tab, "as last left"))
			win.open(tab)
		}
		err := runUI(ctx, e, h, log, win.shows, sessions)
		win.up.Store(false)
		if err != nil && !errors.Is(err, errNoUI) {
			log.Error("the tray app stopped", "err", err)
		}
		stop()
	} else {
		if !o.headless {
			log.Info("no display: running headless (approve with 'capabilities hub approve RUNID')")
		}
		<-ctx.Done()
	}
	err = <-served
	if httpDone != nil {
		if herr := <-httpDone; err == nil {
			err = herr
		}
	}
	return err
}

// windowRequests carries 'capabilities hub open' to the tray app while it
// runs.
type windowRequests struct {
	up    atomic.Bool
	shows chan string
}

func newWindowRequests() *windowRequests { return &windowRequests{shows: make(chan string, 1)} }

// open asks the tray app for its main window on tab; one waiting request
// is enough, so a second one while it waits is dropped.
func (w *windowRequests) open(tab string) error {
	if !w.up.Load() {
		return errors.New("this hub runs without a window (headless, or no display)")
	}
	select {
	case w.shows <- tab:
	default:
	}
	return nil
}

// fillCatalog lists every source's tools once at start, with progress.
func fillCatalog(ctx context.Context, h *hub.Hub, log *slog.Logger) {
	n := len(h.Config().Sources)
	if n == 0 {
		log.Info("no sources yet: add one with 'capabilities source add' or import a client config")
		return
	}
	log.Info("starting sources and listing their tools", "sources", n)
	start := time.Now()
	errs := h.Refresh(ctx)
	st, _ := h.Status(ctx)
	log.Info("catalog ready", "tools", st.Tools, "sources", n, "failed", len(errs), "took", time.Since(start).Round(time.Millisecond))
}

func displayAvailable(e *env) bool {
	return e.Getenv("DISPLAY") != "" || e.Getenv("WAYLAND_DISPLAY") != "" || runtimeHasNativeDisplay
}

// client returns a local API client when a hub runs for this home.
func (e *env) client(ctx context.Context) (*localapi.Client, error) {
	return localapi.Dial(ctx, config.Paths{Home: e.home()})
}

// withHub runs f against the running hub's API, or, with none running,
// against a hub opened in this process (local=true).
func withHub(ctx context.Context, e *env, api func(*localapi.Client) error, local func(*hub.Hub) error) error {
	return withHubOpts(ctx, e, false, api, local)
}

// withHubOpts is withHub; pool says whether a local hub runs model code.
func withHubOpts(ctx context.Context, e *env, pool bool, api func(*localapi.Client) error, local func(*hub.Hub) error) error {
	c, err := e.client(ctx)
	if err == nil {
		defer c.Close()
		return apiErr(api(c))
	}
	if !errors.Is(err, localapi.ErrNoHub) {
		return err
	}
	h, err := openHub(ctx, e, cliLog(e.Stderr), -1, pool)
	if err != nil {
		return err
	}
	defer h.Close()
	return local(h)
}

// apiErr turns the API's error into one with a hint for the CLI.
func apiErr(err error) error {
	var ae *localapi.APIError
	if errors.As(err, &ae) {
		return withHint(errors.New(ae.Message), ae.Hint)
	}
	return err
}

func hubStatusCommand() *command {
	var asJSON bool
	return &command{
		name: "status", args: "[--json]", summary: "Show the running hub: sources, tools, pending approvals, runs today",
		flags: func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") },
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			c, err := e.client(ctx)
			if errors.Is(err, localapi.ErrNoHub) {
				fmt.Fprintf(e.Stdout, "No hub is running for %s. Start it with 'capabilities hub' (an MCP client starts it through 'capabilities mcp').\n", e.home())
				return &exitError{code: exitFailure}
			}
			if err != nil {
				return err
			}
			defer c.Close()
			st, err := c.Status(ctx)
			if err != nil {
				return apiErr(err)
			}
			if asJSON {
				return printJSON(e.Stdout, st)
			}
			paused := ""
			if st.Paused {
				paused = " (paused)"
			}
			fmt.Fprintf(e.Stdout, "Hub running%s: pid %d, home %s, version %s\n", paused, st.PID, st.Home, st.Version)
			fmt.Fprintf(e.Stdout, "%d %s, %d pending %s, %d %s today\n", st.Tools, plural(st.Tools, "tool", "tools"),
				st.Pending, plural(st.Pending, "approval", "approvals"), st.RunsToday, plural(st.RunsToday, "run", "runs"))
			if st.ConfigError != "" {
				fmt.Fprintf(e.Stdout, "config.json has problems (serving the last good version): %s\n", st.ConfigError)
			}
			if st.Refused != "" {
				fmt.Fprintf(e.Stdout, "config.json has sources that are not served: %s\n", st.Refused)
			}
			if st.ImportOffer > 0 {
				fmt.Fprintf(e.Stdout, "Import offer open: %d MCP %s found in your clients; import them with 'capabilities setup' or from the tray menu.\n",
					st.ImportOffer, plural(st.ImportOffer, "server", "servers"))
			}
			var changes []hub.ToolChangeInfo
			if c.Do(ctx, "GET", "/v1/changes", nil, &changes) == nil && len(changes) > 0 {
				fmt.Fprintf(e.Stdout, "%s ('capabilities hub changes' shows what changed).\n", changesStatus(changes))
			}
			for _, dir := range slices.Sorted(maps.Keys(st.SkippedSkills)) {
				fmt.Fprintf(e.Stdout, "skill folder skipped: %s: %s\n", dir, oneLine(st.SkippedSkills[dir]))
			}
			if len(st.Sources) > 0 {
				tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "\nSOURCE\tSTATE\tTOOLS\tCONNECTIONS\tERROR")
				for _, s := range st.Sources {
					conns := "-"
					if len(s.Connections) > 0 {
						var parts []string
						for _, c := range s.Connections {
							if c == s.Default {
								c += "*"
							}
							parts = append(parts, c)
						}
						conns = strings.Join(parts, ", ")
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.Name, s.State, s.Tools, conns, oneLine(s.Error))
				}
				tw.Flush()
				for _, s := range st.Sources {
					for _, w := range s.Warnings {
						fmt.Fprintf(e.Stdout, "warning: %s: %s\n", s.Name, oneLine(w))
					}
					if s.Waiting > 0 {
						fmt.Fprintf(e.Stdout, "credentials: %s: %d of %d operations wait for %s\n", s.Name, s.Waiting, s.Tools, oneLine(s.Need))
					}
					for _, si := range s.SignIns {
						fmt.Fprintf(e.Stdout, "sign-in: %s (%s): %s", s.Name, connectionWords(si.Connection), oneLine(si.Summary))
						if !si.SignedIn && !si.SigningIn {
							fmt.Fprintf(e.Stdout, "; run '%s'", loginCommand(s.Name, si.Connection))
						}
						fmt.Fprintln(e.Stdout)
					}
					if fix := stateFix(s.State, s.Name, s.Default); fix != "" {
						fmt.Fprintf(e.Stdout, "%s: %s; run '%s'\n", s.Name, oneLine(s.Summary), fix)
					}
				}
			}
			return nil
		},
	}
}

func hubStopCommand() *command {
	return &command{
		name: "stop", args: "", summary: "Stop the running hub",
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			c, err := e.client(ctx)
			if errors.Is(err, localapi.ErrNoHub) {
				fmt.Fprintf(e.Stdout, "No hub is running for %s.\n", e.home())
				return nil
			}
			if err != nil {
				return err
			}
			defer c.Close()
			st, _ := c.Status(ctx) // its pid, to wait for it to exit
			if err := c.Stop(ctx); err != nil {
				return apiErr(err)
			}
			// Wait until the socket stops answering, then until the hub
			// has closed (it keeps the home's lock until then).
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				c2, err := e.client(ctx)
				if errors.Is(err, localapi.ErrNoHub) && (st.PID <= 0 || !proc.Alive(st.PID)) {
					fmt.Fprintln(e.Stdout, "Hub stopped.")
					return nil
				}
				if c2 != nil {
					c2.Close()
				}
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := e.client(ctx); errors.Is(err, localapi.ErrNoHub) {
				return fmt.Errorf("the hub (pid %d) stopped serving but has not exited within 10s; it is still closing", st.PID)
			}
			return errors.New("the hub did not stop within 10s")
		},
	}
}

func hubOpenCommand() *command {
	var tab string
	return &command{
		name: "open", args: "[--tab approvals|runs|sources|policy|clients]", summary: "Open the running hub's window",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&tab, "tab", "", "open the window on this `tab`")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			t, err := windowTab(tab)
			if err != nil {
				return err
			}
			c, err := e.client(ctx)
			if errors.Is(err, localapi.ErrNoHub) {
				return withHint(fmt.Errorf("no hub is running for %s", e.home()), "start it with 'capabilities hub'; it opens its window from the tray")
			}
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Open(ctx, t); err != nil {
				return apiErr(err)
			}
			fmt.Fprintln(e.Stdout, "Opened the hub's window.")
			return nil
		},
	}
}

// windowTab maps --tab to the window's tab name.
func windowTab(s string) (string, error) {
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case "approvals", "runs", "sources", "skills", "policy", "clients":
		return strings.ToUpper(s[:1]) + strings.ToLower(s[1:]), nil
	}
	return "", usagef("--tab %q: one of approvals, runs, sources, skills, policy, clients", s)
}

func hubRunsCommand() *command {
	var pending, asJSON bool
	var limit int
	return &command{
		name: "runs", args: "[RUNID] [--pending] [--limit N] [--json]", summary: "List recent runs, or show one run's calls",
		long: `Without RUNID, lists recent runs. With RUNID, shows that run: each of its
calls with its arguments (secrets scrubbed; over 4 KB, their start), its result
or error, its timing, and who decided it through which channel.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&pending, "pending", false, "only runs waiting for a person")
			fs.IntVar(&limit, "limit", 20, "at most `N` runs")
			fs.BoolVar(&asJSON, "json", false, "print JSON")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 1 {
				return usagef("takes at most one RUNID")
			}
			if len(args) == 1 {
				return showRun(ctx, e, args[0], asJSON)
			}
			var runs []hub.RunSummary
			q := fmt.Sprintf("/v1/runs?limit=%d", limit)
			if pending {
				q += "&pending=1"
			}
			err := withHub(ctx, e,
				func(c *localapi.Client) error { return c.Do(ctx, "GET", q, nil, &runs) },
				func(h *hub.Hub) (err error) { runs, err = h.Runs(ctx, limit, pending); return err })
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(e.Stdout, runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(e.Stdout, "No runs.")
				return nil
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTATUS\tCALLS\tCLIENT\tUPDATED\tCODE")
			var waiting []string
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Status, len(r.Calls), orDash(r.Client), r.Updated.Local().Format("15:04:05"), runCodeLine(r.Code))
				if r.Status == hub.StatusAwaitingApproval || r.Status == hub.StatusAwaitingConnection {
					waiting = append(waiting, r.ID)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, id := range waiting {
				fmt.Fprintf(e.Stdout, "%s waits for you: 'capabilities hub approve %s' shows what it needs.\n", id, id)
			}
			return nil
		},
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func hubApproveCommand() *command {
	var yes, deny, always bool
	return &command{
		name: "approve", args: "RUNID [--yes | --deny] [--always]",
		summary: "Decide a run's pending calls from a terminal",
		long: `Shows each call the run waits on (address, connection, redacted arguments,
reason) and asks. --yes allows, --deny denies, --always remembers the decision
for the tool. Works whether or not a hub is running: the decision is stored
and honoured when the model resumes the run.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&yes, "yes", false, "allow without asking")
			fs.BoolVar(&deny, "deny", false, "deny without asking")
			fs.BoolVar(&always, "always", false, "remember the decision for these tools")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs exactly one RUNID")
			}
			if yes && deny {
				return usagef("takes --yes or --deny, not both")
			}
			runID := strings.TrimSpace(args[0])
			if runID == "" {
				// The hub lists every run's pending calls for no run:
				// an empty $RUN must not decide them all.
				return usagef("RUNID is empty; 'capabilities hub runs --pending' lists the runs waiting")
			}
			return withHub(ctx, e,
				func(c *localapi.Client) error {
					var pend []hub.Approval
					if err := c.Do(ctx, "GET", "/v1/pending?run="+url.QueryEscape(runID), nil, &pend); err != nil {
						return err
					}
					return approveLoop(e, runID, pend, yes, deny, always, func(id, d string) error {
						return apiErr(c.Do(ctx, "POST", "/v1/decide", map[string]string{"id": id, "decision": d, "channel": policy.ChannelCLI, "actor": "terminal"}, nil))
					})
				},
				func(h *hub.Hub) error {
					pend, err := h.Pending(ctx, runID)
					if err != nil {
						return err
					}
					return approveLoop(e, runID, pend, yes, deny, always, func(id, d string) error {
						return h.Decide(ctx, id, d, policy.ChannelCLI, "terminal")
					})
				})
		},
	}
}

func hubAcceptCommand() *command {
	var definition string
	return &command{
		name: "accept", args: "ADDRESS|NAMESPACE [--definition HASH]",
		summary: "Accept the changed definition of a tool, so its calls stop asking because of the change",
		long: `A tool whose definition (description, annotations, schema) changed since you
consented to it is marked [changed] in search and describe, and its calls ask
under any allow until you accept the new definition. ADDRESS may use the
JavaScript or the MCP names (memory.openNodes, memory.open_nodes); a namespace
accepts every changed tool in it. A source's changed skill is accepted by its
address, skill:NAMESPACE.PATH, or all of a source's with skill:NAMESPACE.*.
With --definition (the hash 'capabilities hub changes ADDRESS' prints),
ADDRESS is accepted only while its definition is still the one you looked at.
Works whether or not a hub is running; without one, the sources' skills are
as last listed.`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&definition, "definition", "", "accept only this definition (`HASH` as 'hub changes ADDRESS' prints it)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs exactly one ADDRESS")
			}
			var accepted []catalog.ToolChange
			in := map[string]string{"target": args[0], "channel": policy.ChannelCLI, "definition": definition}
			err := withHub(ctx, e,
				func(c *localapi.Client) error { return c.Do(ctx, "POST", "/v1/accept", in, &accepted) },
				func(h *hub.Hub) (err error) {
					accepted, err = localapi.Accept(ctx, h, args[0], definition, policy.ChannelCLI)
					return err
				})
			if err != nil {
				return withHint(err, "changed tools and skills are listed by 'capabilities hub changes'")
			}
			if len(accepted) == 0 {
				fmt.Fprintf(e.Stdout, "Nothing to accept: %s has no changed definition.\n", args[0])
				return nil
			}
			for _, c := range accepted {
				fmt.Fprintf(e.Stdout, "Accepted %s (%s).\n", c.Address, oneLine(c.Change))
			}
			return nil
		},
	}
}

func approveLoop(e *env, runID string, pend []hub.Approval, yes, deny, always bool, decide func(id, decision string) error) error {
	var approvals []hub.Approval
	for _, a := range pend {
		if a.RunID != runID {
			continue // only the run named is decided
		}
		if a.Kind == hub.KindApproval {
			approvals = append(approvals, a)
		} else {
			fmt.Fprintln(e.Stdout, connectionInputLine(a))
		}
	}
	if len(approvals) == 0 {
		return withHint(fmt.Errorf("run %s has no pending approvals", runID), "list waiting runs with 'capabilities hub runs --pending'")
	}
	if !yes && !deny && !e.StdinIsTerminal {
		return usagef("no terminal to ask on: pass --yes or --deny")
	}
	in := bufio.NewReader(e.Stdin)
	planShown := false
	if plan := plannedCalls(approvals); len(plan) > 0 {
		showPlan(e, runID, plan)
		planShown = true
		if !yes && !deny {
			d, err := askPlan(e, in, len(plan))
			if err != nil {
				return err
			}
			switch d {
			case hub.AllowOnce, hub.AllowAlways:
				yes, always = true, d == hub.AllowAlways
			case hub.DenyOnce, hub.DenyAlways:
				deny, always = true, d == hub.DenyAlways
			default:
				planShown = false // call by call, each shown again
			}
		}
	}
	decided, expired := 0, 0
	for i, a := range approvals {
		conn := approvalConnection(a)
		if planShown && a.Plan != nil {
			fmt.Fprintf(e.Stdout, "[%d/%d] %s (call %d)", i+1, len(approvals), a.Address, a.Plan.Seq)
			if a.Expired {
				fmt.Fprintln(e.Stdout, ": this approval expired; the run will fail as approval_expired.")
				expired++
				continue
			}
		} else {
			fmt.Fprintf(e.Stdout, "[%d/%d] %s\n  connection: %s\n  reason:     %s\n  run:        %s", i+1, len(approvals), a.Address, conn, oneLine(a.Reason), a.RunID)
			if a.Client != "" {
				fmt.Fprintf(e.Stdout, " (asked by %s)", a.Client)
			}
			if a.Request != nil {
				fmt.Fprintf(e.Stdout, "\n  request:    %s", requestWords(a))
			}
			if a.Change != "" {
				fmt.Fprintf(e.Stdout, "\n  changed:    %s (allowing accepts the new definition; 'capabilities hub changes %s' shows it)", oneLine(a.Change), a.Address)
			}
			fmt.Fprintf(e.Stdout, "\n  arguments (secrets hidden):\n%s\n%s", indent(a.Preview, "    "), lookAlikeLines(a.Preview, "  "))
			if a.Expired {
				fmt.Fprintln(e.Stdout, "  This approval expired; the run will fail as approval_expired.")
				expired++
				continue
			}
		}
		decision := ""
		switch {
		case yes && always:
			decision = hub.AllowAlways
		case yes:
			decision = hub.AllowOnce
		case deny && always:
			decision = hub.DenyAlways
		case deny:
			decision = hub.DenyOnce
		default:
			for decision == "" {
				fmt.Fprint(e.Stdout, "Allow? [y] once, [a] always, [n] deny, [N] always deny: ")
				line, err := in.ReadString('\n')
				switch strings.TrimSpace(line) {
				case "y", "Y", "yes":
					decision = hub.AllowOnce
				case "a", "A", "always":
					decision = hub.AllowAlways
				case "n", "no":
					decision = hub.DenyOnce
				case "N":
					decision = hub.DenyAlways
				}
				if err != nil && decision == "" {
					return errors.New("no decision: standard input ended")
				}
			}
		}
		if err := decide(a.ID, decision); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "  -> %s\n", decision)
		decided++
	}
	if decided == 0 {
		return withHint(fmt.Errorf("run %s: %d approval(s) expired and nothing was decided", runID, expired),
			"the run fails as approval_expired on its next resume; the model can run the code again")
	}
	if expired > 0 {
		fmt.Fprintf(e.Stdout, "Decided %d; %d expired.", decided, expired)
	} else {
		fmt.Fprint(e.Stdout, "Decided.")
	}
	fmt.Fprintf(e.Stdout, " The model continues with execute({ \"resume\": %q }).\n", runID)
	return nil
}

// plannedCalls are the approvals of a run's plan among approvals, when
// there is a plan to show as one: several calls, or one with calls policy
// denied or with where planning stopped.
func plannedCalls(approvals []hub.Approval) []hub.Approval {
	var plan []hub.Approval
	for _, a := range approvals {
		if a.Plan != nil {
			plan = append(plan, a)
		}
	}
	if len(plan) == 1 && plan[0].Plan.Stop == "" && len(plan[0].Plan.Denied) == 0 {
		return nil
	}
	return plan
}

// approvalConnection names the connection a waiting call goes out on:
// none for a source without connections, whose calls carry no secret.
func approvalConnection(a hub.Approval) string {
	switch {
	case a.Connection == "":
		return "none (the source has no connections)"
	case a.DefaultConnection:
		return a.Connection + " (default)"
	}
	return a.Connection
}

// showPlan prints a run's plan: each call in order with its connection,
// reason, marks and arguments (a placeholder for an earlier call's result
// shown as <result of call N>.path), the calls policy denied, and where
// planning stopped.
func showPlan(e *env, runID string, plan []hub.Approval) {
	w := e.Stdout
	fmt.Fprintf(w, "Plan of run %s: %d %s, collected before the first of them runs; each runs once, and only as shown.\n", runID, len(plan), plural(len(plan), "call", "calls"))
	for _, a := range plan {
		conn := approvalConnection(a)
		fmt.Fprintf(w, "%d. %s (call %d)\n   connection: %s\n   reason:     %s\n", a.Plan.Position, a.Address, a.Plan.Seq, conn, oneLine(a.Reason))
		if a.Request != nil {
			fmt.Fprintf(w, "   request:    %s\n", requestWords(a))
		}
		if a.Change != "" {
			fmt.Fprintf(w, "   changed:    %s (allowing accepts the new definition; 'capabilities hub changes %s' shows it)\n", oneLine(a.Change), a.Address)
		}
		if a.Plan.Missing {
			fmt.Fprintln(w, "   missing:    the connection needs a secret or a sign-in first; the run asks for it before the call")
		}
		if a.Expired {
			fmt.Fprintln(w, "   expired:    the run will fail as approval_expired")
		}
		fmt.Fprintf(w, "   arguments (secrets hidden):\n%s\n%s", indent(a.Preview, "     "), lookAlikeLines(a.Preview, "   "))
	}
	last := plan[len(plan)-1].Plan
	for _, d := range last.Denied {
		fmt.Fprintf(w, "Denied by policy, never runs: %s (call %d): %s\n", d.Address, d.Seq, oneLine(d.Reason))
	}
	if last.Stop != "" {
		fmt.Fprintf(w, "Planning stopped: %s. Calls after that are asked about when the run gets there.\n", oneLine(last.Stop))
	}
}

// askPlan asks once about a plan of n calls: a decision for all of them,
// or "" to decide call by call.
func askPlan(e *env, in *bufio.Reader, n int) (string, error) {
	for {
		fmt.Fprintf(e.Stdout, "Allow these %d calls? [y] allow all once, [a] always, [n] deny all, [N] always deny, [c] call by call: ", n)
		line, err := in.ReadString('\n')
		switch strings.TrimSpace(line) {
		case "y", "Y", "yes":
			return hub.AllowOnce, nil
		case "a", "A", "always":
			return hub.AllowAlways, nil
		case "n", "no":
			return hub.DenyOnce, nil
		case "N":
			return hub.DenyAlways, nil
		case "c", "C":
			return "", nil
		}
		if err != nil {
			return "", errors.New("no decision: standard input ended")
		}
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// startHubDetached starts `capabilities hub` in the background, in its own
// session. It logs to CAPABILITIES_HOME/logs/hub.log itself and not to its
// stderr, which goes to logs/crash.log: were stderr hub.log, every line
// would be written twice.
//
// The startedHub it returns says where the hub's own output begins in
// crash.log and when it stops.
func startHubDetached(e *env) (*startedHub, error) {
	paths := config.Paths{Home: e.home()}
	if err := os.MkdirAll(paths.Logs(), 0o700); err != nil {
		return nil, err
	}
	logf, err := openCrashLog(filepath.Join(paths.Logs(), crashName), maxCrashBytes)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	from, err := logf.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	args := []string{"hub"}
	if !displayAvailable(e) {
		args = append(args, "--headless")
	}
	cmd := exec.Command(e.Exe, args...)
	cmd.Env = append(os.Environ(), "CAPABILITIES_HOME="+e.home(), logStderrEnv+"=0")
	cmd.Stdout, cmd.Stderr = logf, logf
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the hub: %w", err)
	}
	// Waited for, so a hub that stops at once is seen (and reaped) while
	// this process runs; in its own session, it outlives this process.
	h := &startedHub{from: from, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(h.done)
	}()
	return h, nil
}

// startedHub is a hub startHubDetached started.
type startedHub struct {
	from int64         // crash.log's size before it started
	done chan struct{} // closed when it stops
}

// stopped reports whether the hub stopped.
func (h *startedHub) stopped() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// startOutput is what a hub startHubDetached started wrote to crash.log
// past from, on one line: its last whole lines, 500 bytes at most.
func startOutput(e *env, from int64) string {
	f, err := os.Open(filepath.Join(config.Paths{Home: e.home()}.Logs(), crashName))
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= from {
		return ""
	}
	const tail = 500
	start := max(from, fi.Size()-tail)
	b := make([]byte, fi.Size()-start)
	if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
		return ""
	}
	if start > from {
		// Begin at a line's start.
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
	}
	out := strings.ToValidUTF8(oneLine(string(b)), "")
	for len(out) > tail { // oneLine's "; " for each line break
		_, rest, ok := strings.Cut(out, "; ")
		if !ok {
			return strings.ToValidUTF8(out[len(out)-tail:], "")
		}
		out = rest
	}
	return out
}

// requestWords is the method and URL of a's OpenAPI call, with the path
// parameters its arguments give filled in as the dialog shows them, and
// whether its API deprecates the operation.
func requestWords(a hub.Approval) string {
	s := upstream.RequestLine(a.Request.Method, a.Request.Server+a.Request.Path, a.Preview)
	if a.Request.Deprecated {
		s += " (deprecated by its API)"
	}
	return s
}

// lookAlikeLines warns, one line each, of the words of preview whose
// letters mix Latin, Greek or Cyrillic ones, which look alike ("аlice42"
// with a Cyrillic а), as the dialog does.
func lookAlikeLines(preview, pad string) string {
	var b strings.Builder
	for _, m := range hiddentext.MixedScripts(preview) {
		fmt.Fprintf(&b, "%s! %s\n", pad, m)
	}
	return b.String()
}

// runCodeLine is a run's code in the runs list: its start on one line; a
// direct-mode call's as the tool it calls, past the line that marks it.
func runCodeLine(code string) string {
	if rest, ok := strings.CutPrefix(code, sandbox.CallMark); ok {
		code = "(direct) " + strings.TrimPrefix(rest, "return await ")
	}
	return shorten(oneLine(code), 50)
}
