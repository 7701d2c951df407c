package openapi

import (
	"strings"

	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/upstream"
)

// OAuth connections of OpenAPI sources.
//
// An oauth2 or openIdConnect scheme is provided by an Authorization header
// of the connection (a token stored with `connection add --header
// Authorization --prefix 'Bearer '`), or by a sign-in stored for the
// connection, the one `connection login` keeps for OAuth connections: its
// access token, refreshed when due, goes as a bearer token. Signing in
// from the document's own flows (authorizationUrl, tokenUrl) is the OAuth
// connections' concern; this is where it plugs in.

// signedIn reports whether the connection has a usable sign-in.
func (o *Sources) signedIn(source, conn string) bool {
	if o.opts.Keychain == nil || conn == "" {
		return false
	}
	rec, err := oauth.LoadRecord(o.opts.Keychain, source, conn)
	return err == nil && rec != nil && !rec.NeedsSignIn && rec.AccessToken != ""
}

// oauthHeader adds the sign-in's bearer token to headers when they carry
// no Authorization of their own and the connection is signed in.
func (o *Sources) oauthHeader(rs *restSource, source, conn string, headers map[string]string) ([]string, error) {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return nil, nil
		}
	}
	if !o.signedIn(source, conn) {
		return nil, nil
	}
	var tokens []string
	oc, err := oauth.NewConn(source, conn, o.opts.Keychain, rs.client, func(v []string) { tokens = append(tokens, v...) })
	if err != nil {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Err: err}
	}
	tok, err := oc.Token()
	if err != nil {
		return nil, &upstream.Error{Source: source, Conn: conn, Kind: upstream.KindMissingSecret, Err: err}
	}
	headers["Authorization"] = "Bearer " + tok.AccessToken
	return append(tokens, tok.AccessToken), nil
}
