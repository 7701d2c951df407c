package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/net/http/httpguts"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/signin"
	"capabilities.sh/capabilities/keychain"
)

func connectionCommand() *command {
	return &command{
		name:    "connection",
		summary: "Manage a source's named credential sets (secrets live in the keychain)",
		subs: []*command{
			connectionAddCommand(),
			connectionLoginCommand(),
			connectionLogoutCommand(),
			{
				name:    "list",
				args:    "[SOURCE]",
				summary: "List connections and whether their secrets are stored",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) > 1 {
						return usagef("takes at most one SOURCE")
					}
					cfg, _, err := e.loadConfig()
					if err != nil {
						return err
					}
					names := sortedNames(cfg.Sources)
					if len(args) == 1 {
						if _, ok := cfg.Sources[args[0]]; !ok {
							return unknownSource(cfg, args[0])
						}
						names = args
					}
					kc, err := e.keychain()
					if err != nil {
						return err
					}
					running := runningSignIns(ctx, e, cfg, names)
					tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "SOURCE\tCONNECTION\tDEFAULT\tSECRETS\tSIGN-IN")
					rows := 0
					for _, sn := range names {
						s := cfg.Sources[sn]
						def := s.DefaultConnection()
						for _, cn := range s.ConnectionNames() {
							var parts []string
							for _, ref := range s.SecretRefs(cn) {
								state := "stored"
								if _, err := kc.Get(config.SecretKey(sn, cn, ref)); errors.Is(err, keychain.ErrNotFound) {
									state = "missing"
								} else if err != nil {
									state = "unreadable"
								}
								parts = append(parts, ref+" ("+state+")")
							}
							if len(parts) == 0 {
								parts = []string{"-"}
							}
							mark := ""
							if cn == def {
								mark = "yes"
							}
							signIn := signInColumn(kc, sn, cn, s)
							if st, ok := running[sn+"/"+cn]; ok {
								signIn = st.Summary
							}
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sn, cn, mark, strings.Join(parts, ", "), signIn)
							rows++
						}
						if len(s.Connections) == 0 && s.URL != "" {
							// A source without connections may still sign in,
							// or its server may have asked the running hub for
							// a sign-in.
							signIn := ""
							if st, ok := running[sn+"/"]; ok {
								signIn = st.Summary
							} else if st, err := oauth.ReadState(kc, sn, "", s); err != nil || st.Reason != "not signed in" {
								signIn = signInColumn(kc, sn, "", s)
							}
							if signIn != "" {
								fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sn, "-", "", "-", signIn)
								rows++
							}
						}
					}
					if rows == 0 {
						fmt.Fprintln(e.Stdout, "No connections. Add one with 'capabilities connection add SOURCE NAME', the secret read from stdin: a REST API's goes where its document says; an MCP server's takes --env VAR (stdio) or --header NAME (HTTP).")
						return nil
					}
					return tw.Flush()
				},
			},
			{
				name:    "remove",
				args:    "SOURCE NAME",
				summary: "Remove a connection and its secrets and sign-in",
				run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
					if len(args) != 2 {
						return usagef("needs SOURCE and connection NAME")
					}
					cfg, path, err := e.loadConfig()
					if err != nil {
						return err
					}
					s, ok := cfg.Sources[args[0]]
					if !ok {
						return unknownSource(cfg, args[0])
					}
					if _, ok := s.Connections[args[1]]; !ok {
						return withHint(fmt.Errorf("source %s has no connection %q", args[0], args[1]), "connections: "+connectionsLine(s))
					}
					if err := profilesHolding(cfg, args[0], args[1]); err != nil {
						return err
					}
					kc, err := e.keychain()
					if err != nil {
						return err
					}
					lost, err := cfg.RemoveConnection(kc, args[0], args[1])
					if err != nil {
						return err
					}
					if len(lost) > 0 {
						return errors.Join(lost...)
					}
					if err := oauth.DeleteSignIns(kc, args[0], []string{args[1]}); err != nil {
						return err
					}
					if err := cfg.Save(path); err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "Removed connection %s of %s.\n", args[1], args[0])
					return nil
				},
			},
		},
	}
}

