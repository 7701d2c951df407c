package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/localapi"
)

// The terminal forms of the three tools print exactly what the MCP tools
// return.

func searchCommand() *command {
	var namespace string
	var limit int
	return &command{
		name: "search", args: "QUERY [--namespace N] [--limit K]", summary: "Find tools (the search tool, from a terminal)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&namespace, "namespace", "", "search or list one source `N`")
			fs.IntVar(&limit, "limit", hub.SearchLimitDefault, "at most `K` tools (1-25)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 && namespace == "" {
				return usagef("needs a QUERY, or --namespace N to list a source")
			}
			req := hub.SearchRequest{Query: strings.Join(args, " "), Namespace: namespace, Limit: limit}
			if limit == 0 {
				return usagef("--limit 0 is out of range; must be 1 to 25")
			}
			return printTextTool(ctx, e, "/v1/search", req, func(h *hub.Hub) (string, error) { return h.Search(ctx, req) })
		},
	}
}

func describeCommand() *command {
	return &command{
		name: "describe", args: "TARGET...", summary: "Print TypeScript declarations (the describe tool, from a terminal)",
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				return usagef("needs at least one TARGET: an address (github.createIssue), a namespace or a type")
			}
			req := hub.DescribeRequest{Targets: args}
			return printTextTool(ctx, e, "/v1/describe", req, func(h *hub.Hub) (string, error) { return h.Describe(ctx, req) })
		},
	}
}

// printTextTool prints what a text tool (search, describe) answers: from
// the running hub's API route, or from a hub opened here with a filled
// catalog.
func printTextTool(ctx context.Context, e *env, route string, req any, local func(*hub.Hub) (string, error)) error {
	var out struct{ Text string }
	err := withHub(ctx, e,
		func(c *localapi.Client) error { return c.Do(ctx, "POST", route, req, &out) },
		func(h *hub.Hub) (err error) {
			ensureCatalog(ctx, h)
			out.Text, err = local(h)
			return err
		})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, out.Text)
	return nil
}

func executeCommand() *command {
	var resume, inline string
	var asJSON bool
	return &command{
		name: "execute", args: "[FILE|-] [--code CODE] [--resume RUNID] [--json]", summary: "Run JavaScript against your tools (the execute tool, from a terminal)",
		long: `Reads the code from FILE, from stdin with - (or no FILE), or from --code.
Prints the envelope's compact line, or the indented envelope with --json.
Exits 1 when the run failed.

Example:
  capabilities execute --code 'return await memory.readGraph({})'`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&inline, "code", "", "run `CODE` given here instead of a FILE")
			fs.StringVar(&resume, "resume", "", "continue run `RUNID`")
			fs.BoolVar(&asJSON, "json", false, "print the envelope as indented JSON")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) > 1 {
				return usagef("takes at most one FILE")
			}
			code := inline
			switch {
			case resume != "" && (len(args) > 0 || inline != ""):
				return usagef("takes a FILE, --code or --resume, one of them")
			case inline != "" && len(args) > 0:
				return usagef("takes a FILE or --code, not both")
			case resume == "" && inline == "":
				var data []byte
				var err error
				if len(args) == 0 || args[0] == "-" {
					data, err = io.ReadAll(io.LimitReader(e.Stdin, 1<<20))
				} else {
					data, err = os.ReadFile(args[0])
				}
				if errors.Is(err, os.ErrNotExist) && strings.ContainsAny(args[0], " ({;") {
					return usagef("no file named %q; to run code given on the command line, pass it with --code", shorten(args[0], 60))
				}
				if err != nil {
					return fmt.Errorf("reading the code: %w", err)
				}
				code = string(data)
			}
			if resume == "" && strings.TrimSpace(code) == "" {
				return usagef("no code: pass a FILE, pipe the code in, give it with --code, or --resume RUNID")
			}
			var env hub.Envelope
			err := withHubOpts(ctx, e, true,
				func(c *localapi.Client) error {
					return c.Do(ctx, "POST", "/v1/execute", map[string]string{"code": code, "resume": resume, "client": "capabilities cli"}, &env)
				},
				func(h *hub.Hub) error {
					ensureCatalog(ctx, h)
					out, err := h.Execute(ctx, hub.ExecuteRequest{Code: code, Resume: resume, Client: "capabilities cli"})
					if out != nil {
						env = *out
					}
					return err
				})
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(e.Stdout, env); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(e.Stdout, env.Line())
			}
			if env.Status == hub.StatusFailed {
				return &exitError{code: exitFailure}
			}
			return nil
		},
	}
}

// ensureCatalog fills an empty catalog (a hub opened just for this command
// on a fresh home).
func ensureCatalog(ctx context.Context, h *hub.Hub) {
	if st, err := h.Status(ctx); err == nil && st.Tools == 0 && len(h.Config().Sources) > 0 {
		h.Refresh(ctx)
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
