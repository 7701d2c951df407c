package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/keychain"
)

// oauthRefreshEarly is how long before its expiry an access token is
// refreshed: a minute, or a quarter of its lifetime when that is shorter,
// so a short-lived token is not refreshed on every request.
const oauthRefreshEarly = time.Minute

func (r *Record) refreshEarly() time.Duration {
	if r.Issued.IsZero() || r.Expiry.IsZero() || !r.Expiry.After(r.Issued) {
		return oauthRefreshEarly
	}
	return min(oauthRefreshEarly, r.Expiry.Sub(r.Issued)/4)
}

// tokenTimeout bounds one request to a token endpoint: Token holds the
// connection's lock while it refreshes, and its request has no other end.
var tokenTimeout = 30 * time.Second

// Conn is the OAuth side of one HTTP session: go-sdk's streamable
// client asks it for the token of each request and hands it the 401s and
// 403s. Unlike go-sdk's AuthorizationCodeHandler it never runs a browser
// flow: a call that needs the person to sign in fails at once with a
// *SignInError, and the person signs in outside the call.
type Conn struct {
	source, conn string
	kc           keychain.Keychain
	client       *http.Client // reaches the token endpoint
	// onTokens registers the current token values with the hub's secret
	// registry, so they are scrubbed wherever they turn up.
	onTokens func(values []string)

	mu     sync.Mutex
	rec    *Record // nil: never signed in
	ts     oauth2.TokenSource
	forced string // the access token a 401 already forced a refresh of
}

var _ auth.OAuthHandler = (*Conn)(nil)

// NewConn reads the connection's sign-in from the keychain. It fails
// with a *SignInError when the sign-in is known to be needed, so the
// session does not reach the network for nothing.
func NewConn(source, conn string, kc keychain.Keychain, client *http.Client, onTokens func([]string)) (*Conn, error) {
	rec, err := LoadRecord(kc, source, conn)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	bounded := *client
	if bounded.Timeout <= 0 || bounded.Timeout > tokenTimeout {
		bounded.Timeout = tokenTimeout
	}
	o := &Conn{source: source, conn: conn, kc: kc, client: &bounded, onTokens: onTokens, rec: rec}
	if rec != nil && rec.NeedsSignIn {
		return nil, &SignInError{Source: source, Conn: conn, Reason: rec.Reason}
	}
	if rec != nil {
		// A 401 names metadata the hub reads on its own (issuerMovedLocked).
		o.client = remoteOnly(o.client, rec.SourceURL)
		o.ts = oauth2.ReuseTokenSourceWithExpiry(rec.token(), o.refresher(), rec.refreshEarly())
		onTokens(rec.secretValues())
	}
	return o, nil
}

// BoundElsewhere says why the connection's sign-in does not hold for def
// (it was made for another URL); "" when it holds or there is none.
func (o *Conn) BoundElsewhere(def *config.Source) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rec == nil {
		return ""
	}
	return o.rec.boundElsewhere(def)
}

// refresher refreshes with the record's current refresh token each time
// it is asked (x/oauth2's own token source would hand back a cached token
// that is still valid by its shorter margin).
func (o *Conn) refresher() oauth2.TokenSource {
	return tokenSourceFunc(func() (*oauth2.Token, error) {
		if o.rec.Grant == grantClientCredentials && o.rec.ClientSecret != "" {
			// A client's own token: it asks for a new one.
			ctx := context.WithValue(context.Background(), oauth2.HTTPClient, o.client)
			return o.rec.clientCredentials().Token(ctx)
		}
		if o.rec.RefreshToken == "" {
			return nil, errors.New("the access token expired and the server gave no refresh token")
		}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, o.client)
		return o.rec.config().TokenSource(ctx, &oauth2.Token{RefreshToken: o.rec.RefreshToken}).Token()
	})
}

type tokenSourceFunc func() (*oauth2.Token, error)

func (f tokenSourceFunc) Token() (*oauth2.Token, error) { return f() }

