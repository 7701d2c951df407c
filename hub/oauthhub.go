package hub

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"capabilities.sh/capabilities/hub/config"
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

// signIns are the sign-ins the hub runs, one per connection at a time.
type signIns struct {
	mu      sync.Mutex
	running map[connKey]*signInRun
}

type signInRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// begin registers a sign-in of k. With replace, a running one is cancelled
// and waited for; without, a running one wins and begin returns nil.
func (si *signIns) begin(ctx context.Context, k connKey, replace bool) (*signInRun, context.Context) {
	for {
		si.mu.Lock()
		if si.running == nil {
			si.running = map[connKey]*signInRun{}
		}
		cur := si.running[k]
		if cur == nil {
			ctx, cancel := context.WithCancel(ctx)
			run := &signInRun{cancel: cancel, done: make(chan struct{})}
			si.running[k] = run
			si.mu.Unlock()
			return run, ctx
		}
		si.mu.Unlock()
		if !replace {
			return nil, nil
		}
		cur.cancel()
		<-cur.done
	}
}

func (si *signIns) end(k connKey, run *signInRun) {
	si.mu.Lock()
	if si.running[k] == run {
		delete(si.running, k)
	}
	si.mu.Unlock()
	run.cancel()
	close(run.done)
}

// oauthNeedsSignIn reports whether connection conn of source waits for a
// sign-in: it signs in with OAuth (configured so, holding a sign-in, or its
// server asked) and has no working sign-in.
func (h *Hub) oauthNeedsSignIn(source, conn string) bool {
	s := h.Config().Sources[source]
	if s == nil || s.URL == "" {
		return false
	}
	if c := s.Connections[conn]; !oauth.Applies(s.Headers) || c != nil && !oauth.Applies(c.Headers) {
		return false // it sends its own Authorization header
	}
	st, err := oauth.ReadState(h.kc, source, conn, s)
	switch {
	case err != nil:
		return s.IsOAuth(conn)
	case st.SignedIn:
		return false
	case st.Reason != "not signed in":
		return true // it had a sign-in, which stopped working
	}
	return s.IsOAuth(conn) || h.up.NeedsSignIn(source, conn)
}

// Login signs connection conn of source in: it opens the authorization
// page (through $BROWSER when set, else the desktop's opener) and waits
// until the person finished, ctx ended, or the flow failed. The tray's and
// the window's Sign in button call it; a sign-in the hub started for a run
// is replaced by this one.
func (h *Hub) Login(ctx context.Context, source, conn string) (*oauth.Grant, error) {
	s := h.Config().Sources[source]
	if s == nil {
		return nil, fmt.Errorf("no source %q in the config", source)
	}
	if conn == "" {
		conn = s.DefaultConnection()
	}
	k := connKey{source, conn}
	run, ctx := h.signIns.begin(ctx, k, true)
	defer h.signIns.end(k, run)
	return h.signIn(ctx, s, source, conn)
}

func (h *Hub) signIn(ctx context.Context, s *config.Source, source, conn string) (*oauth.Grant, error) {
	h.events.publish(Event{Kind: EventSignIn, ID: source + "/" + conn})
	h.log.Info("signing a connection in", "source", source, "connection", conn)
	g, err := oauth.SignIn(ctx, oauth.SignInOptions{Source: source, Conn: conn, Def: s, Keychain: h.kc})
	if err != nil {
		h.log.Warn("sign-in failed", "source", source, "connection", conn, "error", h.secrets.Scrub(err.Error()))
	} else {
		h.log.Info("signed in", "source", source, "connection", conn)
	}
	h.events.publish(Event{Kind: EventSignedIn, ID: source + "/" + conn})
	h.events.publish(Event{Kind: EventSource, ID: source})
	return g, err
}

// offerSignIn starts the sign-in of a connection a run waits for, in the
// background, unless one is running. It returns at once.
func (h *Hub) offerSignIn(source, conn string) {
	s := h.Config().Sources[source]
	if s == nil || h.bg.Err() != nil {
		return
	}
	k := connKey{source, conn}
	ctx, cancel := context.WithTimeout(h.bg, 10*time.Minute)
	run, ctx := h.signIns.begin(ctx, k, false)
	if run == nil {
		cancel()
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		defer h.signIns.end(k, run)
		h.signIn(ctx, s, source, conn)
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
	if s == nil || s.URL == "" {
		return nil
	}
	conns := s.ConnectionNames()
	if len(conns) == 0 {
		conns = []string{""}
	}
	var out []oauth.State
	for _, c := range conns {
		st, err := oauth.ReadState(h.kc, name, c, s)
		if err != nil {
			st.Reason = "the sign-in cannot be read: " + err.Error()
		} else if !st.SignedIn && st.Reason == "not signed in" && !s.IsOAuth(c) && !h.up.NeedsSignIn(name, c) {
			continue
		}
		out = append(out, st)
	}
	return out
}

func (h *Hub) signInStatuses(name string) []SignInStatus {
	var out []SignInStatus
	for _, st := range h.oauthStatesOf(name) {
		h.signIns.mu.Lock()
		_, running := h.signIns.running[connKey{name, st.Conn}]
		h.signIns.mu.Unlock()
		out = append(out, SignInStatus{Connection: st.Conn, SignedIn: st.SignedIn, Summary: st.Summary(), Expiry: st.Expiry, Scopes: st.Scopes, SigningIn: running})
	}
	return out
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
	hash := argsHash(c.Args)
	var p *store.Pending
	if r.hasPending(c.Seq) {
		var err error
		if p, err = r.h.runs.pendingAt(ctx, r.run.ID, c.Seq); err != nil {
			return err
		}
	}
	if p != nil && p.Decision != "" {
		// Decided before (the person signed in) and refused again.
		if err := r.h.runs.dropPending(ctx, p.ID); err != nil {
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

// SetSecret stores the secret of one connection in the keychain. The
// connection must reference exactly one secret (${secret:NAME}); runs that
// wait for it continue on their next resume.
func (h *Hub) SetSecret(ctx context.Context, source, conn, secret string) error {
	s := h.Config().Sources[source]
	if s == nil {
		return fmt.Errorf("no source named %q", source)
	}
	if _, ok := s.Connections[conn]; !ok {
		return fmt.Errorf("source %s has no connection %q", source, conn)
	}
	refs := s.SecretRefs(conn)
	if len(refs) != 1 {
		return fmt.Errorf("connection %s of %s references %d secrets; set them with 'capabilities connection add %s %s --secret REF'", conn, source, len(refs), source, conn)
	}
	if err := h.kc.Set(config.SecretKey(source, conn, refs[0]), secret); err != nil {
		return err
	}
	h.views.invalidate()
	h.events.publish(Event{Kind: EventSource, ID: source})
	return nil
}

// HasSecrets reports whether every secret a connection references is in
// the keychain.
func (h *Hub) HasSecrets(source, conn string) bool {
	return len(h.missingSecrets(source, conn)) == 0
}
