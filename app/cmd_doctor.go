package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/keychain"
)

// check is one doctor finding.
type check struct {
	name string
	ok   bool
	warn bool // a problem that does not stop the hub from working
	info string
	fix  string
}

func doctorCommand() *command {
	var skipSources bool
	return &command{
		name: "doctor", args: "[--no-sources]", summary: "Check the set-up and explain how to fix what is wrong",
		long: `Checks the keychain, the tray host, config.json, the database, the local
socket, each source (starting it and listing its tools) and which clients are
connected. Exits 1 when something needs fixing.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&skipSources, "no-sources", false, "do not start sources")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("takes no arguments")
			}
			checks := runChecks(ctx, e, !skipSources)
			failed, warned := 0, 0
			for _, c := range checks {
				mark := "ok  "
				switch {
				case !c.ok && c.warn:
					mark = "warn"
					warned++
				case !c.ok:
					mark = "FAIL"
					failed++
				}
				fmt.Fprintf(e.Stdout, "[%s] %s: %s\n", mark, c.name, c.info)
				if !c.ok && c.fix != "" {
					fmt.Fprintf(e.Stdout, "       fix: %s\n", c.fix)
				}
			}
			fmt.Fprintln(e.Stdout, doctorSummary(failed, warned))
			if failed > 0 {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
}

// doctorSummary is doctor's last line: what its lines found, in counts. A
// warning does not fail doctor but is never called good.
func doctorSummary(failed, warned int) string {
	warnings := fmt.Sprintf("%d %s", warned, plural(warned, "warning", "warnings"))
	switch {
	case failed > 0 && warned > 0:
		return fmt.Sprintf("%d %s to fix, and %s to look at.", failed, plural(failed, "problem", "problems"), warnings)
	case failed > 0:
		return fmt.Sprintf("%d %s to fix.", failed, plural(failed, "problem", "problems"))
	case warned > 0:
		return fmt.Sprintf("Nothing stops the hub; %s to look at.", warnings)
	}
	return "All good."
}

func runChecks(ctx context.Context, e *env, sources bool) []check {
	paths := config.Paths{Home: e.home()}
	var out []check

	// Keychain.
	if kc, err := e.keychain(); err != nil {
		out = append(out, check{name: "keychain", info: oneLine(err.Error()), fix: "move " + paths.HomeID() + " aside; a new id is made"})
	} else if _, err := kc.Get("doctor/probe"); errors.Is(err, keychain.ErrUnavailable) {
		// The fix line says the hint; the problem line says only the cause.
		info := err.Error()
		if ue := (*keychain.UnavailableError)(nil); errors.As(err, &ue) {
			info = "unreachable: " + ue.Cause
		}
		out = append(out, check{name: "keychain", info: oneLine(info), fix: keychain.Hint()})
	} else {
		out = append(out, check{name: "keychain", ok: true, info: fmt.Sprintf("reachable (service %q)", kc.ServiceName())})
	}

	// Tray host.
	if err := trayHost(); err != nil {
		out = append(out, check{name: "tray", warn: true, info: oneLine(err.Error()), fix: noTrayFix})
	} else {
		out = append(out, check{name: "tray", ok: true, info: "a system tray is available"})
	}

	// Config.
	cfg, err := config.Load(paths.Config())
	if err != nil {
		where := "at the key named"
		if ce := (*config.Error)(nil); errors.As(err, &ce) && ce.Key == "" {
			where = "at the place named"
		}
		out = append(out, check{name: "config", info: oneLine(err.Error()), fix: "edit " + paths.Config() + " " + where + ", or move it aside to start over"})
		cfg = nil
	} else if _, statErr := os.Stat(paths.Config()); statErr != nil {
		out = append(out, check{name: "config", warn: true, info: "no config.json yet", fix: "run 'capabilities hub' once (it imports your clients' servers), or 'capabilities source add'"})
	} else if refused := cfg.Refused(); len(refused) > 0 {
		out = append(out, check{name: "config", warn: true, info: oneLine(refused.Error()), fix: "rename the source in " + paths.Config() + " as suggested; the other sources are served"})
	} else {
		out = append(out, check{name: "config", ok: true, info: fmt.Sprintf("%s: %d %s", paths.Config(), len(cfg.Sources), plural(len(cfg.Sources), "source", "sources"))})
	}

	// A password or key a config.json written by hand keeps in a URL or a
	// program's arguments.
	if cfg != nil {
		for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
			if where := config.ArgSecret(cfg.Sources[name].Args); where != "" {
				out = append(out, check{name: "source " + name, warn: true,
					info: "its command's " + where + " looks like a secret, kept in config.json where secrets never go, and readable by every user of this machine while it runs (ps)",
					fix:  fmt.Sprintf("take it out of sources.%s.args in %s and give it to the program in its environment: 'capabilities connection add %s default --env VAR'", name, paths.Config(), name)})
			}
			for _, u := range urlSecretsOf(name, cfg.Sources[name]) {
				fix := fmt.Sprintf("set sources.%s.%s in %s to %s, then: %s", name, u.key, paths.Config(), u.fixed, u.then)
				if u.then == "" {
					fix = fmt.Sprintf("save the document and set sources.%s.openapi in %s to its file", name, paths.Config())
				}
				out = append(out, check{name: "source " + name, warn: true, info: "its " + u.key + u.problem + ", kept in config.json where secrets never go", fix: fix})
			}
		}
	}

	// An import offer nobody decided yet.
	if o, err := clients.LoadImportOffer(paths); err != nil {
		out = append(out, check{name: "import offer", info: oneLine(err.Error()), fix: "delete " + paths.ImportOffer()})
	} else if o != nil {
		var names []string
		for _, s := range o.Servers {
			names = append(names, s.Name)
		}
		out = append(out, check{name: "import offer", warn: true,
			info: fmt.Sprintf("%d MCP %s found in your clients, not imported yet: %s", len(o.Servers), plural(len(o.Servers), "server", "servers"), strings.Join(names, ", ")),
			fix:  "capabilities setup (or Import… in the tray menu)"})
	}

	// Database.
	if _, err := os.Stat(paths.DB()); err == nil {
		db, err := store.Open(ctx, paths.DB(), nil)
		if err == nil {
			err = db.Check(ctx)
			if err == nil {
				out = append(out, check{name: "database", ok: true, info: fmt.Sprintf("%s: schema version %d, integrity ok", paths.DB(), db.Version())})
			}
			db.Close()
		}
		if err != nil {
			out = append(out, check{name: "database", info: oneLine(err.Error()), fix: "stop the hub and move " + paths.DB() + " aside; runs and approvals in it are lost, the catalog refills"})
		}
	} else {
		out = append(out, check{name: "database", ok: true, info: "not created yet (the hub creates it)"})
	}

	// Socket and hub.
	if fi, err := os.Stat(paths.Socket()); err == nil {
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			out = append(out, check{name: "socket", info: fmt.Sprintf("%s has mode %v; other users could reach the hub", paths.Socket(), fi.Mode().Perm()), fix: "stop the hub and start it again (it creates the socket 0600)"})
		} else {
			out = append(out, check{name: "socket", ok: true, info: paths.Socket() + " is private to you"})
		}
	}
	hubRunning := false
	if c, err := e.client(ctx); err == nil {
		if st, err := c.Status(ctx); err == nil {
			hubRunning = true
			out = append(out, check{name: "hub", ok: true, info: fmt.Sprintf("running (pid %d): %d %s, %d pending %s", st.PID, st.Tools, plural(st.Tools, "tool", "tools"), st.Pending, plural(st.Pending, "approval", "approvals"))})
		}
		c.Close()
	}
	if !hubRunning {
		out = append(out, check{name: "hub", warn: true, info: "not running", fix: "start it with 'capabilities hub' (clients start it on demand through 'capabilities mcp')"})
	}

	// Sources: start each and list its tools.
	// Skills alone take the hub too: it says which folders it skips.
	if sources && cfg != nil && (len(cfg.Sources) > 0 || hasSkills(paths.Home, cfg)) {
		out = append(out, sourceChecks(ctx, e, cfg)...)
	}

	// Clients.
	connected := 0
	for _, cc := range clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS) {
		if clients.HasEntry(cc) {
			connected++
			out = append(out, check{name: "client " + cc.Client, ok: true, info: "connected (" + cc.Path + ")"})
		}
	}
	if connected == 0 {
		out = append(out, check{name: "clients", warn: true, info: "no MCP client is connected to the hub yet", fix: "capabilities install claude-code (or claude-desktop, cursor, vscode)"})
	}
	return out
}

// hasSkills reports whether there are skill folders to read: the home's
// skills folder holds something, or config.json names folders.
func hasSkills(home string, cfg *config.Config) bool {
	entries, _ := os.ReadDir(filepath.Join(home, "skills"))
	return len(entries) > 0 || len(cfg.Skills.Paths) > 0
}

func sourceChecks(ctx context.Context, e *env, cfg *config.Config) []check {
	var out []check
	var errs map[string]error
	var st hub.Status
	err := withHub(ctx, e,
		func(c *localapi.Client) error {
			var res struct{ SourceErrors map[string]string }
			if err := c.Do(ctx, "POST", "/v1/reload", struct{}{}, &res); err != nil {
				return err
			}
			errs = map[string]error{}
			for k, v := range res.SourceErrors {
				errs[k] = errors.New(v)
			}
			var err error
			st, err = c.Status(ctx)
			return err
		},
		func(h *hub.Hub) error {
			rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			errs = h.Refresh(rctx)
			var err error
			st, err = h.Status(ctx)
			return err
		})
	if err != nil {
		return []check{{name: "sources", info: oneLine(err.Error())}}
	}
	for _, dir := range slices.Sorted(maps.Keys(st.SkippedSkills)) {
		out = append(out, check{name: "skill " + filepath.Base(dir), warn: true, info: "skipped: " + dir + ": " + oneLine(st.SkippedSkills[dir]),
			fix: "fix its SKILL.md (YAML frontmatter with name and description between \"---\" lines), or move the folder out of the skills folder"})
	}
	for _, s := range st.Sources {
		if def := cfg.Sources[s.Name]; def != nil && !def.Disabled {
			if note := plainHTTPNote(s.Name, def, secretServer(ctx, openapiChild(e), def, nil)); note != "" {
				c := check{name: "plain http " + s.Name, warn: true, info: note}
				if !def.AllowInsecureHTTP {
					c.fix = "use the server's https URL; or, if this network is yours, set \"allowInsecureHttp\": true on source " + s.Name + " in config.json"
				} else {
					c.fix = "use the server's https URL, and remove \"allowInsecureHttp\" from source " + s.Name
				}
				out = append(out, c)
			}
		}
		for _, si := range s.SignIns {
			if si.Offered {
				continue // the credentials check says what the API waits for
			}
			c := check{name: "sign-in " + s.Name + "/" + cmp.Or(si.Connection, "-"), ok: si.SignedIn, info: oneLine(si.Summary)}
			if !si.SignedIn {
				c.fix = loginCommand(s.Name, si.Connection)
			}
			out = append(out, c)
		}
		if s.State == upstream.SourceDisabled {
			out = append(out, check{name: "source " + s.Name, ok: true, info: s.Summary})
			continue
		}
		if err := errs[s.Name]; err != nil || !s.State.Usable() {
			// The state's own words, as `hub status`, the tray and the
			// model have them; the listing's error when the state has none.
			info := s.Summary
			if s.Error == "" && err != nil {
				info = string(s.State) + ": " + err.Error()
			}
			fix := stateFix(s.State, s.Name, s.Default)
			if fix == "" {
				fix = sourceFix(cfg.Sources[s.Name], s.Name)
			}
			out = append(out, check{name: "source " + s.Name, info: oneLine(info), fix: fix})
			continue
		}
		if def := cfg.Sources[s.Name]; def != nil && def.OpenAPI != "" {
			out = append(out, openapiCheck(s, def))
			if s.Waiting > 0 {
				out = append(out, check{name: "credentials " + s.Name, warn: true,
					info: fmt.Sprintf("%d of %d operations wait for credentials the %s connection does not give", s.Waiting, s.Tools, cmp.Or(s.Default, "default")),
					fix:  oneLine(s.Need)})
			}
			continue
		}
		if len(s.Warnings) > 0 {
			out = append(out, check{name: "source " + s.Name, warn: true, info: fmt.Sprintf("%s, %d %s; %s", s.Summary, s.Tools, plural(s.Tools, "tool", "tools"), oneLine(strings.Join(s.Warnings, "; "))),
				fix: "the source is served without what the warning names; raise the bound under \"catalog\" in config.json if it is a real API this large"})
			continue
		}
		out = append(out, check{name: "source " + s.Name, ok: true, info: fmt.Sprintf("%s, %d %s", s.Summary, s.Tools, plural(s.Tools, "tool", "tools"))})
	}
	return out
}

func sourceFix(s *config.Source, name string) string {
	if s == nil {
		return ""
	}
	if s.OpenAPI != "" {
		return "check the OpenAPI document " + s.OpenAPI + " (a problem in it is named with its line) and that the API's server answers; 'capabilities source add " + name + " --openapi " + s.OpenAPI + " --replace' reads it again"
	}
	if s.URL != "" {
		return "check that " + s.URL + " answers and that the connection's headers are right ('capabilities connection list " + name + "')"
	}
	return "run the command by hand to see its error: " + s.Command + " " + fmt.Sprint(s.Args) + "; missing secrets: 'capabilities connection list " + name + "'"
}

// openapiCheck is an OpenAPI source's line: its operations, and those left
// out, each with why.
func openapiCheck(s hub.SourceStatus, def *config.Source) check {
	info := fmt.Sprintf("%s, %d operations of %s", s.Summary, s.Tools, def.OpenAPI)
	if len(s.Warnings) == 0 {
		return check{name: "source " + s.Name, ok: true, info: info}
	}
	fix := "the operations named are left out and the rest are served; fix them in the document to serve them too"
	if len(s.Elsewhere) > 0 {
		shown := make([]string, len(s.Elsewhere))
		for i, o := range s.Elsewhere {
			shown[i] = strconv.Quote(secrets.ShownOrigin(o))
		}
		fix = fmt.Sprintf("the operations named are left out and the rest are served; to serve those on another origin, add \"origins\": [%s] to %s in config.json, which sends its credentials there too; fix any other in the document", strings.Join(shown, ", "), s.Name)
	}
	return check{name: "source " + s.Name, warn: true, info: info + "; " + oneLine(strings.Join(s.Warnings, "; ")), fix: fix}
}
