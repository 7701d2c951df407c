package openapi

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
	"golang.org/x/oauth2"
)

// OAuth connections of OpenAPI sources.
//
// An oauth2 or openIdConnect scheme is provided by an Authorization header
// of the connection (a token stored with `connection add --header
// Authorization --prefix 'Bearer '`), or by a sign-in stored for the
// connection: its access token, refreshed when due, goes as a bearer
// token. The sign-in runs the flow the document names (SignInFlow): an
// oauth2 scheme's authorization code flow, or an openIdConnect scheme's
// discovery document. It is made for the API's origin (its baseUrl, else
// the document's server) and its token goes nowhere else: an API that
// moved needs a new sign-in.

// SignInFlow is the flow connections of source sign in with: of the
// document's schemes that have one, the one the most operations ask for.
// It fails, saying what the source takes instead, when the document
// names none or is not loaded.
func (o *Sources) SignInFlow(source string) (*oauth.Flow, error) {
	doc, def := o.loaded(source)
	if doc == nil || def == nil {
		return nil, fmt.Errorf("the OpenAPI document of %s is not loaded yet; try again once it is", source)
	}
	return doc.signInFlow(source, def)
}

// signInFlow is SignInFlow over doc, for source def.
func (doc *openapiDoc) signInFlow(source string, def *config.Source) (*oauth.Flow, error) {
	uses := map[string]int{}
	for _, op := range doc.ops {
		for _, alt := range op.security {
			for _, name := range alt {
				uses[name]++
			}
		}
	}
	// A person's sign-in first; else a client's credentials flow.
	for _, person := range []bool{true, false} {
		best, most := "", 0
		for _, name := range slices.Sorted(maps.Keys(doc.schemes)) {
			s := doc.schemes[name]
			ok := s.canSignIn()
			if !person {
				ok = s.typ == "oauth2" && s.clientTokenURL != ""
			}
			if ok && uses[name] > most {
				best, most = name, uses[name]
			}
		}
		if best == "" {
			continue
		}
		s := doc.schemes[best]
		f := &oauth.Flow{Scheme: best, Scopes: slices.Clone(s.scopes), Resource: apiOrigin(def, doc)}
		if person {
			f.AuthURL, f.TokenURL, f.Discovery = s.authURL, s.tokenURL, s.oidcURL
		} else {
			f.TokenURL, f.ClientCredentials = s.clientTokenURL, true
		}
		return f, nil
	}
	return nil, noSignIn(source)
}

func noSignIn(source string) error {
	return fmt.Errorf("the OpenAPI document of %s offers no OAuth sign-in (no oauth2 scheme with an authorization code or client credentials flow, no OpenID Connect URL that its operations use); give its connection a token or key with: capabilities connection add %s", source, source)
}

// WaitsForSignIn reports whether operations of source wait for
// credentials its default connection does not give, and its document
// offers a person's sign-in (a client's credentials are given in a
// terminal).
func (o *Sources) WaitsForSignIn(source string) bool {
	if waiting, _, _ := o.Needs(source); waiting == 0 {
		return false
	}
	f, err := o.SignInFlow(source)
	return err == nil && !f.ClientCredentials
}

// OffersSignIn reports whether operation tool of source takes the token
// of a scheme the hub can sign in with.
func (o *Sources) OffersSignIn(source, tool string) bool {
	doc, _ := o.loaded(source)
	if doc == nil || doc.ops[tool] == nil {
		return false
	}
	for _, alt := range doc.ops[tool].security {
		for _, name := range alt {
			if s := doc.schemes[name]; s != nil && s.canSignIn() {
				return true
			}
		}
	}
	return false
}

// canSignIn reports whether the hub can sign in with scheme s.
func (s *openapiScheme) canSignIn() bool {
	switch s.typ {
	case "oauth2":
		return s.authURL != "" && s.tokenURL != ""
	case "openIdConnect":
		return s.oidcURL != ""
	}
	return false
}