// TokenSource implements auth.OAuthHandler. Without a sign-in it returns
// none: the request goes out bare and the server's 401 says what it needs.
func (o *Conn) TokenSource(context.Context) (oauth2.TokenSource, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rec == nil {
		return nil, nil
	}
	return tokenSourceFunc(o.Token), nil
}

// Token returns the connection's access token, refreshed first when it is
// due. Without a working sign-in it fails with a *SignInError, and a
// failed refresh turns the connection into one that needs a sign-in.
func (o *Conn) Token() (*oauth2.Token, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rec == nil || o.rec.NeedsSignIn {
		return nil, &SignInError{Source: o.source, Conn: o.conn, Reason: o.reasonLocked("not signed in")}
	}
	tok, err := o.ts.Token()
	if err != nil {
		return nil, o.refreshFailedLocked("refreshing the access token failed", err)
	}
	o.keepLocked(tok)
	return tok, nil
}

// refreshProblem is the part of a refresh error worth showing: the OAuth
// error code and description, never the request or its body.
func refreshProblem(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := re.ErrorCode
		if msg == "" {
			msg = re.Response.Status
		}
		if re.ErrorDescription != "" {
			msg += " (" + re.ErrorDescription + ")"
		}
		return msg
	}
	return err.Error()
}

// refreshFailedLocked is the error of a refresh that failed with err. An
// answer of the authorization server that refuses it (invalid_grant, a
// revoked client) means the person must sign in again, and the connection
// says so from now on. A server that could not be reached, did not answer
// in time or failed on its side (5xx) is not the sign-in's fault: the
// error says so and the sign-in is kept for the next try, so a laptop
// that wakes up offline does not lose it.
func (o *Conn) refreshFailedLocked(what string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.Response == nil || re.Response.StatusCode < 500) {
		return o.failLocked(what + ": " + refreshProblem(err))
	}
	o.forced = "" // the next refused token may try again
	return fmt.Errorf("%s: the authorization server did not answer (%s); the sign-in is kept, so try again", what, refreshProblem(err))
}

// keepLocked stores a token the refresh brought.
func (o *Conn) keepLocked(tok *oauth2.Token) {
	if tok.AccessToken == o.rec.AccessToken {
		return
	}
	o.rec.AccessToken, o.rec.TokenType, o.rec.Expiry, o.rec.Issued = tok.AccessToken, tok.TokenType, tok.Expiry, time.Now()
	if tok.RefreshToken != "" {
		o.rec.RefreshToken = tok.RefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		o.rec.Scopes = strings.Fields(s)
	}
	o.ts = oauth2.ReuseTokenSourceWithExpiry(o.rec.token(), o.refresher(), o.rec.refreshEarly())
	o.onTokens(o.rec.secretValues())
	// A refreshed token that cannot be kept still serves this session; the
	// next start signs in again if the old refresh token was rotated away.
	_ = SaveRecord(o.kc, o.source, o.conn, o.rec)
}

func (o *Conn) reasonLocked(def string) string {
	if o.rec != nil && o.rec.Reason != "" {
		return o.rec.Reason
	}
	return def
}

// failLocked turns the connection into "needs sign-in", in the keychain
// too, so a restarted hub and `connection list` say so.
func (o *Conn) failLocked(reason string) error {
	if o.rec != nil {
		o.rec.NeedsSignIn, o.rec.Reason = true, reason
		_ = SaveRecord(o.kc, o.source, o.conn, o.rec)
	}
	return &SignInError{Source: o.source, Conn: o.conn, Reason: reason}
}

