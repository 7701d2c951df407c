package oauth

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
)

// Flow is an OAuth authorization code flow a source's document names (an
// OpenAPI document's oauth2 or openIdConnect security scheme), for a
// source that is no MCP server: SignIn runs it as the document says
// instead of discovering the authorization server from the server's
// challenge.
type Flow struct {
	// Scheme names the document's scheme in messages.
	Scheme string
	// AuthURL and TokenURL are the flow's endpoints. Discovery, an OpenID
	// Connect discovery document's URL, names them instead.
	AuthURL, TokenURL, Discovery string
	// ClientCredentials marks a client credentials flow: no person signs
	// in, the connection's client (its id and secret) gets tokens at
	// TokenURL on its own.
	ClientCredentials bool
	// Scopes are those the document's operations ask for.
	Scopes []string
	// Resource is the URL of the API the tokens are for: they go to its
	// origin only (Record.SourceURL).
	Resource string
}

// signInFlow is SignIn for o.Flow: PKCE S256 with the document's
// endpoints, through the loopback redirect. The client is the
// connection's preregistered one ("oauth.clientId", its secret in the
// keychain) or, when the authorization server publishes metadata with a
// registration endpoint, one registered dynamically (RFC 7591).
func signInFlow(ctx context.Context, o SignInOptions, open func(context.Context, string) error, client *http.Client) (*Grant, error) {
	f := o.Flow
	if f.Resource == "" {
		return nil, fmt.Errorf("source %s names no server its tokens would be for; set \"baseUrl\" on the source", o.Source)
	}
	var cfg config.OAuthConfig
	if c := o.Def.Connections[o.Conn]; c != nil && c.OAuth != nil {
		cfg = *c.OAuth
	}
	if f.ClientCredentials {
		return clientSignIn(ctx, o, cfg, client)
	}
	authURL, tokenURL := f.AuthURL, f.TokenURL
	var asm *oauthex.AuthServerMeta
	var metaErr error // why the authorization server's metadata could not be read
	if f.Discovery != "" {
		issuer := strings.TrimSuffix(f.Discovery, "/.well-known/openid-configuration")
		m, err := oauthex.GetAuthServerMeta(ctx, f.Discovery, issuer, client)
		if err != nil {
			return nil, fmt.Errorf("reading the OpenID Connect discovery document %s of scheme %s: %w", f.Discovery, f.Scheme, err)
		}
		if m == nil {
			return nil, fmt.Errorf("the OpenID Connect discovery document %s of scheme %s was not found", f.Discovery, f.Scheme)
		}
		asm, authURL, tokenURL = m, m.AuthorizationEndpoint, m.TokenEndpoint
	} else if u, err := url.Parse(authURL); err == nil {
		// The authorization server's own metadata, when it publishes
		// some at the authorization URL's origin: its issuer, its
		// registration and revocation endpoints. It must agree with the
		// document on where the code goes.
		m, err := auth.GetAuthServerMetadata(ctx, u.Scheme+"://"+u.Host, client)
		switch {
		case err != nil:
			metaErr = err
		case m != nil:
			if m.AuthorizationEndpoint != authURL || m.TokenEndpoint != tokenURL {
				return nil, fmt.Errorf("the API's document (scheme %s) names authorization URL %s and token URL %s, and the authorization server %s names %s and %s; the hub signs in with neither", f.Scheme, authURL, tokenURL, m.Issuer, m.AuthorizationEndpoint, m.TokenEndpoint)
			}
			asm = m
		}
	}
	for _, e := range []struct{ what, u string }{{"authorization URL", authURL}, {"token URL", tokenURL}} {
		if why := endpointProblem(e.u); why != "" {
			return nil, fmt.Errorf("the %s of scheme %s, %q, %s", e.what, f.Scheme, e.u, why)
		}
	}
	// The code, the PKCE verifier and a client secret go to the token URL:
	// on the origin of the page the person signs in on, unless the
	// authorization server's own metadata names it.
	if asm == nil && !sameURLOrigin(authURL, tokenURL) {
		return nil, fmt.Errorf("the API's document (scheme %s) names token URL %s, on another origin than its authorization URL %s, and no metadata of that authorization server says the token URL is its own; the hub sends a sign-in's code to neither", f.Scheme, tokenURL, authURL)
	}
	prev, _ := LoadRecord(o.Keychain, o.Source, o.Conn)

	var reuse *Record
	lb := (*loopback)(nil)
	if cfg.ClientID == "" && asm != nil && asm.RegistrationEndpoint != "" {
		reuse, lb = o.registeredClient(prev, f.Resource, asm.Issuer, cfg.RedirectPort)
	}
	if lb == nil {
		var err error
		if lb, err = listenLoopback(cfg.RedirectPort); err != nil {
			return nil, err
		}
	}
	defer lb.close()

	oc := &oauth2.Config{Endpoint: oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL}, RedirectURL: lb.redirect}
	registered := false
	var bound string // where the client's secret went before
	switch {
	case cfg.ClientID != "":
		oc.ClientID = cfg.ClientID
		if oc.ClientSecret, bound = boundClientSecret(o.Keychain, o.Source, o.Conn); bound != "" && !sameURLOrigin(bound, tokenURL) {
			return nil, clientElsewhere(o, nil, cfg.ClientID, "token URL", tokenURL, bound)
		}
	case reuse != nil:
		oc.ClientID, oc.ClientSecret, registered = reuse.ClientID, reuse.ClientSecret, true
	case asm != nil && asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{lb.redirect},
			ClientName:              "capabilities",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}, client)
		if err != nil {
			return nil, fmt.Errorf("registering with the authorization server %s: %w", asm.Issuer, err)
		}
		oc.ClientID, oc.ClientSecret, registered = reg.ClientID, reg.ClientSecret, true
	case metaErr != nil:
		return nil, fmt.Errorf("reading the metadata of the authorization server of %s (scheme %s) at %s, to register with it: %w", o.Source, f.Scheme, secrets.ShownOrigin(secrets.OriginOfURL(authURL)), metaErr)
	default:
		return nil, needsClient(o, fmt.Sprintf("the authorization server of %s (scheme %s)", o.Source, f.Scheme))
	}
	if oc.ClientSecret == "" {
		// A public client names itself in the request; left to guess,
		// x/oauth2 sends the code a second time after a refusal.
		oc.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	oc.Scopes = slices.Clone(f.Scopes)
	if len(cfg.Scopes) > 0 {
		oc.Scopes = slices.Clone(cfg.Scopes)
	}
	if prev != nil {
		oc.Scopes = unionScopes(oc.Scopes, prev.WantScopes)
	}

	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	res, err := lb.await(ctx, oc.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), state, open)
	if err != nil {
		return nil, err
	}
	// RFC 9207: the answer names the server that issued it, when that
	// server says it does; a mix-up shows as another issuer.
	if asm != nil && (res.Iss != "" || asm.AuthorizationResponseIssParameterSupported) && res.Iss != asm.Issuer {
		return nil, fmt.Errorf("the sign-in's answer came from issuer %q, not %s; the hub did not take its code", res.Iss, asm.Issuer)
	}
	tok, err := oc.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), res.Code, oauth2.VerifierOption(verifier))
	if err != nil {
		// The OAuth error and its description, not the answer's body.
		return nil, fmt.Errorf("exchanging the sign-in's code at %s: %s", tokenURL, refreshProblem(err))
	}
	rec := &Record{
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry, Issued: time.Now(),
		Scopes:   grantedScopes(tok, oc.Scopes),
		ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, AuthStyle: int(oc.Endpoint.AuthStyle),
		AuthURL: authURL, TokenURL: tokenURL, RedirectURL: oc.RedirectURL,
		SourceURL: f.Resource, Registered: registered,
	}
	if asm != nil {
		rec.Issuer, rec.RevokeURL = asm.Issuer, asm.RevocationEndpoint
	}
	if err := SaveRecord(o.Keychain, o.Source, o.Conn, rec); err != nil {
		return nil, fmt.Errorf("keeping the sign-in in the keychain: %w", err)
	}
	if cfg.ClientID != "" && oc.ClientSecret != "" {
		if err := bindClientSecret(o.Keychain, o.Source, o.Conn, bound, tokenURL); err != nil {
			return nil, err
		}
	}
	return &Grant{Scopes: rec.Scopes, Expiry: rec.Expiry, Refreshable: rec.RefreshToken != "", Issuer: rec.Issuer}, nil
}

