package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"capabilities.sh/capabilities/hub/config"
)

func profileCommand() *command {
	return &command{
		name:    "profile",
		summary: "Add, list and remove profiles: named views of the hub a client selects",
		subs: []*command{
			profileAddCommand(),
			{
				name:    "list",
				args:    "",
				summary: "List profiles",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 0 {
						return usagef("takes no arguments")
					}
					cfg, _, err := e.loadConfig()
					if err != nil {
						return err
					}
					if len(cfg.Profiles) == 0 {
						fmt.Fprintln(e.Stdout, "No profiles: every client sees every source. Add one with 'capabilities profile add NAME --source SOURCE...'.")
						return nil
					}
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tMODE\tSOURCES\tREAD-ONLY\tPOLICY")
					for _, name := range cfg.ProfileNames() {
						p := cfg.Profiles[name]
						srcs := make([]string, len(p.Sources))
						for i, s := range p.Sources {
							srcs[i] = s
							if c := p.Connections[s]; c != "" {
								srcs[i] += ":" + c
							}
						}
						ro := "no"
						if p.ReadOnly {
							ro = "yes"
						}
						rules := make([]string, 0, len(p.Policy))
						for _, t := range sortedNames(p.Policy) {
							rules = append(rules, t+"="+string(p.Policy[t]))
						}
						pol := "-"
						if len(rules) > 0 {
							pol = strings.Join(rules, ", ")
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, p.ModeOrDefault(), strings.Join(srcs, ", "), ro, oneLine(pol))
					}
					return tw.Flush()
				},
			},
			{
				name:    "remove",
				args:    "NAME",
				summary: "Remove a profile; clients that select it are refused from then on",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 1 {
						return usagef("needs exactly one profile NAME")
					}
					cfg, path, err := e.loadConfig()
					if err != nil {
						return err
					}
					if cfg.Profile(args[0]) == nil {
						return unknownProfile(cfg, args[0])
					}
					delete(cfg.Profiles, args[0])
					if err := cfg.Save(path); err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Removed profile %s.\n", args[0])
					return nil
				},
			},
		},
	}
}

func profileAddCommand() *command {
	var sources, conns, rules multiFlag
	var mode string
	var readOnly, replace bool
	return &command{
		name:    "add",
		args:    "NAME --source SOURCE... [--connection SOURCE=CONNECTION]... [--mode code|direct] [--read-only] [--policy TARGET=MODE]... [--replace]",
		summary: "Add a profile: the sources a client sees, on which connections, under which rules",
		long: `A profile is a named view of the hub. A client selects it outside the
model's reach: 'capabilities mcp --profile NAME' over stdio (install CLIENT
--profile NAME writes that), or the HTTP path /mcp/p/NAME. For its clients
only the profile's sources exist: no global in the sandbox, no search hit,
no describe, no skill of any other source.

--connection pins the connection (account) of a source the profile uses;
the source's other connections are out of reach. --policy rules apply after
yours and only tighten them: an ask or deny applies, an allow never loosens
an ask or deny of yours. --read-only refuses every call to a tool that is
not read-only. --mode direct serves each tool as its own MCP tool instead
of search, describe and execute.

Examples:
  capabilities profile add work --source github --source linear --connection github=work --policy 'linear.*=ask'
  capabilities profile add reader --source github --read-only`,
		flags: func(fs *flag.FlagSet) {
			fs.Var(&sources, "source", "a `SOURCE` the profile shows (repeatable)")
			fs.Var(&conns, "connection", "pin `SOURCE=CONNECTION` (repeatable)")
			fs.Var(&rules, "policy", "a rule `TARGET=MODE` (allow, ask or deny) that tightens yours (repeatable)")
			fs.StringVar(&mode, "mode", config.ProfileCode, "`code` (search, describe, execute) or direct (each tool its own MCP tool)")
			fs.BoolVar(&readOnly, "read-only", false, "refuse every call to a tool that is not read-only")
			fs.BoolVar(&replace, "replace", false, "replace a profile of the same name")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs exactly one profile NAME")
			}
			if len(sources) == 0 {
				return usagef("needs at least one --source")
			}
			p := &config.Profile{Sources: []string(sources), Mode: mode, ReadOnly: readOnly}
			var err error
			if p.Connections, err = keyValues("connection", conns); err != nil {
				return err
			}
			pol, err := keyValues("policy", rules)
			if err != nil {
				return err
			}
			for t, m := range pol {
				mm, err := config.ParseMode(m)
				if err != nil {
					return usagef("--policy %s: %v", t, err)
				}
				if p.Policy == nil {
					p.Policy = map[string]config.Mode{}
				}
				p.Policy[t] = mm
			}
			cfg, path, err := e.loadConfig()
			if err != nil {
				return err
			}
			if err := cfg.PutProfile(path, args[0], p, replace); err != nil {
				return err
			}
			if err := cfg.Save(path); err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "Added profile %s (%s mode, sources %s). Clients select it with 'capabilities mcp --profile %s' or the HTTP path /mcp/p/%s.\n",
				args[0], p.ModeOrDefault(), strings.Join(p.Sources, ", "), args[0], args[0])
			return nil
		},
	}
}

// unknownProfile is the error for a profile that does not exist, naming
// those that do.
func unknownProfile(cfg *config.Config, name string) error {
	msg := fmt.Errorf("no profile named %q", name)
	names := cfg.ProfileNames()
	if len(names) == 0 {
		return withHint(msg, "there are no profiles; add one with 'capabilities profile add'")
	}
	return withHint(msg, "profiles: "+strings.Join(names, ", "))
}

// profilesHolding refuses to remove a source, or a connection of it, that
// a profile names: the profile would stop loading.
func profilesHolding(cfg *config.Config, source, conn string) error {
	var names []string
	for _, name := range cfg.ProfilesUsing(source) {
		if p := cfg.Profiles[name]; conn == "" || p.Connections[source] == conn {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	what := "source " + source
	if conn != "" {
		what = fmt.Sprintf("connection %s of %s", conn, source)
	}
	return withHint(fmt.Errorf("%s is used by %s %s", what, plural(len(names), "profile", "profiles"), strings.Join(names, ", ")),
		"remove or change those profiles first (capabilities profile add NAME ... --replace, or profile remove NAME)")
}