// Authorize implements auth.OAuthHandler for a 401 or 403 answer. A 401
// with a refresh token left refreshes once and has the request retried;
// otherwise, and for a 403 insufficient_scope, the connection needs a
// sign-in and the request fails now.
func (o *Conn) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("the server answered %s with an unreadable WWW-Authenticate header: %v", resp.Status, err)
	}
	var bearer *oauthex.Challenge
	for i := range challenges {
		if challenges[i].Scheme == "bearer" {
			bearer = &challenges[i]
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if resp.StatusCode == http.StatusForbidden {
		if bearer == nil || bearer.Params["error"] != "insufficient_scope" {
			return fmt.Errorf("the server answered %s", resp.Status)
		}
		want := strings.Fields(bearer.Params["scope"])
		reason := "the server asks for more scopes"
		if len(want) > 0 {
			reason += ": " + strings.Join(want, " ")
		}
		if o.rec != nil {
			o.rec.WantScopes = unionScopes(o.rec.WantScopes, want)
		}
		return o.failLocked(reason)
	}
	if bearer == nil {
		return fmt.Errorf("the server answered %s without an OAuth challenge; give the connection a static token (`capabilities connection add`)", resp.Status)
	}
	if o.rec == nil {
		return &SignInError{Source: o.source, Conn: o.conn, Reason: "not signed in"}
	}
	if reason := o.issuerMovedLocked(ctx, bearer); reason != "" {
		return o.failLocked(reason)
	}
	if o.rec.RefreshToken != "" && o.forced != o.rec.AccessToken {
		o.forced = o.rec.AccessToken
		tok, err := o.refresher().Token()
		if err == nil {
			o.keepLocked(tok)
			return nil
		}
		return o.refreshFailedLocked("the server refused the access token and refreshing it failed", err)
	}
	return o.failLocked("the server refused the access token")
}

// Refused is Authorize for a server that answers 401 without a challenge
// the hub reads, as a REST API does, to the access token used: when the
// connection holds another one (renewed since) it is returned; else a
// refresh token left, or the client's own credentials, renew it once and
// the new token is returned for the request to be sent again; otherwise
// the connection needs a sign-in and the error says so.
func (o *Conn) Refused(used string) (*oauth2.Token, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rec == nil {
		return nil, &SignInError{Source: o.source, Conn: o.conn, Reason: "not signed in"}
	}
	if o.rec.NeedsSignIn {
		return nil, &SignInError{Source: o.source, Conn: o.conn, Reason: o.reasonLocked("not signed in")}
	}
	if o.rec.AccessToken != used {
		return o.rec.token(), nil
	}
	if o.rec.renews() && o.forced != o.rec.AccessToken {
		o.forced = o.rec.AccessToken
		tok, err := o.refresher().Token()
		if err == nil {
			o.keepLocked(tok)
			return tok, nil
		}
		return nil, o.refreshFailedLocked("the API refused the access token and refreshing it failed", err)
	}
	return nil, o.failLocked("the API refused the access token")
}

// issuerMovedLocked says why the sign-in no longer holds when the server's
// protected resource metadata, named by its challenge, no longer names the
// authorization server that issued it; "" when it does, or cannot tell.
func (o *Conn) issuerMovedLocked(ctx context.Context, bearer *oauthex.Challenge) string {
	metaURL := bearer.Params["resource_metadata"]
	if o.rec.Issuer == "" || metaURL == "" || o.rec.SourceURL == "" {
		return ""
	}
	prm, err := oauthex.GetProtectedResourceMetadata(ctx, metaURL, o.rec.SourceURL, o.client)
	if err != nil || prm == nil || len(prm.AuthorizationServers) == 0 {
		return ""
	}
	for _, as := range prm.AuthorizationServers {
		if sameIssuer(as, o.rec.Issuer) {
			return ""
		}
	}
	return fmt.Sprintf("the server now names another authorization server, %s; the sign-in was issued by %s", prm.AuthorizationServers[0], o.rec.Issuer)
}

// sameIssuer reports whether a and b name one authorization server, as
// the authorization handler compares them (a trailing slash aside).
func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// Applies reports whether OAuth applies to the HTTP session of a connection
// that sends headers: it does unless they carry an Authorization header of
// their own.
func Applies(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// SignInHint tells the model what a connection waiting for a sign-in
// needs. It never carries the authorization URL.
func SignInHint(source, conn string) string {
	cmd := "capabilities connection login " + source
	if conn != "" {
		cmd += " " + conn
	}
	return fmt.Sprintf("The connection needs the user to sign in to %s in the browser. Tell the user; they can sign in from the tray or with `%s`. Never ask for a password or token in chat.", source, cmd)
}
