package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/net/http/httpguts"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/keychain"
)

// configFile loads CAPABILITIES_HOME/config.json.
func (e *env) loadConfig() (*config.Config, string, error) {
	path := config.Paths{Home: e.home()}.Config()
	cfg, err := config.Load(path)
	if err != nil {
		return nil, path, withHint(err, "fix the file by hand, or move it aside to start over")
	}
	return cfg, path, nil
}

func keyValues(kind string, pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usagef("--%s %q: write KEY=VALUE", kind, p)
		}
		if kind == "header" && !httpguts.ValidHeaderFieldName(k) {
			return nil, usagef("--header %q: %q is not a header name: letters, digits and dashes, such as X-Region", p, k)
		}
		m[k] = v
	}
	return m, nil
}

func sourceCommand() *command {
	return &command{
		name:    "source",
		summary: "Add, list, remove and import sources: MCP servers and REST APIs (OpenAPI)",
		subs: []*command{
			sourceAddCommand(),
			{
				name:    "list",
				args:    "",
				summary: "List sources",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 0 {
						return usagef("takes no arguments")
					}
					cfg, _, err := e.loadConfig()
					if err != nil {
						return err
					}
					if len(cfg.Sources) == 0 {
						fmt.Fprintln(e.Stdout, "No sources yet. Add one with 'capabilities source add NAME -- COMMAND ARGS...' or import a client's config with 'capabilities source import FILE'.")
						return nil
					}
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tNAMESPACE\tTRANSPORT\tTARGET\tCONNECTIONS")
					for _, name := range sortedNames(cfg.Sources) {
						s := cfg.Sources[name]
						transport, target := "stdio", strings.Join(append([]string{s.Command}, s.Args...), " ")
						if s.URL != "" {
							transport, target = "http", s.URL
						}
						if s.OpenAPI != "" {
							transport, target = "openapi", s.OpenAPI
						}
						if s.Disabled {
							transport += " (disabled)"
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, naming.Namespace(name), transport, shorten(target, 60), connectionsLine(s))
					}
					return tw.Flush()
				},
			},
			{
				name:    "remove",
				args:    "NAME",
				summary: "Remove a source and its connections' secrets and sign-ins",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 1 {
						return usagef("needs exactly one source NAME")
					}
					cfg, path, err := e.loadConfig()
					if err != nil {
						return err
					}
					s, ok := cfg.Sources[args[0]]
					if !ok && cfg.DropRefused(args[0]) {
						// Never served, so it has no secrets of its own yet.
						if err := cfg.Save(path); err != nil {
							return err
						}
						fmt.Fprintf(e.Stdout, "Removed source %s.\n", args[0])
						return nil
					}
					if !ok {
						return unknownSource(cfg, args[0])
					}
					if err := profilesHolding(cfg, args[0], ""); err != nil {
						return err
					}
					kc, err := e.keychain()
					if err != nil {
						return err
					}
					for _, conn := range s.ConnectionNames() {
						for _, ref := range s.SecretRefs(conn) {
							if err := kc.Delete(config.SecretKey(args[0], conn, ref)); err != nil && !errors.Is(err, keychain.ErrNotFound) {
								fmt.Fprintf(e.Stderr, "warning: %v\n", err)
							}
						}
					}
					// Its sign-ins go with it: a source added later under
					// the same name, for another server, starts signed out.
					if err := oauth.DeleteSignIns(kc, args[0], s.ConnectionNames()); err != nil {
						fmt.Fprintf(e.Stderr, "warning: %v\n", err)
					}
					delete(cfg.Sources, args[0])
					if err := cfg.Save(path); err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Removed source %s.\n", args[0])
					return nil
				},
			},
			sourceImportCommand(),
		},
	}
}

