package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/hub/policy"
)

func policyCommand() *command {
	var force bool
	return &command{
		name:    "policy",
		summary: "Set, list and remove which tools run freely (allow), need approval (ask) or never run (deny)",
		subs: []*command{
			{
				name:    "set",
				args:    "ADDRESS|GLOB|NAMESPACE allow|ask|deny [--force]",
				summary: "Set the policy of a tool, a glob of tools or a namespace",
				long: `Examples:
  capabilities policy set github.createIssue ask
  capabilities policy set 'github.list*' allow
  capabilities policy set memory.open_nodes deny     (the upstream's tool name)
  capabilities policy set my-files deny              (the source's name in config)

A target may use the JavaScript names (memory.openNodes, myFiles) or the MCP
names (the source as written in config, the tool as the upstream names it);
it is stored in the JavaScript form. Without a rule, read-only tools are
allowed and every other tool asks. A deny beats every allow that matches the
same call. Setting a rule for an address replaces the remembered "always"
decisions for it.

A rule that matches no tool and no source is flagged with the closest names:
an allow or ask is refused unless --force, a deny is kept with the warning.
A rule for a source that has not listed its tools yet is kept with a warning.`,
				flags: func(fs *flag.FlagSet) {
					fs.BoolVar(&force, "force", false, "keep an allow or ask rule that matches no tool")
				},
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 2 {
						return usagef("needs a target and a mode")
					}
					mode, err := config.ParseMode(args[1])
					if err != nil {
						return &usageError{msg: err.Error()}
					}
					ch := hub.PolicyChange{Target: args[0], Mode: string(mode), Force: force, Channel: policy.ChannelCLI}
					var res *hub.PolicyResult
					err = withHub(ctx, e,
						func(c *localapi.Client) error { return c.Do(ctx, "POST", "/v1/policy", ch, &res) },
						func(h *hub.Hub) (err error) { res, err = h.ApplyPolicy(ctx, ch); return err })
					if err != nil {
						return err
					}
					if res.Warning != "" {
						fmt.Fprintf(e.Stderr, "warning: %s\n", res.Warning)
					}
					if res.Target != res.Written {
						fmt.Fprintf(e.Stdout, "Policy: %s %s (written %s).\n", res.Target, res.Mode, res.Written)
					} else {
						fmt.Fprintf(e.Stdout, "Policy: %s %s.\n", res.Target, res.Mode)
					}
					return nil
				},
			},
			{
				name:    "list",
				args:    "",
				summary: "List every rule and remembered decision, in the order they apply",
				long: `Rules apply in the order listed: every deny first (a deny that matches a call
beats every allow), then from the most to the least specific; the first rule
that matches a call decides. FROM is where a rule came from: config
(config.json), cli, window, or the channel of a remembered decision (dialog,
client, cli).`,
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 0 {
						return usagef("takes no arguments")
					}
					var rules []policy.ListedRule
					err := withHub(ctx, e,
						func(c *localapi.Client) error { return c.Do(ctx, "GET", "/v1/policy", nil, &rules) },
						func(h *hub.Hub) (err error) { rules, err = h.PolicyRules(ctx); return err })
					if err != nil {
						return err
					}
					if len(rules) == 0 {
						fmt.Fprintln(e.Stdout, "No rules: read-only tools are allowed, every other tool asks.")
						return nil
					}
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "#\tTARGET\tMODE\tFROM\tSCOPE")
					for _, r := range rules {
						from := r.From
						if r.Remembered {
							from = "remembered (" + r.From + ")"
						}
						fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Order, oneLine(r.Target), r.Mode, from, r.Scope)
					}
					if err := tw.Flush(); err != nil {
						return err
					}
					for _, r := range rules {
						if r.Warning != "" {
							fmt.Fprintf(e.Stdout, "warning: rule %d: %s\n", r.Order, oneLine(r.Warning))
						}
					}
					fmt.Fprintln(e.Stdout, "Without a matching rule, read-only tools are allowed and every other tool asks.")
					return nil
				},
			},
			{
				name:    "remove",
				args:    "ADDRESS|GLOB|NAMESPACE",
				summary: "Remove the rules and remembered decisions for a target",
				long: `Removes the config rules written for the target (in either naming form) and the
remembered "always" decisions for that address. Examples:
  capabilities policy remove memory.open_nodes
  capabilities policy remove 'github.list*'`,
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 1 {
						return usagef("needs exactly one target")
					}
					var res *hub.PolicyResult
					in := map[string]string{"target": args[0], "channel": policy.ChannelCLI}
					err := withHub(ctx, e,
						func(c *localapi.Client) error { return c.Do(ctx, "POST", "/v1/policy/remove", in, &res) },
						func(h *hub.Hub) (err error) { res, err = h.RemovePolicy(ctx, args[0], policy.ChannelCLI); return err })
					if err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Removed %d %s for %s.\n", res.Removed, plural(res.Removed, "rule", "rules"), res.Target)
					return nil
				},
			},
		},
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