// apiOrigin is the origin the source's calls go to: its baseUrl's, else
// the document's server's (every operation's own server is on it).
func apiOrigin(def *config.Source, doc *openapiDoc) string {
	base := strings.TrimRight(def.BaseURL, "/")
	if base == "" {
		base = doc.server
	}
	if base == "" {
		return ""
	}
	return secrets.OriginOfURL(base)
}

// signIn is the connection's sign-in when it is usable for the API as it
// is now; nil when there is none, it needs the person again, or it was
// made for another origin (then why says so).
func (o *Sources) signIn(doc *openapiDoc, def *config.Source, source, conn string) (rec *oauth.Record, why string) {
	if o.opts.Keychain == nil || doc == nil || def == nil {
		return nil, ""
	}
	rec, err := oauth.LoadRecord(o.opts.Keychain, source, conn)
	if err != nil || rec == nil || rec.NeedsSignIn || rec.AccessToken == "" {
		return nil, ""
	}
	if api := apiOrigin(def, doc); rec.SourceURL == "" || secrets.OriginOfURL(rec.SourceURL) != api {
		return nil, fmt.Sprintf("its sign-in was made for %s, and the API is now at %s; its token goes to the first only, so sign in again: capabilities connection login %s %s", secrets.ShownOrigin(secrets.OriginOfURL(rec.SourceURL)), secrets.ShownOrigin(api), source, connOrDefault(conn))
	}
	return rec, ""
}

// SignInMoved says why connection conn's sign-in does not hold for source
// as it is now, an API at another origin than it was made for; "" when it
// holds, there is none, or the document is not loaded.
func (o *Sources) SignInMoved(source, conn string) string {
	doc, def := o.loaded(source)
	_, why := o.signIn(doc, def, source, conn)
	return why
}

func connOrDefault(conn string) string {
	if conn == "" {
		return "default"
	}
	return conn
}

// oauthHeader adds the sign-in's bearer token to headers when they carry
// no Authorization of their own and the connection is signed in for the
// API's origin.
// It returns the token (and any the refresh brought) for scrubbing, and
// the access token sent, which a 401 renews (renewSignIn).
func (o *Sources) oauthHeader(rs *restSource, def *config.Source, source, conn string, headers map[string]string) ([]string, string, error) {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return nil, "", nil
		}
	}
	rec, why := o.signIn(rs.doc, def, source, conn)
	if why != "" {
		return nil, "", &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Err: fmt.Errorf("%s", why)}
	}
	if rec == nil {
		return nil, "", nil
	}
	// One call at a time reads the sign-in and refreshes it when due:
	// the next reads what the first kept, so a refresh token the server
	// replaces on use is used once.
	defer o.signInLocks.Lock(source + "\x00" + conn)()
	var tokens []string
	oc, err := oauth.NewConn(source, conn, o.opts.Keychain, rs.client, func(v []string) { tokens = append(tokens, v...) })
	if err != nil {
		return nil, "", &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Err: err}
	}
	tok, err := oc.Token()
	if err != nil {
		return nil, "", signInFailed(source, conn, err)
	}
	headers["Authorization"] = "Bearer " + tok.AccessToken
	return append(tokens, tok.AccessToken), tok.AccessToken, nil
}

// signInFailed is the error of a call whose sign-in could not give a
// token: the connection needs a sign-in, or (the authorization server did
// not answer) the call may be tried again.
func signInFailed(source, conn string, err error) *upstream.Error {
	if errors.Is(err, oauth.ErrNeedsSignIn) {
		return &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Err: err}
	}
	return &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindUnavailable, Retryable: true, Err: err}
}

// renewSignIn renews the sign-in of connection conn of source after the
// API refused its access token used: unless another call renewed it
// meanwhile, it is refreshed once (oauth.Conn.Refused).
func (o *Sources) renewSignIn(rs *restSource, source, conn, used string) (*oauth2.Token, error) {
	defer o.signInLocks.Lock(source + "\x00" + conn)()
	oc, err := oauth.NewConn(source, conn, o.opts.Keychain, rs.client, func([]string) {})
	if err != nil {
		return nil, err
	}
	return oc.Refused(used)
}
