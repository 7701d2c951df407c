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

Without a rule, read-only tools are allowed and every other tool asks. Setting
a rule for an address replaces a remembered "always" decision for it.`,
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 2 {
						return usagef("needs a target and a mode")
					}
					mode, err := hub.ParseMode(args[1])
					if err != nil {
						return &usageError{msg: err.Error()}
					}
					err = withHub(ctx, e,
						func(c *hub.Client) error {
							return c.Do(ctx, "POST", "/v1/policy", map[string]string{"target": args[0], "mode": string(mode)}, nil)
						},
						func(h *hub.Hub) error { return h.SetPolicy(ctx, args[0], mode) })
					if err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Policy: %s %s.\n", args[0], mode)
					return nil
				},
			},
			{
				name:    "list",
				args:    "",
				summary: "List policy rules and remembered decisions",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 0 {
						return usagef("takes no arguments")
					}
					var rules []hub.PolicyRule
					err := withHub(ctx, e,
						func(c *hub.Client) error { return c.Do(ctx, "GET", "/v1/policy", nil, &rules) },
						func(h *hub.Hub) (err error) { rules, err = h.PolicyRules(ctx); return err })
					if err != nil {
						return err
					}
					if len(rules) == 0 {
						fmt.Fprintln(e.Stdout, "No rules: read-only tools are allowed, every other tool asks.")
						return nil
					}
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "TARGET\tMODE\tFROM")
					for _, r := range rules {
						fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Target, r.Mode, r.From)
					}
					return tw.Flush()
				},
			},
		},
	}
}