func sourceAddCommand() *command {
	var envs, headers, origins multiFlag
	var url, cwd, openapi, baseURL string
	var replace bool
	return &command{
		name:    "add",
		args:    "NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...]  |  NAME --url URL [--header K=V]...  |  NAME --openapi FILE|URL [--base-url URL] [--origin ORIGIN]...",
		summary: "Add a stdio, streamable HTTP or OpenAPI (REST) source",
		long: `A source is one MCP server (stdio or streamable HTTP) or one REST API
described by OpenAPI. Its tools appear in the sandbox as the global object
named after it. Secrets do not go here: add them to a connection with
'capabilities connection add NAME CONNECTION' (stdin, into the keychain).

Examples:
  capabilities source add memory -- npx -y @modelcontextprotocol/server-memory
  capabilities source add docs --url https://mcp.example.com/mcp
  capabilities source add petstore --openapi ./petstore.json --base-url http://localhost:4010

An OpenAPI source is a REST API: each operation of its OpenAPI 3.0 or 3.1
document becomes a tool. --base-url overrides the document's server. An
operation whose own server is on another origin (GitHub's release-asset
upload, at https://uploads.github.com) is left out, since the source's
credentials go to its API's origin only; --origin ORIGIN serves those on
ORIGIN and sends the credentials there too.`,
		flags: func(fs *flag.FlagSet) {
			fs.Var(&envs, "env", "environment variable `K=V` for a stdio source (repeatable)")
			fs.Var(&headers, "header", "HTTP header `K=V` for an HTTP source (repeatable)")
			fs.StringVar(&url, "url", "", "streamable HTTP endpoint `URL`")
			fs.StringVar(&cwd, "cwd", "", "working `DIR` of a stdio source")
			fs.StringVar(&openapi, "openapi", "", "OpenAPI document (`FILE or URL`) of a REST API")
			fs.StringVar(&baseURL, "base-url", "", "base `URL` of an OpenAPI source's API, over the document's server")
			fs.Var(&origins, "origin", "another `ORIGIN` an OpenAPI source's operations may call, with its credentials (repeatable)")
			fs.BoolVar(&replace, "replace", false, "replace a source of the same name")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) == 0 {
				return usagef("needs a source NAME")
			}
			name, rest := args[0], args[1:]
			if strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
				return usagef("%q is a URL, not a name: name the source first, then --url %s for an MCP server or --openapi %s for a REST API's document", name, name, name)
			}
			s := &config.Source{URL: url, Cwd: cwd}
			var err error
			if s.Env, err = keyValues("env", envs); err != nil {
				return err
			}
			if s.Headers, err = keyValues("header", headers); err != nil {
				return err
			}
			if openapi != "" || baseURL != "" || len(origins) > 0 {
				s.Origins = origins
				return addOpenAPISource(ctx, e, name, rest, s, openapi, baseURL, replace)
			}
			switch {
			case url == "" && len(rest) == 0:
				return usagef("needs a COMMAND after -- (stdio) or --url URL (streamable HTTP)")
			case url != "" && len(rest) > 0:
				return usagef("takes a COMMAND or --url, not both")
			case len(rest) > 0:
				s.Command, s.Args = rest[0], rest[1:]
			}
			folder, err := stdioFolder(s)
			if err != nil {
				return err
			}
			for k, v := range s.Env {
				if secrets.LooksSecretName(k) || secrets.LooksLikeToken(v) {
					return withHint(fmt.Errorf("--env %s looks like a secret; secrets never go into config.json", k),
						fmt.Sprintf("add the source without it, then: capabilities connection add %s default --env %s  (reads the secret from stdin)", name, k))
				}
			}
			for k, v := range s.Headers {
				if secrets.LooksSecretName(k) || secrets.LooksLikeToken(v) {
					return withHint(fmt.Errorf("--header %s looks like a secret; secrets never go into config.json", k),
						fmt.Sprintf("add the source without it, then: capabilities connection add %s default --header %s  (reads the secret from stdin)", name, k))
				}
			}
			if problem := s.ArgSecretProblem(name); problem != "" {
				return errors.New(problem)
			}
			if err := urlSecretRefused(name, s); err != nil {
				return err
			}
			cfg, path, err := e.loadConfig()
			if err != nil {
				return err
			}
			old := cfg.Sources[name]
			if err := cfg.AddSource(path, name, s, replace); err != nil {
				return err
			}
			var missing error
			if err := s.FindCommand(); errors.Is(err, config.ErrCommandNotFound) && !strings.ContainsRune(s.Command, '/') {
				// This shell's PATH need not be the hub's: a client may
				// start it with another. Said, not refused.
				missing = err
			} else if err != nil {
				return withHint(err, "give the program that starts the MCP server, e.g. capabilities source add NAME -- npx -y @modelcontextprotocol/server-memory")
			}
			if err := forgetReplaced(e, name, old, s); err != nil {
				return err
			}
			if err := cfg.Save(path); err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "Added source %s (namespace %s).\n", name, naming.Namespace(name))
			printNote(e, replacedNote(name, old, s))
			if folder {
				fmt.Fprintf(e.Stdout, "It runs in %s, the folder its command's relative paths name (--cwd sets another).\n", s.Cwd)
			}
			if missing != nil {
				fmt.Fprintf(e.Stdout, "Note: %v; the hub cannot start it until it finds the program.\n", missing)
			}
			if note := s.PlainHTTPNote(name, ""); note != "" {
				fmt.Fprintf(e.Stdout, "Note: %s.\n", note)
			}
			urlRefsNote(e, name, s, "URL", s.URL)
			return nil
		},
	}
}

