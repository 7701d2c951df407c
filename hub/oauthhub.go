package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// OAuthSignInRef stands, among a connection's missing secrets, for the
// sign-in it waits for. No ${secret:NAME} can have this name.
const OAuthSignInRef = "(sign-in)"

// EventSignIn tells the tray, the window and notifications that a
// connection waits for the person to sign in; ID is "source/connection".
// EventSignedIn follows when the sign-in finished (or failed).
const (
	EventSignIn   = "sign_in"
	EventSignedIn = "signed_in"
)

// oauthNeedsSignIn is oauth.NeedsSignIn for connection conn of source,
// asking the upstream sessions (last) whether its server asked for one.
func (h *Hub) oauthNeedsSignIn(source, conn string) bool {
	return oauth.NeedsSignIn(h.kc, source, conn, h.Config().Sources[source], func() bool { return h.up.NeedsSignIn(source, conn) })
}

// Login signs connection conn of source in: it opens the authorization
// page (through $BROWSER when set, else the desktop's opener) and waits
// until the person finished, ctx ended, or the flow failed. The tray's and
// the window's Sign in button call it; a sign-in the hub started for a run
// is replaced by this one.
func (h *Hub) Login(ctx context.Context, source, conn string) (*oauth.Grant, error) {
	return h.LoginShowing(ctx, source, conn, nil)
}

// LoginShowing is Login for a window that shows the sign-in page's
// address too: show gets it (on the sign-in's goroutine) as the browser
// is asked to open it, so the person can copy it when no browser opens,
// and the sign-in then waits for them instead of failing. A nil show is
// Login.
func (h *Hub) LoginShowing(ctx context.Context, source, conn string, show func(url string)) (*oauth.Grant, error) {
	s := h.Config().Sources[source]
	if s == nil {
		return nil, fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = s.DefaultConnection()
	}
	if s.OpenAPI != "" {
		// A REST API's sign-in is a connection's: its first is added.
		var err error
		if conn, err = h.oauthConnection(ctx, source, conn); err != nil {
			return nil, err
		}
		s = h.Config().Sources[source]
	}
	run, ctx := h.signIns.Begin(ctx, source, conn, true)
	defer h.signIns.End(source, conn, run)
	var open func(context.Context, string) error
	if show != nil {
		open = func(ctx context.Context, url string) error {
			show(url)
			if err := oauth.OpenBrowser(ctx, url); err != nil {
				h.log.Info("no browser opened the sign-in page; the window shows its address", "source", source, "connection", conn, "error", err)
			}
			return nil
		}
	}
	return h.signIn(ctx, s, source, conn, open)
}

// SetOAuthClient makes connection conn of source (as SignInConnection
// names it) sign in as a client registered with the authorization server
// beforehand: clientID and redirectPort (the port of the redirect URI
// registered for it; 0 keeps the one set) go to the config, secret (when
// not "") to the keychain, as `connection login --client-id ID
// --redirect-port PORT --client-secret-stdin` keeps them. It does not
// sign in.
func (h *Hub) SetOAuthClient(ctx context.Context, source, conn, clientID, secret string, redirectPort int) error {
	s := h.Config().Sources[source]
	clientID = strings.TrimSpace(clientID)
	switch {
	case s == nil:
		return fmt.Errorf("no source %q in the config", source)
	case s.URL == "" && s.OpenAPI == "":
		return fmt.Errorf("source %s is a stdio source; only HTTP sources and REST APIs sign in with OAuth", source)
	case clientID == "":
		return errors.New("the client id is empty")
	case redirectPort < 0 || redirectPort > 65535:
		return fmt.Errorf("the redirect port %d is not a port number", redirectPort)
	}
	conn, err := s.SignInConnection(source, conn)
	if err == nil && conn == "" {
		err = fmt.Errorf("source %s has no connection to keep the client in; add one with: capabilities connection login %s NAME --client-id ID", source, source)
	}
	if err != nil {
		return err
	}
	if secret != "" {
		if err := h.kc.Set(oauth.ClientSecretKey(source, conn), secret); err != nil {
			return fmt.Errorf("keeping the client's secret in the keychain: %w", err)
		}
	}
	return h.editSource(ctx, source, func(s *config.Source) bool { return s.PutOAuth(conn, clientID, redirectPort) })
}