// runningSignIns are the sign-ins of the HTTP sources and REST APIs among
// sources names as the running hub sees them, by "source/connection"; nil
// when no hub runs. The hub knows what the keychain does not say: whether
// a REST API's sign-in holds for the API as it is now (its document's
// server, which the CLI has not read), and which servers asked for a
// sign-in.
func runningSignIns(ctx context.Context, e *env, cfg *config.Config, names []string) map[string]signin.Status {
	signsIn := func(n string) bool { return cfg.Sources[n].OpenAPI != "" || cfg.Sources[n].URL != "" }
	if !slices.ContainsFunc(names, signsIn) {
		return nil
	}
	c, err := e.client(ctx)
	if err != nil {
		return nil
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return nil
	}
	out := map[string]signin.Status{}
	for _, src := range st.Sources {
		if cfg.Sources[src.Name] == nil || !signsIn(src.Name) {
			continue
		}
		for _, si := range src.SignIns {
			if !si.Offered {
				out[src.Name+"/"+si.Connection] = si
			}
		}
	}
	return out
}

// signInColumn is a connection's OAuth state for connection list: "-" for
// a connection that does not sign in.
func signInColumn(kc *keychain.Home, source, conn string, s *config.Source) string {
	st, err := oauth.ReadState(kc, source, conn, s)
	switch {
	case err != nil:
		return "unreadable (" + err.Error() + ")"
	case !st.SignedIn && !s.IsOAuth(conn) && (conn != "" || len(s.Connections) > 0) && st.Reason == "not signed in":
		return "-"
	}
	return st.Summary()
}

// resolveOAuthConn finds the connection login and logout act on: NAME, or
// the source's default, or none for a source without connections.
func resolveOAuthConn(cfg *config.Config, args []string) (string, string, *config.Source, error) {
	if len(args) < 1 || len(args) > 2 {
		return "", "", nil, usagef("needs SOURCE and optionally a connection NAME")
	}
	s, ok := cfg.Sources[args[0]]
	if !ok {
		return "", "", nil, unknownSource(cfg, args[0])
	}
	if s.URL == "" && s.OpenAPI == "" {
		return "", "", nil, fmt.Errorf("source %s is a stdio source; only HTTP sources sign in with OAuth", args[0])
	}
	conn := ""
	if len(args) == 2 {
		conn = args[1]
	}
	conn, err := s.SignInConnection(args[0], conn)
	if err != nil {
		return "", "", nil, withHint(fmt.Errorf("source %s has no default connection", args[0]), "name one: "+connectionsLine(s))
	}
	return args[0], conn, s, nil
}