// stdioFolder makes a stdio source's working folder whole, since the hub
// runs its command from a folder of its own: --cwd's, or, when the command
// or an argument is a relative path (./server.js), the folder the command
// was given in. It reports whether it chose that folder.
func stdioFolder(s *config.Source) (chosen bool, err error) {
	if s.Command == "" {
		return false, nil
	}
	if s.Cwd != "" {
		abs, err := filepath.Abs(s.Cwd)
		if err != nil {
			return false, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return false, fmt.Errorf("--cwd %s: no such folder", s.Cwd)
		}
		s.Cwd = abs
		return false, nil
	}
	relative := func(p string) bool {
		return strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || p == "." || p == ".."
	}
	named := relative(s.Command) || strings.ContainsRune(s.Command, '/') && !filepath.IsAbs(s.Command) && !strings.HasPrefix(s.Command, "~/")
	for _, a := range s.Args {
		named = named || relative(a)
	}
	if !named {
		return false, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return false, err
	}
	s.Cwd = wd
	return true, nil
}

func sourceImportCommand() *command {
	var only string
	var replace bool
	return &command{
		name:    "import",
		args:    "FILE [--only NAME,NAME] [--replace]",
		summary: "Import the MCP servers of a client config (mcpServers) as sources",
		long: `Reads a client's MCP config (Claude Desktop, Claude Code, Cursor, VS Code) and
adds its servers as sources. Values that look like secrets (tokens, keys,
passwords) move into the keychain under the source's "default" connection;
config.json only references them.`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&only, "only", "", "import only these comma-separated `NAMES`")
			fs.BoolVar(&replace, "replace", false, "replace sources of the same name")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 1 {
				return usagef("needs exactly one FILE")
			}
			file := args[0]
			data, err := os.ReadFile(file)
			if err != nil {
				return fmt.Errorf("reading %s: %w", file, err)
			}
			imp, err := config.ParseImport(file, data)
			if err != nil {
				return err
			}
			cfg, path, err := e.loadConfig()
			if err != nil {
				return err
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			res, err := importSources(e, cfg, path, imp, splitList(only), replace, kc)
			if err != nil {
				return err
			}
			for _, r := range imp.Refused {
				fmt.Fprintf(e.Stderr, "Skipped: %v\n", r)
			}
			for _, n := range res.skipped {
				fmt.Fprintf(e.Stdout, "Skipped %s: a source of that name exists (use --replace).\n", n)
			}
			for _, n := range res.added {
				fmt.Fprintf(e.Stdout, "Imported %s (namespace %s).\n", n, naming.Namespace(n))
				printNote(e, res.notes[n])
			}
			for _, m := range res.moved {
				fmt.Fprintf(e.Stdout, "Moved %s into the keychain.\n", m)
			}
			if len(res.added) == 0 {
				fmt.Fprintf(e.Stdout, "Nothing imported from %s.\n", filepath.Base(file))
			}
			return nil
		},
	}
}

type importResult struct {
	added, skipped, moved []string
	notes                 map[string]string // replacedNote of each source replaced
}

