// Package signin is the OAuth sign-ins of the config's connections on a
// running hub: started by the person (the window's and the tray's Sign in,
// the approval dialog), offered in the background to a run that waits for
// one, told of one made in a terminal, and ended by Sign out; and their
// states, as the status, doctor, the tray and the window show them.
//
// hub/oauth does the flows and keeps the tokens; this package decides
// which connection signs in, with which flow (a REST API's comes from its
// document, through the OpenAPI sources), and tells the rest of the hub.
// It gets what it works with in Options, and nothing else: the keychain,
// the config and a way to edit one source of it, the upstream sessions'
// view of a connection, the OpenAPI sources' flows, and callbacks for
// what changed (Publish, Restart, Invalidate).
//
// The package imports the config and oauth below it; never the heart, the
// upstream sessions, the OpenAPI sources or the surfaces above it
// (deps_test.go).
package signin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/keychain"
)

// The event kinds Publish is called with. EventSignIn says a connection
// waits for the person to sign in; EventSignedIn follows when the sign-in
// finished (or failed), and tells of a connection that signed out or in
// elsewhere: its source's state changed.
const (
	EventSignIn   = "sign_in"
	EventSignedIn = "signed_in"
)

// REST is what the sign-ins need of the OpenAPI sources (an
// *openapi.Sources).
type REST interface {
	// SignInFlow is the OAuth flow source's document names.
	SignInFlow(source string) (*oauth.Flow, error)
	// SignInMoved says why a stored sign-in no longer holds for source's
	// API ("" when it does).
	SignInMoved(source, conn string) string
	// WaitsForSignIn reports that operations of source wait for the
	// credentials its document's flow gives.
	WaitsForSignIn(source string) bool
}

// Options is what a Service works with.
type Options struct {
	Keychain keychain.Keychain
	Logger   *slog.Logger
	// Scrub removes secret values from a message before it is logged.
	Scrub func(string) string
	// Config is the running config; EditSource edits one source of the
	// config on disk and applies it (edit reports whether it changed).
	Config     func() *config.Config
	EditSource func(ctx context.Context, source string, edit func(*config.Source) bool) error
	// UpstreamNeeds reports that a connection's MCP server asked for a
	// sign-in (the upstream sessions know it first).
	UpstreamNeeds func(source, conn string) bool
	REST          REST
	// Publish tells the hub's subscribers that connection conn of source
	// waits for a sign-in (EventSignIn) or signed in or out
	// (EventSignedIn).
	Publish func(kind, source, conn string)
	// Restart ends an MCP server's sessions, so they start anew without
	// the tokens of a sign-out; Invalidate forgets the views computed
	// from the sign-ins.
	Restart    func(source string)
	Invalidate func()
	// SignedIn lists source's tools again after one of its connections
	// signed in, here or elsewhere: until then its state says it waits
	// for the sign-in, and the catalog lacks what it serves. It runs in
	// the background, and ends with Context.
	SignedIn func(ctx context.Context, source string)
	// Context ends the sign-ins offered in the background.
	Context context.Context
}

// Service runs the sign-ins of a hub's connections. Its methods are safe
// for concurrent use.
type Service struct {
	opts Options
	runs oauth.SignIns

	mu     sync.Mutex
	closed bool // by Close: nothing more starts in the background
	wg     sync.WaitGroup
}

// New returns the sign-ins of a hub with opts.
func New(opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Scrub == nil {
		opts.Scrub = func(s string) string { return s }
	}
	return &Service{opts: opts}
}

// Close waits for the sign-ins offered in the background and the listings
// after a sign-in, which end with Options.Context; none starts after it.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
}

