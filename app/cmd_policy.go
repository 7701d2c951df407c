package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"capabilities.sh/capabilities/hub"
)

func policyCommand() *command {
	return &command{
		name:    "policy",
		summary: "Set and list which tools run freely (allow), need approval (ask) or never run (deny)",
		subs: []*command{
			{
				name:    "set",
				args:    "ADDRESS|GLOB|NAMESPACE allow|ask|deny",
				summary: "Set the policy of a tool, a glob of tools or a namespace",
				long: `Examples:
  capabilities policy set github.createIssue ask
  capabilities policy set 'github.list*' allow
  capabilities policy set filesystem deny

Without a rule, read-only tools are allowed and every other tool asks.`,
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 2 {
						return usagef("needs a target and a mode")
					}
					mode, err := hub.ParseMode(args[1])
					if err != nil {
						return &usageError{msg: err.Error()}
					}
					cfg, path, err := e.loadConfig()
					if err != nil {
						return err
					}
					cfg.Policy[args[0]] = mode
					if err := cfg.Validate(path); err != nil {
						delete(cfg.Policy, args[0])
						return err
					}
					if err := cfg.Save(path); err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Policy: %s %s.\n", args[0], mode)
					return nil
				},
			},
			{
				name:    "list",
				args:    "",
				summary: "List policy rules",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 0 {
						return usagef("takes no arguments")
					}
					cfg, _, err := e.loadConfig()
					if err != nil {
						return err
					}
					if len(cfg.Policy) == 0 {
						fmt.Fprintln(e.Stdout, "No rules: read-only tools are allowed, every other tool asks.")
						return nil
					}
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "TARGET\tMODE\tFROM")
					for _, k := range sortedNames(cfg.Policy) {
						fmt.Fprintf(tw, "%s\t%s\tconfig.json\n", k, cfg.Policy[k])
					}
					return tw.Flush()
				},
			},
		},
	}
}