// importSources stores an import's secrets in the keychain first, then
// removes what the sources it replaces leave behind, then saves the config
// that references them, so a failure leaves no dangling reference, no
// secret in the file, and no secret read where it was not sent before.
func importSources(e *env, cfg *config.Config, path string, imp *config.Import, only []string, replace bool, kc keychain.Keychain) (importResult, error) {
	res := importResult{notes: map[string]string{}}
	var replaced []func() error
	want := map[string]bool{}
	for _, n := range only {
		if _, ok := imp.Sources[n]; !ok {
			return res, fmt.Errorf("--only %s: the file has no server of that name (it has: %s)", n, strings.Join(sortedNames(imp.Sources), ", "))
		}
		want[n] = true
	}
	for _, name := range sortedNames(imp.Sources) {
		if len(want) > 0 && !want[name] {
			continue
		}
		if _, exists := cfg.Sources[name]; exists && !replace {
			res.skipped = append(res.skipped, name)
			continue
		}
		s, old := imp.Sources[name], cfg.Sources[name]
		for _, conn := range s.ConnectionNames() {
			for _, ref := range s.SecretRefs(conn) {
				key := config.SecretKey(name, conn, ref)
				if v, ok := imp.Secrets[key]; ok {
					if err := kc.Set(key, v); err != nil {
						return res, err
					}
				}
			}
		}
		if err := cfg.AddSource(path, name, s, replace); err != nil {
			return res, err
		}
		res.added = append(res.added, name)
		if old != nil {
			replaced = append(replaced, func() error { return forgetWith(e, kc, name, old, s, imp.Secrets) })
			res.notes[name] = replacedNote(name, old, s)
		}
		for _, m := range imp.Moved {
			if strings.HasPrefix(m, name+".") {
				res.moved = append(res.moved, m)
			}
		}
	}
	for _, forget := range replaced {
		if err := forget(); err != nil {
			return res, err
		}
	}
	if len(res.added) > 0 {
		if err := cfg.Save(path); err != nil {
			return res, err
		}
	}
	return res, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func unknownSource(cfg *config.Config, name string) error {
	names := sortedNames(cfg.Sources)
	msg := fmt.Errorf("no source named %q", name)
	if len(names) == 0 {
		return withHint(msg, "there are no sources yet; add one with 'capabilities source add'")
	}
	return withHint(msg, "sources: "+strings.Join(names, ", "))
}

func connectionsLine(s *config.Source) string {
	names := s.ConnectionNames()
	if len(names) == 0 {
		return "-"
	}
	def := s.DefaultConnection()
	for i, n := range names {
		if n == def {
			names[i] = n + "*"
		}
	}
	return strings.Join(names, ", ")
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shorten is s in at most n bytes: cut at a character, with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return secrets.Shorten(s, n-1) + "…"
}

// replacedNote says, for source name (s) that replaced old, what became
// of old's connections and their secrets; "" when old had none.
func replacedNote(name string, old, s *config.Source) string {
	if old == nil || len(old.Connections) == 0 {
		return ""
	}
	names := strings.Join(old.ConnectionNames(), ", ")
	switch {
	case !config.SameReach(old, s):
		return fmt.Sprintf("Note: it reaches another %s than the source it replaces, so that source's connections (%s) are left out and their secrets and sign-ins removed from the keychain; add them again with 'capabilities connection add %s CONNECTION'.", old.Reach(), names, name)
	case maps.Equal(old.Connections, s.Connections):
		return fmt.Sprintf("It keeps the connections of the source it replaces (%s): their secrets go to it now.", names)
	case len(s.Connections) > 0:
		return fmt.Sprintf("Note: its connections replace those of the source it replaces (%s); the secrets it does not read are removed from the keychain.", names)
	}
	return fmt.Sprintf("Note: the connections of the source it replaces (%s) do not fit it and are left out; their secrets are removed from the keychain.", names)
}

func printNote(e *env, note string) {
	if note != "" {
		fmt.Fprintln(e.Stdout, note)
	}
}

// forgetReplaced removes from the keychain what the source name that s
// replaces (old) leaves behind (oauth.ForgetReplaced), before the config
// that holds s is saved.
func forgetReplaced(e *env, name string, old, s *config.Source) error {
	if old == nil {
		return nil
	}
	kc, err := e.keychain()
	if err != nil {
		return err
	}
	return forgetWith(e, kc, name, old, s, nil)
}

// forgetWith is forgetReplaced with the keychain kc and the secrets fresh
// just stored for s; what it could not remove of old's sign-ins is said.
func forgetWith(e *env, kc keychain.Keychain, name string, old, s *config.Source, fresh map[string]string) error {
	warning, err := oauth.ForgetReplaced(kc, name, old, s, fresh)
	if warning != nil {
		fmt.Fprintf(e.Stderr, "warning: %v\n", warning)
	}
	return err
}

// addOpenAPISource adds a REST API from its OpenAPI document, after reading
// the document as the hub will, so a bad one is refused with its place.
func addOpenAPISource(ctx context.Context, e *env, name string, rest []string, s *config.Source, loc, baseURL string, replace bool) error {
	switch {
	case loc == "":
		return usagef("--base-url and --origin go with --openapi FILE|URL")
	case len(rest) > 0 || s.URL != "" || s.Cwd != "" || len(s.Env) > 0:
		return usagef("--openapi takes no COMMAND, --url, --cwd or --env")
	}
	if !strings.HasPrefix(loc, "http://") && !strings.HasPrefix(loc, "https://") && !strings.HasPrefix(loc, "~/") {
		abs, err := filepath.Abs(loc)
		if err != nil {
			return err
		}
		loc = abs
	}
	s.OpenAPI, s.BaseURL = loc, baseURL
	if err := urlSecretRefused(name, s); err != nil {
		return err
	}
	for k, v := range s.Headers {
		if secrets.LooksSecretName(k) || secrets.LooksLikeToken(v) {
			return withHint(fmt.Errorf("--header %s looks like a secret; secrets never go into config.json", k),
				fmt.Sprintf("add the source without it, then: capabilities connection add %s default --header %s  (reads the secret from stdin)", name, k))
		}
	}
	rep, err := openapiChild(e).Inspect(ctx, loc)
	if err != nil {
		return withHint(err, "fix the document, or point --openapi at another one")
	}
	cfg, path, err := e.loadConfig()
	if err != nil {
		return err
	}
	old := cfg.Sources[name]
	if err := cfg.AddSource(path, name, s, replace); err != nil {
		return err
	}
	if err := forgetReplaced(e, name, old, s); err != nil {
		return err
	}
	if err := cfg.Save(path); err != nil {
		return err
	}
	// The report counts an operation on another origin as left out; the
	// source serves those on the origins it lists.
	served, skipped := rep.Operations, len(rep.Skipped)
	var elsewhere []string
	for _, origin := range slices.Sorted(maps.Keys(rep.Elsewhere)) {
		if s.AllowsOrigin(origin) {
			served, skipped = served+rep.Elsewhere[origin], skipped-rep.Elsewhere[origin]
		} else {
			elsewhere = append(elsewhere, origin)
		}
	}
	fmt.Fprintf(e.Stdout, "Added source %s (namespace %s): %d %s", name, naming.Namespace(name), served, plural(served, "operation", "operations"))
	if skipped > 0 {
		fmt.Fprintf(e.Stdout, ", %d skipped (capabilities doctor lists them)", skipped)
	}
	fmt.Fprintln(e.Stdout, ".")
	printNote(e, replacedNote(name, old, s))
	for _, o := range s.Origins {
		if rep.Elsewhere[secrets.OriginOfURL(o)] == 0 {
			fmt.Fprintf(e.Stdout, "Note: no operation of the document calls --origin %s; it serves nothing more.\n", o)
		}
	}
	if len(elsewhere) > 0 {
		n, cmd := 0, "capabilities source add "+name+" --openapi "+shellQuote(loc)
		if s.BaseURL != "" {
			cmd += " --base-url " + shellQuote(s.BaseURL)
		}
		for _, o := range s.Origins {
			cmd += " --origin " + shellQuote(o)
		}
		for i, origin := range elsewhere {
			n += rep.Elsewhere[origin]
			elsewhere[i] = secrets.ShownOrigin(origin)
			cmd += " --origin " + elsewhere[i]
		}
		what := fmt.Sprintf("%d of its operations call a server of their own on another origin (%s), and are left out", n, strings.Join(elsewhere, ", "))
		if n == 1 {
			what = fmt.Sprintf("One of its operations calls a server of its own on another origin (%s), and is left out", elsewhere[0])
		}
		fmt.Fprintf(e.Stdout, "Note: %s: the source's credentials go to the API's origin only. To serve %s and send the credentials there too: %s --replace\n", what, plural(n, "it", "them"), cmd)
	}
	if rep.Untyped > 0 {
		fmt.Fprintf(e.Stdout, "Note: %s.\n", openapi.UntypedNote(rep.Untyped))
	}
	if note := s.PlainHTTPNote(name, rep.Server); note != "" {
		fmt.Fprintf(e.Stdout, "Note: %s.\n", note)
	}
	urlRefsNote(e, name, s, "base URL", s.BaseURL)
	// Say now what the API takes, rather than at its first call.
	if len(cfg.Sources[name].Connections) == 0 {
		if _, err := rep.SignInFlow(name, s); err == nil && rep.Place.OAuth {
			fmt.Fprintf(e.Stdout, "It signs in with OAuth; sign in with: capabilities connection login %s  (or give it an access token: printf %%s \"$TOKEN\" | capabilities connection add %s default)\n", name, name)
		} else if p := rep.Place; rep.HasPlace {
			what, v := "an API key in "+p.Where(), "KEY"
			switch {
			case p.OAuth:
				what, v = "an OAuth access token", "TOKEN"
			case p.Prefix != "":
				what, v = "a bearer token", "TOKEN"
			}
			fmt.Fprintf(e.Stdout, "It takes %s; give it one with: printf %%s \"$%s\" | capabilities connection add %s default\n", what, v, name)
		}
	}
	return nil
}
