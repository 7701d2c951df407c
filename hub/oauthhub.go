package hub

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/signin"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// OAuthSignInRef is config.OAuthSignInRef.
const OAuthSignInRef = config.OAuthSignInRef

// EventSignIn tells the tray, the window and notifications that a
// connection waits for the person to sign in; ID is "source/connection".
// EventSignedIn follows when the sign-in finished (or failed).
const (
	EventSignIn   = signin.EventSignIn
	EventSignedIn = signin.EventSignedIn
)

// SignIns are the sign-ins of the config's connections: Login, Logout,
// SetClient, Note (of a sign-in made in a terminal) and their States.
func (h *Hub) SignIns() *signin.Service { return h.signIns }

// newSignIns wires the sign-ins to the rest of the hub.
func (h *Hub) newSignIns(bg context.Context) *signin.Service {
	return signin.New(signin.Options{
		Keychain:      h.kc,
		Logger:        h.log,
		Scrub:         h.secrets.Scrub,
		Config:        h.Config,
		EditSource:    h.EditSource,
		UpstreamNeeds: h.up.NeedsSignIn,
		REST:          h.openapi,
		Publish: func(kind, source, conn string) {
			h.events.Publish(Event{Kind: kind, ID: source + "/" + conn})
			if kind == EventSignedIn {
				h.events.Publish(Event{Kind: EventSource, ID: source})
			}
		},
		Restart:    h.up.Restart,
		Invalidate: h.views.invalidate,
		SignedIn:   func(ctx context.Context, source string) { h.refresh(ctx, source) },
		Context:    bg,
	})
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
	conn = cmp.Or(conn, s.DefaultConnection())
	if conn == "" {
		if len(s.Connections) > 0 {
			return SecretSlot{}, fmt.Errorf("source %s has several connections and none is the default; name one", source)
		}
		conn = config.ConnectionToAdd("")
	}
	slot := SecretSlot{Connection: conn}
	if h.signIns.NeedsSignIn(source, conn) {
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
	return SecretSlot{}, &config.NoSecretPlaceError{Source: source, Conn: conn, Env: s.Command != ""}
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
		err := h.EditSource(ctx, source, func(s *config.Source) bool {
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