// goBackground runs f on a goroutine Close waits for, unless the Service
// is closed or its context ended; it reports whether f runs.
func (s *Service) goBackground(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.opts.Context.Err() != nil {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// NeedsSignIn is oauth.NeedsSignIn for connection conn of source, asking
// the upstream sessions (last) whether its server asked for one.
func (s *Service) NeedsSignIn(source, conn string) bool {
	return oauth.NeedsSignIn(s.opts.Keychain, source, conn, s.opts.Config().Sources[source], func() bool { return s.opts.UpstreamNeeds(source, conn) })
}

// Login signs connection conn of source in: it opens the authorization
// page (through $BROWSER when set, else the desktop's opener) and waits
// until the person finished, ctx ended, or the flow failed. The tray's and
// the window's Sign in button call it; a sign-in offered to a run is
// replaced by this one.
func (s *Service) Login(ctx context.Context, source, conn string) (*oauth.Grant, error) {
	return s.LoginShowing(ctx, source, conn, nil)
}

// LoginShowing is Login for a window that shows the sign-in page's
// address too: show gets it (on the sign-in's goroutine) as the browser
// is asked to open it, so the person can copy it when no browser opens,
// and the sign-in then waits for them instead of failing. A nil show is
// Login.
func (s *Service) LoginShowing(ctx context.Context, source, conn string, show func(url string)) (*oauth.Grant, error) {
	def := s.opts.Config().Sources[source]
	if def == nil {
		return nil, fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = def.DefaultConnection()
	}
	if def.OpenAPI != "" {
		// A REST API's sign-in is a connection's: its first is added.
		var err error
		if conn, err = s.oauthConnection(ctx, source, conn); err != nil {
			return nil, err
		}
		def = s.opts.Config().Sources[source]
	}
	run, ctx := s.runs.Begin(ctx, source, conn, true)
	defer s.runs.End(source, conn, run)
	var open func(context.Context, string) error
	if show != nil {
		open = func(ctx context.Context, url string) error {
			show(url)
			if err := oauth.OpenBrowser(ctx, url); err != nil {
				s.opts.Logger.Info("no browser opened the sign-in page; the window shows its address", "source", source, "connection", conn, "error", err)
			}
			return nil
		}
	}
	return s.signIn(ctx, def, source, conn, open)
}

// SetClient makes connection conn of source (as ClientConnection names
// it) sign in as a client registered with the authorization server
// beforehand: clientID and redirectPort (the port of the redirect URI
// registered for it; 0 keeps the one set) go to the config, secret (when
// not "") to the keychain, as `connection login --client-id ID
// --redirect-port PORT --client-secret-stdin` keeps them. It does not
// sign in.
func (s *Service) SetClient(ctx context.Context, source, conn, clientID, secret string, redirectPort int) error {
	def := s.opts.Config().Sources[source]
	clientID = strings.TrimSpace(clientID)
	switch {
	case def == nil:
		return fmt.Errorf("no source %q in the config", source)
	case def.URL == "" && def.OpenAPI == "":
		return fmt.Errorf("source %s is a stdio source; only HTTP sources and REST APIs sign in with OAuth", source)
	case clientID == "":
		return errors.New("the client id is empty")
	case redirectPort < 0 || redirectPort > 65535:
		return fmt.Errorf("the redirect port %d is not a port number", redirectPort)
	}
	conn, err := def.ClientConnection(source, conn)
	if err != nil {
		return err
	}
	if secret != "" {
		if err := oauth.SetClientSecret(s.opts.Keychain, source, conn, secret); err != nil {
			return fmt.Errorf("keeping the client's secret in the keychain: %w", err)
		}
	}
	if err := s.opts.EditSource(ctx, source, func(d *config.Source) bool { return d.PutOAuth(conn, clientID, redirectPort) }); err != nil {
		return err
	}
	if len(def.Connections) == 0 && def.URL != "" {
		// The source signed in as none; its connection now does, and
		// the sign-in kept for none would be left behind.
		return oauth.DeleteSignIns(s.opts.Keychain, source, nil)
	}
	return nil
}

// oauthConnection makes connection conn of REST API source (as
// SignInConnection names it) one that signs in with OAuth, saving the
// config when it was not, and returns its name.
func (s *Service) oauthConnection(ctx context.Context, source, conn string) (string, error) {
	conn, err := s.opts.Config().Sources[source].SignInConnection(source, conn)
	if err != nil {
		return "", err
	}
	if _, err := s.opts.REST.SignInFlow(source); err != nil {
		return "", err
	}
	return conn, s.opts.EditSource(ctx, source, func(d *config.Source) bool { return d.PutOAuth(conn, "", 0) })
}

func (s *Service) signIn(ctx context.Context, def *config.Source, source, conn string, open func(context.Context, string) error) (*oauth.Grant, error) {
	var flow *oauth.Flow
	if def.OpenAPI != "" {
		// A REST API signs in with the flow its document names.
		f, err := s.opts.REST.SignInFlow(source)
		if err != nil {
			return nil, err
		}
		flow = f
	}
	log := s.opts.Logger.With("source", source, "connection", conn)
	s.opts.Publish(EventSignIn, source, conn)
	log.Info("signing a connection in")
	g, err := oauth.SignIn(ctx, oauth.SignInOptions{Source: source, Conn: conn, Def: def, Keychain: s.opts.Keychain, Open: open, Flow: flow})
	switch {
	case err != nil && ctx.Err() != nil && !s.NeedsSignIn(source, conn):
		log.Info("the hub's sign-in page closed: the connection signed in elsewhere")
	case err != nil:
		log.Warn("sign-in failed", "error", s.opts.Scrub(err.Error()))
	default:
		log.Info("signed in")
		s.listAgain(source)
	}
	s.opts.Publish(EventSignedIn, source, conn)
	return g, err
}

// Logout signs connection conn of source (its default when "") out: the
// authorization server revokes its tokens where it offers that, and they
// are deleted from the keychain, as `capabilities connection logout`
// does. A sign-in page the hub opened for it closes. revoked reports that
// the server confirmed the revocation; an error after the tokens were
// deleted says the server did not.
func (s *Service) Logout(ctx context.Context, source, conn string) (revoked bool, err error) {
	def := s.opts.Config().Sources[source]
	if def == nil {
		return false, fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = def.DefaultConnection()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // the revocation's
	defer cancel()
	s.runs.EndOffered(ctx, source, conn)
	revoked, err = oauth.SignOut(ctx, s.opts.Keychain, source, conn, nil)
	s.opts.Logger.Info("signed out", "source", source, "connection", conn, "revoked", revoked)
	if def.URL != "" && !def.Disabled {
		// An MCP server's sessions hold the token: they start anew, without it.
		s.opts.Restart(source)
	}
	s.opts.Invalidate()
	s.opts.Publish(EventSignedIn, source, conn)
	return revoked, err
}

// Note tells the running hub that connection conn of source (its default
// when "") signed in outside it, as `capabilities connection login` in a
// terminal does: a sign-in page the hub opened for a waiting run closes,
// and the window, the tray and the status hear it at once. The next call
// reads the new tokens from the keychain, as every call of a connection
// without a working sign-in does. It fails when the keychain holds no
// working sign-in for the connection.
func (s *Service) Note(ctx context.Context, source, conn string) error {
	def := s.opts.Config().Sources[source]
	if def == nil {
		return fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = def.DefaultConnection()
	}
	if s.NeedsSignIn(source, conn) {
		name := "the connection"
		if conn != "" {
			name = "connection " + conn
		}
		return fmt.Errorf("%s of %s has no working sign-in in the keychain", name, source)
	}
	s.runs.EndOffered(ctx, source, conn)
	s.opts.Invalidate()
	s.opts.Logger.Info("signed in outside the hub", "source", source, "connection", conn)
	s.listAgain(source)
	s.opts.Publish(EventSignedIn, source, conn)
	return nil
}

// listAgain has the hub list source's tools again (Options.SignedIn), in
// the background.
func (s *Service) listAgain(source string) {
	if s.opts.SignedIn != nil {
		s.goBackground(func() { s.opts.SignedIn(s.opts.Context, source) })
	}
}

// Offer starts the sign-in of a connection a run waits for, in the
// background, unless one is running. It returns at once.
func (s *Service) Offer(source, conn string) {
	def := s.opts.Config().Sources[source]
	if def == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.opts.Context, 10*time.Minute)
	run, ctx := s.runs.Begin(ctx, source, conn, false)
	if run == nil {
		cancel()
		return
	}
	started := s.goBackground(func() {
		defer cancel()
		defer s.runs.End(source, conn, run)
		s.signIn(ctx, def, source, conn, nil)
	})
	if !started {
		cancel()
		s.runs.End(source, conn, run)
	}
}

// Status is one OAuth connection's sign-in in the status API.
type Status struct {
	Connection string    `json:"connection"`
	SignedIn   bool      `json:"signedIn"`
	Summary    string    `json:"summary"`
	Expiry     time.Time `json:"expiry,omitzero"`
	Scopes     []string  `json:"scopes,omitempty"`
	// SigningIn reports that a sign-in page is open and the hub waits for
	// the person.
	SigningIn bool `json:"signingIn,omitempty"`
	// Offered marks a REST API's connection that does not sign in yet,
	// whose document offers a sign-in its operations wait for.
	Offered bool `json:"offered,omitempty"`
}

// States are the sign-in states of every OAuth connection of the config,
// for `hub status`, doctor and the tray.
func (s *Service) States() []oauth.State {
	srcs := s.opts.Config().Sources
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []oauth.State
	for _, name := range names {
		out = append(out, s.statesOf(name)...)
	}
	return out
}

func (s *Service) statesOf(name string) []oauth.State {
	def := s.opts.Config().Sources[name]
	states := oauth.States(s.opts.Keychain, name, def, func(conn string) bool { return s.opts.UpstreamNeeds(name, conn) })
	if def != nil && def.OpenAPI != "" {
		// A REST API's sign-in holds for the origin it was made for: its
		// document's server or its baseUrl, in words that say what to do.
		for i, st := range states {
			if why := s.opts.REST.SignInMoved(name, st.Conn); why != "" {
				states[i].SignedIn, states[i].Reason = false, why
			}
		}
	}
	return states
}

// Statuses are the sign-ins of source name's connections, with the one a
// REST API's document offers when its operations wait for it.
func (s *Service) Statuses(name string) []Status {
	var out []Status
	for _, st := range s.statesOf(name) {
		out = append(out, Status{Connection: st.Conn, SignedIn: st.SignedIn, Summary: st.Summary(), Expiry: st.Expiry, Scopes: st.Scopes, SigningIn: s.runs.Running(name, st.Conn)})
	}
	// A REST API whose operations wait for credentials its document's
	// OAuth flow gives is offered a sign-in of its default connection,
	// which Login adds when there is none yet.
	def := s.opts.Config().Sources[name]
	if def == nil || def.OpenAPI == "" || !s.opts.REST.WaitsForSignIn(name) {
		return out
	}
	conn, err := def.SignInConnection(name, "")
	if err != nil || slices.ContainsFunc(out, func(st Status) bool { return st.Connection == conn }) {
		return out
	}
	return append(out, Status{Connection: conn, Summary: "needs sign-in: the API's document offers an OAuth sign-in", SigningIn: s.runs.Running(name, conn), Offered: true})
}