// oauthConnection makes connection conn of REST API source (as
// SignInConnection names it) one that signs in with OAuth, saving the
// config when it was not, and returns its name.
func (h *Hub) oauthConnection(ctx context.Context, source, conn string) (string, error) {
	conn, err := h.Config().Sources[source].SignInConnection(source, conn)
	if err != nil {
		return "", err
	}
	if _, err := h.openapi.SignInFlow(source); err != nil {
		return "", err
	}
	return conn, h.editSource(ctx, source, func(s *config.Source) bool { return s.PutOAuth(conn, "", 0) })
}

func (h *Hub) signIn(ctx context.Context, s *config.Source, source, conn string, open func(context.Context, string) error) (*oauth.Grant, error) {
	var flow *oauth.Flow
	if s.OpenAPI != "" {
		// A REST API signs in with the flow its document names.
		f, err := h.openapi.SignInFlow(source)
		if err != nil {
			return nil, err
		}
		flow = f
	}
	h.events.Publish(Event{Kind: EventSignIn, ID: source + "/" + conn})
	h.log.Info("signing a connection in", "source", source, "connection", conn)
	g, err := oauth.SignIn(ctx, oauth.SignInOptions{Source: source, Conn: conn, Def: s, Keychain: h.kc, Open: open, Flow: flow})
	switch {
	case err != nil && ctx.Err() != nil && !h.oauthNeedsSignIn(source, conn):
		h.log.Info("the hub's sign-in page closed: the connection signed in elsewhere", "source", source, "connection", conn)
	case err != nil:
		h.log.Warn("sign-in failed", "source", source, "connection", conn, "error", h.secrets.Scrub(err.Error()))
	default:
		h.log.Info("signed in", "source", source, "connection", conn)
	}
	h.events.Publish(Event{Kind: EventSignedIn, ID: source + "/" + conn})
	h.events.Publish(Event{Kind: EventSource, ID: source})
	return g, err
}