func connectionLoginCommand() *command {
	var secretStdin bool
	var clientID string
	var redirectPort int
	return &command{
		name:    "login",
		args:    "SOURCE [NAME] [--client-id ID] [--redirect-port PORT] [--client-secret-stdin]",
		summary: "Sign a connection in with OAuth in the browser; the tokens go to the keychain",
		long: `Opens the server's authorization page with $BROWSER when it is set, else the
desktop's opener, waits for the redirect to 127.0.0.1, and keeps the tokens in
the keychain under this home's service. A connection NAME the source does not
have yet is added with an "oauth" object.

For an MCP server over HTTP the client is registered as the MCP spec orders
it: the Client ID Metadata Document of "oauth.clientMetadataUrl", the
preregistered "oauth.clientId" (its secret, if any, read from stdin with
--client-secret-stdin), or dynamic registration.

A REST API signs in with the OAuth flow its OpenAPI document names (an
authorization code flow, or an OpenID Connect discovery URL), with a client
registered with its authorization server beforehand (--client-id, and the
port of the redirect URI registered with it, http://127.0.0.1:PORT/callback),
or registered dynamically when that server allows it. Its token goes to the
API's server only.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&secretStdin, "client-secret-stdin", false, "read the preregistered client's secret from stdin into the keychain")
			fs.StringVar(&clientID, "client-id", "", "the client registered with the authorization server beforehand (kept as oauth.clientId)")
			fs.IntVar(&redirectPort, "redirect-port", 0, "the port of the redirect URI registered for that client (kept as oauth.redirectPort)")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			cfg, path, err := e.loadConfig()
			if err != nil {
				return err
			}
			source, conn, s, err := resolveOAuthConn(cfg, args)
			if err != nil {
				return err
			}
			if clientID != "" || redirectPort != 0 || secretStdin {
				// A client is kept in a connection: a source without
				// one gets its first.
				if conn, err = s.ClientConnection(source, conn); err != nil {
					return err
				}
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			var flow *oauth.Flow
			if s.OpenAPI != "" {
				rep, err := openapiChild(e).Inspect(ctx, s.OpenAPI)
				if err != nil {
					return err
				}
				if flow, err = rep.SignInFlow(source, s); err != nil {
					return err
				}
			}
			c := s.Connections[conn]
			if flow != nil && flow.ClientCredentials {
				// The client's id and secret are all there is to it:
				// without them nothing is changed.
				known := c != nil && c.OAuth != nil && c.OAuth.ClientID != ""
				_, kerr := kc.Get(oauth.ClientSecretKey(source, conn))
				if clientID == "" && !known || !secretStdin && kerr != nil {
					return withHint(fmt.Errorf("the API of %s takes a token its client gets on its own (scheme %s, client credentials)", source, flow.Scheme),
						fmt.Sprintf("give the client registered with its authorization server: printf %%s \"$SECRET\" | capabilities connection login %s %s --client-id ID --client-secret-stdin", source, conn))
				}
			}
			added := conn != "" && c == nil
			hadNone := len(s.Connections) == 0
			if conn != "" && s.PutOAuth(conn, clientID, redirectPort) {
				if err := cfg.Validate(path); err != nil {
					return err
				}
				if err := cfg.Save(path); err != nil {
					return err
				}
				if added {
					fmt.Fprintf(e.Stdout, "Added connection %s of %s.\n", conn, source)
				}
				if hadNone && s.URL != "" {
					// The source signed in as none; its connection now
					// does, and that sign-in would be left behind.
					if err := oauth.DeleteSignIns(kc, source, nil); err != nil {
						return err
					}
				}
			}
			if secretStdin {
				sec, err := readSecret(e.Stdin)
				if err != nil {
					return err
				}
				if err := oauth.SetClientSecret(kc, source, conn, sec); err != nil {
					return err
				}
			}
			if flow != nil && flow.ClientCredentials {
				fmt.Fprintf(e.Stdout, "Getting an access token of %s at %s (the token goes to %s only)...\n",
					source, flow.TokenURL, secrets.ShownOrigin(flow.Resource))
			} else if flow != nil {
				// Say where the person signs in and where the token goes:
				// the document names both.
				fmt.Fprintf(e.Stdout, "Opening the sign-in page of %s in the browser (at %s; the token goes to %s only); waiting for it to finish...\n",
					source, secrets.ShownOrigin(secrets.OriginOfURL(cmp.Or(flow.AuthURL, flow.Discovery))), secrets.ShownOrigin(flow.Resource))
			} else {
				fmt.Fprintf(e.Stdout, "Opening the sign-in page of %s in the browser; waiting for it to finish...\n", source)
			}
			ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
			defer cancel()
			g, err := oauth.SignIn(ctx, oauth.SignInOptions{Source: source, Conn: conn, Def: s, Keychain: kc, Flow: flow})
			if err != nil {
				return err
			}
			tellHubSignedIn(ctx, e, source, conn)
			name := conn
			if name == "" {
				name = "-"
			}
			fmt.Fprintf(e.Stdout, "Signed in %s (connection %s)", source, name)
			if g.Issuer != "" {
				fmt.Fprintf(e.Stdout, " at %s", g.Issuer)
			}
			fmt.Fprintln(e.Stdout, ".")
			scopes := "none named"
			if len(g.Scopes) > 0 {
				scopes = strings.Join(g.Scopes, " ")
			}
			fmt.Fprintf(e.Stdout, "Granted scopes: %s\n", scopes)
			switch {
			case g.Refreshable:
				fmt.Fprintln(e.Stdout, "The access token is refreshed as needed.")
			case !g.Expiry.IsZero():
				fmt.Fprintf(e.Stdout, "The access token expires at %s; sign in again then.\n", g.Expiry.UTC().Format("2006-01-02 15:04 UTC"))
			}
			return nil
		},
	}
}

func connectionLogoutCommand() *command {
	return &command{
		name:    "logout",
		args:    "SOURCE [NAME]",
		summary: "Revoke a connection's OAuth tokens (where the server offers it) and delete them",
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			cfg, _, err := e.loadConfig()
			if err != nil {
				return err
			}
			source, conn, _, err := resolveOAuthConn(cfg, args)
			if err != nil {
				return err
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			st, err := oauth.ReadState(kc, source, conn, nil)
			if err != nil {
				return err
			}
			if !st.SignedIn && st.Reason == "not signed in" {
				fmt.Fprintf(e.Stdout, "%s is not signed in; nothing to do.\n", source)
				return nil
			}
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			revoked, err := oauth.SignOut(ctx, kc, source, conn, nil)
			if err != nil {
				return err
			}
			if revoked {
				fmt.Fprintf(e.Stdout, "Signed out of %s: the server revoked the tokens and they are deleted from the keychain.\n", source)
			} else {
				fmt.Fprintf(e.Stdout, "Signed out of %s: the tokens are deleted from the keychain (the server offers no revocation).\n", source)
			}
			return nil
		},
	}
}

func connectionAddCommand() *command {
	var envVar, header, query, cookie, prefix, secretName string
	var makeDefault bool
	return &command{
		name:    "add",
		args:    "SOURCE NAME [--env VAR | --header NAME [--prefix 'Bearer '] | --query NAME | --cookie NAME] [--default]  < secret",
		summary: "Add a connection; its secret is read from stdin into the keychain",
		long: `The secret is read from standard input (one line; a trailing newline is
dropped) and stored in the OS keychain under this home's service ("capabilities/<home id>").
config.json only references it, as ${secret:NAME}.

--env VAR passes the secret to a stdio source as environment variable VAR;
--header NAME sends it to an HTTP or OpenAPI source as header NAME (after
--prefix); --query NAME and --cookie NAME send it to an OpenAPI source as
query parameter or cookie NAME. Without any of them the secret fills the
connection's existing reference or, for an OpenAPI source, goes where the
document's security scheme says (an API key's header, query parameter or
cookie, or a bearer token's Authorization header).

Examples:
  printf %s "$GITHUB_TOKEN" | capabilities connection add github work --env GITHUB_PERSONAL_ACCESS_TOKEN
  printf %s "$API_KEY" | capabilities connection add petstore work`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&envVar, "env", "", "pass the secret as environment variable `VAR` (stdio)")
			fs.StringVar(&header, "header", "", "send the secret as header `NAME` (HTTP, OpenAPI)")
			fs.StringVar(&query, "query", "", "send the secret as query parameter `NAME` (HTTP, OpenAPI)")
			fs.StringVar(&cookie, "cookie", "", "send the secret as cookie `NAME` (OpenAPI)")
			fs.StringVar(&prefix, "prefix", "", "text before the secret in the header, e.g. 'Bearer '")
			fs.StringVar(&secretName, "secret", "", "which `REF` of the connection to fill, when it has several")
			fs.BoolVar(&makeDefault, "default", false, "make this the source's default connection")
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
			if len(args) != 2 {
				return usagef("needs SOURCE and connection NAME")
			}
			places := 0
			for _, f := range []string{envVar, header, query, cookie} {
				if f != "" {
					places++
				}
			}
			if places > 1 {
				return usagef("takes one of --env, --header, --query and --cookie")
			}
			if prefix != "" && header == "" {
				return usagef("--prefix goes with --header")
			}
			srcName, connName := args[0], args[1]
			cfg, path, err := e.loadConfig()
			if err != nil {
				return err
			}
			s, ok := cfg.Sources[srcName]
			if !ok {
				return unknownSource(cfg, srcName)
			}
			if s.Connections == nil {
				s.Connections = map[string]*config.Connection{}
			}
			conn := s.Connections[connName]
			isNew := conn == nil
			if isNew {
				conn = &config.Connection{}
			}
			ref := secretName
			// place is where an OpenAPI source's secret goes ("header
			// api_key"), said back to the person when the document chose it.
			var place openapi.SecretPlace
			var rep *openapi.Report // the document, when it was read for the place
			switch {
			case envVar != "":
				if s.Command == "" {
					return withHint(fmt.Errorf("source %s is not a stdio source; --env is for stdio sources", srcName), "use --header NAME")
				}
				if ref == "" {
					ref = envVar
				}
				if conn.Env == nil {
					conn.Env = map[string]string{}
				}
				conn.Env[envVar] = "${secret:" + ref + "}"
			case header != "":
				if s.Command != "" {
					return withHint(fmt.Errorf("source %s is a stdio source; --header is for HTTP sources", srcName), "use --env VAR")
				}
				if !httpguts.ValidHeaderFieldName(header) {
					return usagef("--header %q is not a header name: letters, digits and dashes, such as Authorization or X-Api-Key", header)
				}
				if ref == "" {
					ref = header
				}
				if conn.Headers == nil {
					conn.Headers = map[string]string{}
				}
				conn.Headers[header] = prefix + "${secret:" + ref + "}"
			case query != "" || cookie != "":
				switch {
				case cookie != "" && s.OpenAPI == "":
					return withHint(fmt.Errorf("source %s is not an OpenAPI source; --cookie is for OpenAPI sources", srcName), "use --header NAME (HTTP) or --env VAR (stdio)")
				case s.Command != "":
					return withHint(fmt.Errorf("source %s is a stdio source; --query is for HTTP and OpenAPI sources", srcName), "use --env VAR")
				}
				m, name := &conn.Query, query
				if cookie != "" {
					m, name = &conn.Cookies, cookie
				}
				if ref == "" {
					ref = name
				}
				if *m == nil {
					*m = map[string]string{}
				}
				(*m)[name] = "${secret:" + ref + "}"
			default:
				s.Connections[connName] = conn // so SecretRefs sees it
				refs := s.SecretRefs(connName)
				if isNew {
					delete(s.Connections, connName) // PutConnection adds it below
				}
				switch {
				case ref != "":
					if !contains(refs, ref) {
						return fmt.Errorf("connection %s of %s has no secret reference %q (it has: %s)", connName, srcName, ref, strings.Join(refs, ", "))
					}
				case len(refs) == 1:
					ref = refs[0]
				case len(refs) == 0 && s.OpenAPI != "":
					r, err := openapiChild(e).Inspect(ctx, s.OpenAPI)
					switch {
					case err != nil:
						return fmt.Errorf("reading where %s takes its secret: %w", srcName, err)
					case !r.HasPlace:
						return usagef("%s's document names no API key, bearer token or OAuth; say where the secret goes: --header NAME, --query NAME or --cookie NAME (a bearer token: --header Authorization --prefix 'Bearer ')", srcName)
					}
					r.Place.Put(conn)
					ref, place, rep = r.Place.Name, r.Place, &r
				case len(refs) == 0:
					return usagef("say where the secret goes: --env VAR (stdio) or --header NAME (HTTP)")
				default:
					return usagef("connection %s references several secrets (%s); pick one with --secret REF", connName, strings.Join(refs, ", "))
				}
			}
			secret, err := readSecret(e.Stdin)
			if err != nil {
				return err
			}
			def := s.PutConnection(connName, conn, makeDefault)
			if err := cfg.Validate(path); err != nil {
				return err
			}
			kc, err := e.keychain()
			if err != nil {
				return err
			}
			if err := kc.Set(config.SecretKey(srcName, connName, ref), secret); err != nil {
				return err
			}
			if err := cfg.Save(path); err != nil {
				return err
			}
			verb := "Updated"
			if isNew {
				verb = "Added"
			}
			fmt.Fprintf(e.Stdout, "%s connection %s of %s; secret %s stored in the keychain.\n", verb, connName, srcName, ref)
			switch {
			case place.OAuth:
				fmt.Fprintf(e.Stdout, "It is sent as an OAuth access token in %s (after %q), as the API's document says.\n", place.Where(), place.Prefix)
			case place.Name != "":
				fmt.Fprintf(e.Stdout, "It is sent as %s, as the API's document says.\n", place.Where())
			}
			if def != connName && def != "" {
				fmt.Fprintf(e.Stdout, "%s stays the default connection of %s; pass --default to make it %s.\n", def, srcName, connName)
			}
			server := secretServer(ctx, openapiChild(e), cfg.Sources[srcName], rep)
			if line := goesTo(cfg.Sources[srcName], server); line != "" {
				fmt.Fprintln(e.Stdout, line)
			}
			if note := plainHTTPNote(srcName, cfg.Sources[srcName], server); note != "" {
				fmt.Fprintf(e.Stdout, "Note: %s.\n", note)
			}
			return nil
		},
	}
}

// readSecret reads one secret from r: the whole input, without the trailing
// newline. It never echoes or logs the value.
func readSecret(r io.Reader) (string, error) {
	if r == nil {
		return "", withHint(errors.New("no secret on standard input"), "pipe it in: printf %s \"$TOKEN\" | capabilities connection add ...")
	}
	data, err := io.ReadAll(bufio.NewReader(io.LimitReader(r, 64<<10)))
	if err != nil {
		return "", fmt.Errorf("reading the secret from stdin: %w", err)
	}
	s := strings.TrimRight(string(data), "\r\n")
	if s == "" {
		return "", withHint(errors.New("no secret on standard input"), "pipe it in: printf %s \"$TOKEN\" | capabilities connection add ...")
	}
	if strings.ContainsAny(s, "\n") {
		return "", errors.New("the secret on standard input spans several lines; a secret is one line")
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// plainHTTPNote is config.Source.PlainHTTPNote for a configured source, reading an
// OpenAPI source's document (parsed as child parses it) for its server when it
// has no baseUrl, unless rep is that document's report already.
func plainHTTPNote(name string, s *config.Source, server string) string {
	if s == nil {
		return ""
	}
	if s.OpenAPI == "" || s.BaseURL != "" {
		server = ""
	}
	return s.PlainHTTPNote(name, server)
}

// secretServer is the URL source s sends its connections' secrets to: its
// MCP server's, its API's base URL, or the server its OpenAPI document
// names (read unless rep, the document's report, is given); "" for a
// program, or when the document names none.
func secretServer(ctx context.Context, child *openapi.Child, s *config.Source, rep *openapi.Report) string {
	switch {
	case s == nil:
		return ""
	case s.URL != "":
		return s.URL
	case s.OpenAPI == "":
		return ""
	case s.BaseURL != "":
		return s.BaseURL
	case rep == nil:
		r, _ := child.Inspect(ctx, s.OpenAPI)
		rep = &r
	}
	return rep.Server
}

// goesTo says where a secret of source s goes: the origin of server, and
// the other origins an OpenAPI source lists; "" for a program.
func goesTo(s *config.Source, server string) string {
	o := secrets.OriginOfURL(server)
	if s == nil || o == "" {
		return ""
	}
	to := secrets.ShownOrigin(o)
	if len(s.Origins) > 0 {
		to += " and " + strings.Join(s.Origins, ", ")
	}
	return "It goes to " + to + " only."
}

// tellHubSignedIn tells a running hub that connection conn of source just
// signed in, so it closes the sign-in page it opened for a waiting run
// and its window says signed in at once. Without a running hub there is
// nobody to tell; a hub that does not take it reads the sign-in from the
// keychain on its next call anyway, which the warning says.
func tellHubSignedIn(ctx context.Context, e *env, source, conn string) {
	c, err := e.client(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	if err := c.NoteSignIn(ctx, source, conn); err != nil {
		fmt.Fprintf(e.Stderr, "warning: the running hub did not take the news of the sign-in (%v); it reads it from the keychain on its next call.\n", apiErr(err))
	}
}
