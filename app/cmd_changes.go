package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/localapi"
)

// diffContext is how many unchanged lines 'hub changes ADDRESS' keeps
// around each change, as the window does.
const diffContext = 2

func hubChangesCommand() *command {
	var asJSON bool
	return &command{
		name: "changes", args: "[ADDRESS] [--json]", summary: "List the tools and skills whose definition changed since you accepted it, or show what changed in one",
		long: `A tool whose definition (description, annotations, schema; an OpenAPI
operation's method, path and server) changed since you consented to it asks
before every call until you accept the new definition. Without ADDRESS, lists
those tools. With ADDRESS, shows its definition as you accepted it and as it
is now, line by line ("- " removed, "+ " added), and the command that accepts
that definition and no later one. A source's skill whose entry (frontmatter,
files) changed is listed too, as skill:NAMESPACE.PATH, with its SKILL.md's
text: the model is told it changed until you accept it. Works whether or not
a hub is running; without one, the sources' skills are as last listed.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&asJSON, "json", false, "print JSON")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 1 {
				return usagef("takes at most one ADDRESS")
			}
			if len(args) == 1 {
				return showChange(ctx, e, args[0], asJSON)
			}
			var changes []hub.ToolChangeInfo
			err := withHub(ctx, e,
				func(c *localapi.Client) error { return c.Do(ctx, "GET", "/v1/changes", nil, &changes) },
				func(h *hub.Hub) (err error) { changes, err = h.ToolChanges(ctx); return err })
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(e.Stdout, changes)
			}
			if len(changes) == 0 {
				fmt.Fprintln(e.Stdout, "No tool or skill changed since it was accepted.")
				return nil
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ADDRESS\tCHANGED\tSEEN")
			for _, c := range changes {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Address, c.Summary, c.Seen.Local().Format("2006-01-02 15:04"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			held := "Their calls ask until you accept them."
			if slices.ContainsFunc(changes, func(c hub.ToolChangeInfo) bool { return strings.HasPrefix(c.Address, "skill:") }) {
				held = "Until you accept them, a tool's calls ask and the model is told a skill changed."
			}
			fmt.Fprintf(e.Stdout, "%s See one: 'capabilities hub changes %s'; accept it, or a whole namespace: 'capabilities hub accept ADDRESS|NAMESPACE'.\n", held, changes[0].Address)
			return nil
		},
	}
}

// showChange prints what changed in one tool's definition.
func showChange(ctx context.Context, e *env, address string, asJSON bool) error {
	var ch localapi.Change
	err := withHub(ctx, e,
		func(c *localapi.Client) error {
			return c.Do(ctx, "GET", "/v1/change?address="+url.QueryEscape(address), nil, &ch)
		},
		func(h *hub.Hub) (err error) { ch, err = localapi.ChangeOf(ctx, h, address); return err })
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.Stdout, ch)
	}
	fmt.Fprintf(e.Stdout, "%s: %s since you accepted it; its calls ask until you accept it.\n\n", ch.Address, ch.Summary)
	was, is := catalog.DefinitionLines(ch.Was), catalog.DefinitionLines(ch.Is)
	if was == nil {
		fmt.Fprintln(e.Stdout, "The accepted definition was not kept; the current one:")
		for _, l := range is {
			fmt.Fprintln(e.Stdout, "  "+l)
		}
	}
	if was != nil {
		for _, l := range catalog.DiffLines(was, is, diffContext) {
			fmt.Fprintln(e.Stdout, l.Text)
		}
	}
	fmt.Fprintf(e.Stdout, "\nAccept this definition: capabilities hub accept %s --definition %s\n", ch.Address, ch.Hash[:min(12, len(ch.Hash))])
	return nil
}

// changesStatus is 'hub status's line on changed definitions.
func changesStatus(changes []hub.ToolChangeInfo) string {
	skills := 0
	for _, c := range changes {
		if strings.HasPrefix(c.Address, "skill:") {
			skills++
		}
	}
	tools := len(changes) - skills
	switch {
	case skills == 0 && tools == 1:
		return "1 tool definition changed since you accepted it: its calls ask until you accept it"
	case skills == 0:
		return fmt.Sprintf("%d tool definitions changed since you accepted them: their calls ask until you accept them", tools)
	case tools == 0:
		return fmt.Sprintf("%d %s changed since you accepted %s: the model is told so until you accept %s", skills,
			plural(skills, "skill", "skills"), plural(skills, "it", "them"), plural(skills, "it", "them"))
	}
	return fmt.Sprintf("%d tool %s and %d %s changed since you accepted them: the tools' calls ask and the model is told of the skills until you accept them",
		tools, plural(tools, "definition", "definitions"), skills, plural(skills, "skill", "skills"))
}