// clientSignIn is signInFlow for a client credentials flow: the
// connection's preregistered client, its secret in the keychain, gets a
// token at the flow's token URL; the record renews it the same way.
func clientSignIn(ctx context.Context, o SignInOptions, cfg config.OAuthConfig, client *http.Client) (*Grant, error) {
	f := o.Flow
	conn := o.Conn
	if conn == "" {
		conn = "default"
	}
	secret, bound := boundClientSecret(o.Keychain, o.Source, o.Conn)
	if cfg.ClientID == "" || secret == "" {
		return nil, &needsClientError{kind: ErrNeedsClientCredentials, msg: fmt.Sprintf("the API of %s takes a token its client gets on its own (scheme %s, client credentials): give the client registered with its authorization server: capabilities connection login %s %s --client-id ID --client-secret-stdin", o.Source, f.Scheme, o.Source, conn)}
	}
	if bound != "" && !sameURLOrigin(bound, f.TokenURL) {
		return nil, clientElsewhere(o, ErrNeedsClientCredentials, cfg.ClientID, "token URL", f.TokenURL, bound)
	}
	if why := endpointProblem(f.TokenURL); why != "" {
		return nil, fmt.Errorf("the token URL of scheme %s, %q, %s", f.Scheme, f.TokenURL, why)
	}
	rec := &Record{ClientID: cfg.ClientID, ClientSecret: secret, TokenURL: f.TokenURL, Grant: grantClientCredentials,
		Scopes: slices.Clone(f.Scopes), SourceURL: f.Resource}
	if len(cfg.Scopes) > 0 {
		rec.Scopes = slices.Clone(cfg.Scopes)
	}
	tok, err := rec.clientCredentials().Token(context.WithValue(ctx, oauth2.HTTPClient, client))
	if err != nil {
		return nil, fmt.Errorf("getting a token at %s: %s", f.TokenURL, refreshProblem(err))
	}
	rec.AccessToken, rec.TokenType, rec.Expiry, rec.Issued = tok.AccessToken, tok.TokenType, tok.Expiry, time.Now()
	rec.Scopes = grantedScopes(tok, rec.Scopes)
	if err := SaveRecord(o.Keychain, o.Source, o.Conn, rec); err != nil {
		return nil, fmt.Errorf("keeping the token in the keychain: %w", err)
	}
	if err := bindClientSecret(o.Keychain, o.Source, o.Conn, bound, f.TokenURL); err != nil {
		return nil, err
	}
	return &Grant{Scopes: rec.Scopes, Expiry: rec.Expiry, Refreshable: true}, nil
}

// clientCredentials is the client credentials grant of a record.
func (r *Record) clientCredentials() *clientcredentials.Config {
	return &clientcredentials.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, TokenURL: r.TokenURL,
		Scopes: r.Scopes, AuthStyle: oauth2.AuthStyle(r.AuthStyle)}
}

// endpointProblem says why a document's OAuth endpoint is not used: the
// code, the PKCE verifier and a client secret go there, so it must be an
// absolute HTTPS URL, or HTTP on this machine.
func endpointProblem(u string) string {
	p, err := url.Parse(u)
	switch {
	case u == "":
		return "is missing"
	case err != nil || p.Host == "":
		return "is not an absolute URL"
	case p.Scheme == "https":
		return ""
	case p.Scheme == "http" && secrets.IsLoopbackHost(p.Hostname()):
		return ""
	}
	return "is not HTTPS; the hub sends a sign-in's code over HTTPS only (or plain HTTP on this machine)"
}