// Logout signs connection conn of source (its default when "") out: the
// authorization server revokes its tokens where it offers that, and they
// are deleted from the keychain, as `capabilities connection logout`
// does. A sign-in page the hub opened for it closes. revoked reports that
// the server confirmed the revocation; an error after the tokens were
// deleted says the server did not.
func (h *Hub) Logout(ctx context.Context, source, conn string) (revoked bool, err error) {
	s := h.Config().Sources[source]
	if s == nil {
		return false, fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = s.DefaultConnection()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // the revocation's
	defer cancel()
	h.signIns.EndOffered(ctx, source, conn)
	revoked, err = oauth.SignOut(ctx, h.kc, source, conn, nil)
	h.log.Info("signed out", "source", source, "connection", conn, "revoked", revoked)
	if s.URL != "" && !s.Disabled {
		// An MCP server's sessions hold the token: they start anew, without it.
		h.up.Restart(source)
	}
	h.views.invalidate()
	h.events.Publish(Event{Kind: EventSignedIn, ID: source + "/" + conn})
	h.events.Publish(Event{Kind: EventSource, ID: source})
	return revoked, err
}

// NoteSignIn tells the running hub that connection conn of source (its
// default when "") signed in outside it, as `capabilities connection
// login` in a terminal does: a sign-in page the hub opened for a waiting
// run closes, and the window, the tray and the status hear it at once.
// The next call reads the new tokens from the keychain, as every call
// of a connection without a working sign-in does. It fails when the
// keychain holds no working sign-in for the connection.
func (h *Hub) NoteSignIn(ctx context.Context, source, conn string) error {
	s := h.Config().Sources[source]
	if s == nil {
		return fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = s.DefaultConnection()
	}
	if h.oauthNeedsSignIn(source, conn) {
		return fmt.Errorf("%s of %s has no working sign-in in the keychain", connectionName(conn), source)
	}
	h.signIns.EndOffered(ctx, source, conn)
	h.views.invalidate()
	h.log.Info("signed in outside the hub", "source", source, "connection", conn)
	h.events.Publish(Event{Kind: EventSignedIn, ID: source + "/" + conn})
	h.events.Publish(Event{Kind: EventSource, ID: source})
	return nil
}

// connectionName names connection conn in a message: "connection work",
// or "the connection" for a source with none named.
func connectionName(conn string) string {
	if conn == "" {
		return "the connection"
	}
	return "connection " + conn
}

// offerSignIn starts the sign-in of a connection a run waits for, in the
// background, unless one is running. It returns at once.
func (h *Hub) offerSignIn(source, conn string) {
	s := h.Config().Sources[source]
	if s == nil || h.bg.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(h.bg, 10*time.Minute)
	run, ctx := h.signIns.Begin(ctx, source, conn, false)
	if run == nil {
		cancel()
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		defer h.signIns.End(source, conn, run)
		h.signIn(ctx, s, source, conn, nil)
	}()
}

// SignInStatus is one OAuth connection's sign-in in the status API.
type SignInStatus struct {
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

// OAuthStates are the sign-in states of every OAuth connection of the
// config, for `hub status`, doctor and the tray.
func (h *Hub) OAuthStates() []oauth.State {
	cfg := h.Config()
	var out []oauth.State
	for _, name := range sortedKeys(cfg.Sources) {
		out = append(out, h.oauthStatesOf(name)...)
	}
	return out
}

func (h *Hub) oauthStatesOf(name string) []oauth.State {
	s := h.Config().Sources[name]
	states := oauth.States(h.kc, name, s, func(conn string) bool { return h.up.NeedsSignIn(name, conn) })
	if s != nil && s.OpenAPI != "" {
		// A REST API's sign-in holds for the origin it was made for.
		for i, st := range states {
			if why := h.openapi.SignInMoved(name, st.Conn); st.SignedIn && why != "" {
				states[i].SignedIn, states[i].Reason = false, why
			}
		}
	}
	return states
}

func (h *Hub) signInStatuses(name string) []SignInStatus {
	var out []SignInStatus
	for _, st := range h.oauthStatesOf(name) {
		running := h.signIns.Running(name, st.Conn)
		out = append(out, SignInStatus{Connection: st.Conn, SignedIn: st.SignedIn, Summary: st.Summary(), Expiry: st.Expiry, Scopes: st.Scopes, SigningIn: running})
	}
	// A REST API whose operations wait for credentials its document's
	// OAuth flow gives is offered a sign-in of its default connection,
	// which Login adds when there is none yet.
	s := h.Config().Sources[name]
	if s == nil || s.OpenAPI == "" || !h.openapi.WaitsForSignIn(name) {
		return out
	}
	conn, err := s.SignInConnection(name, "")
	if err != nil || slices.ContainsFunc(out, func(st SignInStatus) bool { return st.Connection == conn }) {
		return out
	}
	return append(out, SignInStatus{Connection: conn, Summary: "needs sign-in: the API's document offers an OAuth sign-in", SigningIn: h.signIns.Running(name, conn), Offered: true})
}

const signInReason = "sign-in needed"

// connectionReason is the reason of a connection's pending input; conn is
// "" for a source with no connection yet.
func connectionReason(conn string, missing []string) string {
	switch signIn := slices.Contains(missing, OAuthSignInRef); {
	case conn == "" && signIn:
		return signInReason + "; the source has no connection yet"
	case conn == "":
		return "the source has no connection yet, so no secret"
	case signIn:
		return signInReason + " for connection " + conn
	}
	return "connection " + conn + " has no secret yet"
}

// awaitConnection suspends call c on a connection input, as a call to a
// connection without its secret does.
func (r *runHost) awaitConnection(ctx context.Context, c sandbox.Call, conn string, missing []string) error {
	hash := exactjson.Hash(c.Args)
	var p *store.Pending
	if r.hasPending(c.Seq) {
		var err error
		if p, err = r.h.db.PendingAt(ctx, r.run.ID, c.Seq); err != nil {
			return err
		}
	}
	if p != nil && p.Decision != "" {
		// Decided before (the person signed in) and refused again.
		if err := r.h.db.DropPending(ctx, p.ID); err != nil {
			return err
		}
		p = nil
	}
	if p == nil {
		p = r.newPending(c, hash, KindConnection, conn, connectionReason(conn, missing))
		if err := r.suspendOn(ctx, c, hash, p); err != nil {
			return err
		}
	}
	return &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: KindConnection, Detail: p}
}

// SecretSlot is where the secret of a source's connection goes, as the
// window's secret field names it.
type SecretSlot struct {
	// Connection is the connection the secret is stored for: the one
	// asked for, else the source's default, else "default", the first
	// connection of a source with none yet.
	Connection string
	Ref        string // the ${secret:REF} it fills
	// Where says what the secret fills: "header X-API-Key", "environment
	// variable GITHUB_TOKEN", "query parameter api_key".
	Where string
	// SignIn is set when an OAuth sign-in provides the connection's
	// credentials: there is no secret to enter.
	SignIn bool

	// put, when set, is the config change that makes the connection
	// reference Ref where the OpenAPI document wants it.
	put func(c *config.Connection)
}

// SecretSlot says where the secret of connection conn of source goes.
// For an OpenAPI source, the security scheme of tool (or, with tool "",
// of its first operation by name that needs one) says which header or
// parameter takes it. It fails, naming the command that says where, when the hub
// cannot tell (a stdio source that references no secret yet, a
// connection that references several).
func (h *Hub) SecretSlot(source, conn, tool string) (SecretSlot, error) {
	return h.secretSlot(h.Config(), source, conn, tool)
}

func (h *Hub) secretSlot(cfg *config.Config, source, conn, tool string) (SecretSlot, error) {
	s := cfg.Sources[source]
	if s == nil {
		return SecretSlot{}, fmt.Errorf("no source named %q", source)
	}
	if conn == "" {
		conn = s.DefaultConnection()
	}
	if conn == "" {
		if len(s.Connections) > 0 {
			return SecretSlot{}, fmt.Errorf("source %s has several connections and none is the default; name one", source)
		}
		conn = connectionToAdd("")
	}
	slot := SecretSlot{Connection: conn}
	if h.oauthNeedsSignIn(source, conn) {
		slot.SignIn = true
		return slot, nil
	}
	refs := s.SecretRefs(conn)
	switch {
	case len(refs) == 1:
		slot.Ref = refs[0]
		slot.Where = s.RefPlace(conn, refs[0])
		return slot, nil
	case len(refs) > 1:
		return SecretSlot{}, fmt.Errorf("connection %s of %s references %d secrets; set them with 'capabilities connection add %s %s --secret REF'", conn, source, len(refs), source, conn)
	}
	if s.OpenAPI != "" {
		if sp, ok := h.openapi.SecretPlace(source, tool); ok {
			// An OAuth scheme's access token goes in as a bearer token,
			// for a connection that does not sign in.
			slot.Ref = sp.Name
			slot.Where = sp.Where()
			slot.put = sp.Put
			return slot, nil
		}
	}
	how := "--env VAR"
	if s.URL != "" || s.OpenAPI != "" {
		how = "--header NAME"
	}
	return SecretSlot{}, fmt.Errorf("the hub cannot tell where the secret of %s goes; say it in a terminal: capabilities connection add %s %s %s", source, source, conn, how)
}

// SetSecret stores the secret of one connection in the keychain, where
// SecretSlot says it goes: a source with no connection yet gets its
// first connection (conn, or "default" when conn is ""), and an OpenAPI
// source's connection the header or parameter its security scheme names.
// Runs that wait for it continue on their next resume.
func (h *Hub) SetSecret(ctx context.Context, source, conn, secret string) error {
	// A named connection must exist, unless it is a source's first.
	if s := h.Config().Sources[source]; s != nil && conn != "" && len(s.Connections) > 0 {
		if _, ok := s.Connections[conn]; !ok {
			return fmt.Errorf("source %s has no connection %q", source, conn)
		}
	}
	slot, err := h.SecretSlot(source, conn, "")
	if err != nil {
		return err
	}
	if slot.SignIn {
		return fmt.Errorf("connection %s of %s signs in with OAuth: sign in instead of entering a secret", slot.Connection, source)
	}
	// The keychain first: the reloaded config then finds the secret.
	if err := h.kc.Set(config.SecretKey(source, slot.Connection, slot.Ref), secret); err != nil {
		return err
	}
	if _, ok := h.Config().Sources[source].Connections[slot.Connection]; !ok || slot.put != nil {
		err := h.editSource(ctx, source, func(s *config.Source) bool {
			c := s.Connections[slot.Connection]
			if c == nil {
				c = &config.Connection{}
			}
			if slot.put != nil {
				slot.put(c)
			}
			s.PutConnection(slot.Connection, c, false)
			return true
		})
		if err != nil {
			return err
		}
	}
	h.views.invalidate()
	h.events.Publish(Event{Kind: EventSource, ID: source})
	return nil
}

// HasSecrets reports whether every secret a connection references is in
// the keychain.
func (h *Hub) HasSecrets(source, conn string) bool {
	return len(h.missingSecrets(source, conn)) == 0
}
