package oauth

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/keychain"
)

// oauthConnKey is how a connection's OAuth entries are named in the
// keychain: a source without connections signs in as "-".
func oauthConnKey(source, conn string) string {
	if conn == "" {
		conn = "-"
	}
	return "oauth/" + source + "/" + conn
}

// ClientSecretKey is the keychain key of a preregistered client's
// secret.
func ClientSecretKey(source, conn string) string {
	return oauthConnKey(source, conn) + "/client_secret"
}

// clientBoundKey is the keychain key of where a preregistered client's
// secret went at its first sign-in, and may go since: the issuer of an MCP
// server's authorization server, the token URL a REST API's document
// names (and any on its origin).
func clientBoundKey(source, conn string) string {
	return oauthConnKey(source, conn) + "/client_bound"
}

// SetClientSecret keeps the secret of the client a connection signs in as
// in the keychain. It goes anywhere until its first sign-in, and then
// only where that one sent it (boundClientSecret).
func SetClientSecret(kc keychain.Keychain, source, conn, secret string) error {
	if err := kc.Set(ClientSecretKey(source, conn), secret); err != nil {
		return err
	}
	if err := kc.Delete(clientBoundKey(source, conn)); err != nil && !errors.Is(err, keychain.ErrNotFound) {
		return err
	}
	return nil
}

// boundClientSecret is the secret of the client connection conn of source
// signs in as ("" without one) and where it is bound to go ("" until its
// first sign-in).
func boundClientSecret(kc keychain.Keychain, source, conn string) (secret, bound string) {
	if secret, _ = kc.Get(ClientSecretKey(source, conn)); secret != "" {
		bound, _ = kc.Get(clientBoundKey(source, conn))
	}
	return secret, bound
}

// bindClientSecret binds the client secret of a sign-in that went through
// to where it went, when it was not bound yet.
func bindClientSecret(kc keychain.Keychain, source, conn, bound, to string) error {
	if bound != "" || to == "" {
		return nil
	}
	if err := kc.Set(clientBoundKey(source, conn), to); err != nil {
		return fmt.Errorf("keeping where the client's secret goes in the keychain: %w", err)
	}
	return nil
}

// clientElsewhere is the error of a sign-in that would send a client's
// secret to to, when it went to bound before.
func clientElsewhere(o SignInOptions, kind error, clientID, what, to, bound string) error {
	reason := fmt.Sprintf("the %s of %s is now %s; the secret of its client %s goes only to %s, where its first sign-in sent it", what, o.Source, to, clientID, bound)
	return &needsClientError{kind: kind, reason: reason,
		msg: reason + fmt.Sprintf("; register a client there, then: capabilities connection login %s %s --client-id ID --client-secret-stdin", o.Source, cmp.Or(o.Conn, "default"))}
}

func oauthTokenKey(source, conn string) string { return oauthConnKey(source, conn) + "/token" }

// Record is what a sign-in leaves in the keychain: the tokens, and
// what refreshing and revoking them needs after a restart.
type Record struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Issued       time.Time `json:"issued,omitzero"` // when the access token was issued
	Scopes       []string  `json:"scopes,omitempty"`

	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthStyle    int    `json:"auth_style,omitempty"`
	AuthURL      string `json:"auth_url"`
	TokenURL     string `json:"token_url"`
	RedirectURL  string `json:"redirect_url,omitempty"`
	Issuer       string `json:"issuer,omitempty"`
	Resource     string `json:"resource,omitempty"`
	RevokeURL    string `json:"revoke_url,omitempty"`
	// SourceURL is the source's URL the sign-in was made for: its tokens
	// go to that server only.
	SourceURL string `json:"source_url,omitempty"`
	// Grant is "client_credentials" for a token the client gets on its
	// own (an OpenAPI document's client credentials flow): it is renewed
	// with the client's secret, not a refresh token. "" is an
	// authorization code grant.
	Grant string `json:"grant,omitempty"`
	// Registered is set when the client was registered dynamically for
	// this connection (RFC 7591): a new sign-in to the same server signs
	// in as it again (registeredClient) instead of leaving one more
	// client behind at the authorization server.
	Registered bool `json:"registered,omitempty"`

	// NeedsSignIn is set when the tokens stopped working (a refresh
	// failed, the server refused them, or it asked for more scopes).
	NeedsSignIn bool     `json:"needs_sign_in,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	WantScopes  []string `json:"want_scopes,omitempty"`
}

// registeredClient is the client an earlier sign-in registered
// dynamically, with a loopback listening on its redirect URI's port, when
// a new sign-in to the same source and authorization server may sign in
// as it; nils when it may not, or when that port is taken now (or is not
// the one the connection names). An authorization server keeps every
// client registered with it: registering anew at each sign-in would
// leave one behind each time. The kept record is marked as tried first: a
// server that forgot the client shows the person an error page and never
// redirects back, and the sign-in after that one registers anew.
func (o SignInOptions) registeredClient(r *Record, sourceURL, issuer string, port int) (*Record, *loopback) {
	if r == nil || !r.Registered || r.ClientID == "" || r.Grant != "" || r.SourceURL != sourceURL ||
		issuer == "" || strings.TrimSuffix(r.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return nil, nil
	}
	u, err := url.Parse(r.RedirectURL)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return nil, nil
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil || p <= 0 || port != 0 && port != p {
		return nil, nil
	}
	lb, err := listenLoopback(p)
	if err != nil {
		return nil, nil
	}
	tried := *r
	tried.Registered = false
	if SaveRecord(o.Keychain, o.Source, o.Conn, &tried) != nil {
		lb.close()
		return nil, nil
	}
	return r, lb
}

func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: r.ClientID, ClientSecret: r.ClientSecret,
		Endpoint:    oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)},
		RedirectURL: r.RedirectURL, Scopes: r.Scopes,
	}
}

// grantClientCredentials marks a Record of the client credentials grant.
const grantClientCredentials = "client_credentials"

// renews reports whether the record gets a new access token without the
// person: it keeps a refresh token, or its client gets tokens on its own.
func (r *Record) renews() bool {
	return r.RefreshToken != "" || r.Grant == grantClientCredentials && r.ClientSecret != ""
}

func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, RefreshToken: r.RefreshToken, TokenType: r.TokenType, Expiry: r.Expiry}
}

// secretValues are the record's values the hub scrubs.
func (r *Record) secretValues() []string {
	var v []string
	for _, s := range []string{r.AccessToken, r.RefreshToken, r.ClientSecret} {
		if s != "" {
			v = append(v, s)
		}
	}
	return v
}

// boundElsewhere says why the sign-in does not hold for def, a source
// whose URL is not the one it was made for (the server, or the protected
// resource its tokens were issued for); "" when it holds. Its tokens are
// never sent to another server: the connection needs a sign-in there.
// A REST API's origin is its baseUrl, when the config sets one; else it
// is its document's server, which only the OpenAPI sources know
// (openapi.Sources.SignInMoved).
func (r *Record) boundElsewhere(def *config.Source) string {
	if def != nil && def.OpenAPI != "" && def.BaseURL != "" && r.SourceURL != "" {
		if was, now := secrets.OriginOfURL(r.SourceURL), secrets.OriginOfURL(def.BaseURL); was != now {
			return fmt.Sprintf("the sign-in was made for %s, and the API is now at %s", secrets.ShownOrigin(was), secrets.ShownOrigin(now))
		}
	}
	if def == nil || def.URL == "" {
		return ""
	}
	switch {
	case r.SourceURL != "" && r.SourceURL != def.URL:
		return fmt.Sprintf("the sign-in was made for %s, and the source's URL is now %s", r.SourceURL, def.URL)
	case r.SourceURL == "" && r.Resource != "" && !sameURLOrigin(r.Resource, def.URL):
		return fmt.Sprintf("the sign-in was made for %s, and the source's URL is now %s", r.Resource, def.URL)
	}
	return ""
}

// sameURLOrigin reports whether two URLs have the same scheme, host and port.
func sameURLOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && secrets.Origin(ua) == secrets.Origin(ub)
}

// oauthChunk is the size of one keychain item holding a record: below the
// Windows Credential Manager's 2,560 bytes and macOS's about 4 KB. A larger
// record is split across items "<key>", "<key>.1", "<key>.2", ...
const oauthChunk = 2000

const oauthChunkedPrefix = "chunks:"

// SaveRecord keeps r in kc as the sign-in of connection conn of source,
// split across items when it is larger than one item holds.
func SaveRecord(kc keychain.Keychain, source, conn string, r *Record) error {
	if kc == nil {
		return errors.New("no keychain is available to keep the sign-in")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	enc := base64.RawURLEncoding.EncodeToString(b)
	key := oauthTokenKey(source, conn)
	old := oauthChunkCount(kc, key)
	if len(enc) <= oauthChunk {
		if err := kc.Set(key, enc); err != nil {
			return err
		}
		deleteOAuthChunks(kc, key, 1, old)
		return nil
	}
	n := (len(enc) + oauthChunk - 1) / oauthChunk
	for i := 1; i <= n; i++ {
		part := enc[(i-1)*oauthChunk : min(i*oauthChunk, len(enc))]
		if err := kc.Set(key+"."+strconv.Itoa(i), part); err != nil {
			return err
		}
	}
	if err := kc.Set(key, oauthChunkedPrefix+strconv.Itoa(n)); err != nil {
		return err
	}
	deleteOAuthChunks(kc, key, n+1, old)
	return nil
}

func oauthChunkCount(kc keychain.Keychain, key string) int {
	v, err := kc.Get(key)
	if err != nil || !strings.HasPrefix(v, oauthChunkedPrefix) {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(v, oauthChunkedPrefix))
	return n
}

func deleteOAuthChunks(kc keychain.Keychain, key string, from, to int) {
	for i := from; i <= to; i++ {
		_ = kc.Delete(key + "." + strconv.Itoa(i))
	}
}

// LoadRecord reads a connection's sign-in; (nil, nil) when there is
// none.
func LoadRecord(kc keychain.Keychain, source, conn string) (*Record, error) {
	if kc == nil {
		return nil, nil
	}
	key := oauthTokenKey(source, conn)
	v, err := kc.Get(key)
	if errors.Is(err, keychain.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(v, oauthChunkedPrefix) {
		n, err := strconv.Atoi(strings.TrimPrefix(v, oauthChunkedPrefix))
		if err != nil || n < 1 || n > 64 {
			return nil, fmt.Errorf("keychain entry %q is damaged; sign in again", key)
		}
		var b strings.Builder
		for i := 1; i <= n; i++ {
			part, err := kc.Get(key + "." + strconv.Itoa(i))
			if err != nil {
				return nil, fmt.Errorf("keychain entry %q is incomplete (%v); sign in again", key, err)
			}
			b.WriteString(part)
		}
		v = b.String()
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("keychain entry %q is damaged; sign in again", key)
	}
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil || r.AccessToken == "" {
		return nil, fmt.Errorf("keychain entry %q is damaged; sign in again", key)
	}
	return &r, nil
}

func deleteRecord(kc keychain.Keychain, source, conn string) error {
	key := oauthTokenKey(source, conn)
	n := oauthChunkCount(kc, key)
	err := kc.Delete(key)
	deleteOAuthChunks(kc, key, 1, n)
	if errors.Is(err, keychain.ErrNotFound) {
		return nil
	}
	return err
}

// DeleteSignIns deletes the sign-ins of source's connections conns, and of
// the source itself (a source without connections signs in as one), with
// any preregistered client's secret: what `source remove` and `connection
// remove` leave of them in the keychain is nothing. It does not revoke the
// tokens.
func DeleteSignIns(kc keychain.Keychain, source string, conns []string) error {
	return deleteSignIns(kc, source, append([]string{""}, conns...))
}

func deleteSignIns(kc keychain.Keychain, source string, conns []string) error {
	var errs []error
	for _, conn := range conns {
		if err := deleteRecord(kc, source, conn); err != nil {
			errs = append(errs, fmt.Errorf("deleting the sign-in of %s: %w", oauthConnKey(source, conn), err))
		}
		for _, key := range []string{ClientSecretKey(source, conn), clientBoundKey(source, conn)} {
			if err := kc.Delete(key); err != nil && !errors.Is(err, keychain.ErrNotFound) {
				errs = append(errs, fmt.Errorf("deleting the client secret of %s: %w", oauthConnKey(source, conn), err))
			}
		}
	}
	return errors.Join(errs...)
}

// ForgetReplaced deletes from kc what source name (old) leaves behind when
// s replaces it: the secrets s does not read, or must not
// (config.Source.LeftBehind; fresh are those just stored for s), and the
// sign-ins and client secrets of the connections s does not have, or of
// all when s reaches another place (config.SameReach), where a sign-in
// made for old's server and its authorization server has no business. Run
// it before the config that holds s is saved: a secret that fails to go
// (err) stops the replace, since s would send it. A sign-in or client
// secret that fails to go is only said (warning): each is bound to the
// server it was made for, and goes nowhere else.
func ForgetReplaced(kc keychain.Keychain, name string, old, s *config.Source, fresh map[string]string) (warning, err error) {
	if old == nil {
		return nil, nil
	}
	for _, key := range old.LeftBehind(name, s, fresh) {
		if err := kc.Delete(key); err != nil && !errors.Is(err, keychain.ErrNotFound) {
			return nil, fmt.Errorf("removing the secrets of the source %s replaces, which it must not send: %w", name, err)
		}
	}
	// At the same place, the connections s dropped; elsewhere, all, and
	// the source's own sign-in ("").
	gone := slices.DeleteFunc(old.ConnectionNames(), func(conn string) bool { return s.Connections[conn] != nil })
	if !config.SameReach(old, s) {
		gone = append(append(old.ConnectionNames(), s.ConnectionNames()...), "")
	}
	for _, conn := range gone {
		if err := deleteSignIns(kc, name, []string{conn}); errors.Is(err, keychain.ErrUnavailable) {
			return fmt.Errorf("the keychain is unavailable: the sign-ins of the source %s replaces stay in it, bound to its server", name), nil
		} else if err != nil {
			return fmt.Errorf("the sign-ins of the source %s replaces stay in the keychain, bound to its server: %w", name, err), nil
		}
	}
	return nil, nil
}

// State is a connection's sign-in as the person sees it.
type State struct {
	Source, Conn string
	SignedIn     bool
	Expiry       time.Time // zero when the server gave none
	Refreshable  bool      // a new access token comes without the person (a refresh token is kept)
	Scopes       []string
	Reason       string // why a sign-in is needed, when SignedIn is false
	// Issuer is the authorization server that issued the sign-in, and
	// Resource the server (the source's URL) it was made for; both are
	// empty without a sign-in.
	Issuer, Resource string
}

// Summary is the state in a few words: "signed in until 2026-12-01 12:00
// UTC, scopes mcp:tools, issued by https://auth.example.com" or "needs
// sign-in: ...".
func (s State) Summary() string {
	if !s.SignedIn {
		if s.Reason == "" {
			return "needs sign-in"
		}
		return "needs sign-in: " + s.Reason
	}
	var b strings.Builder
	b.WriteString("signed in")
	switch {
	case s.Refreshable:
		b.WriteString(" (refreshed as needed)")
	case !s.Expiry.IsZero():
		fmt.Fprintf(&b, " until %s", s.Expiry.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(s.Scopes) > 0 {
		fmt.Fprintf(&b, ", scopes %s", strings.Join(s.Scopes, " "))
	}
	if s.Issuer != "" {
		fmt.Fprintf(&b, ", issued by %s", s.Issuer)
	}
	return b.String()
}

// ReadState reads the sign-in of a connection from the keychain. With
// def, the source as configured now, a sign-in made for another URL is
// reported as needing a sign-in.
func ReadState(kc keychain.Keychain, source, conn string, def *config.Source) (State, error) {
	st := State{Source: source, Conn: conn}
	r, err := LoadRecord(kc, source, conn)
	if err != nil {
		return st, err
	}
	if r != nil {
		st.Issuer, st.Resource = r.Issuer, cmp.Or(r.SourceURL, r.Resource)
	}
	switch {
	case r == nil:
		st.Reason = "not signed in"
	case r.boundElsewhere(def) != "":
		st.Reason = r.boundElsewhere(def)
	case r.NeedsSignIn:
		st.Reason = r.Reason
	case !r.renews() && !r.Expiry.IsZero() && time.Now().After(r.Expiry):
		st.Reason = "the access token expired"
	default:
		st.SignedIn, st.Expiry, st.Refreshable, st.Scopes = true, r.Expiry, r.renews(), r.Scopes
	}
	return st, nil
}

// NeedsSignIn reports whether connection conn of source (s, its config)
// waits for a sign-in: it signs in with OAuth (configured so, holding a
// sign-in, or its server asked, which asked reports and is called last)
// and has no working sign-in.
func NeedsSignIn(kc keychain.Keychain, source, conn string, s *config.Source, asked func() bool) bool {
	if s == nil || s.URL == "" && s.OpenAPI == "" {
		return false
	}
	if c := s.Connections[conn]; !Applies(s.Headers) || c != nil && !Applies(c.Headers) {
		return false // it sends its own Authorization header
	}
	st, err := ReadState(kc, source, conn, s)
	switch {
	case err != nil:
		return s.IsOAuth(conn)
	case st.SignedIn:
		return false
	case st.Reason != "not signed in":
		return true // it had a sign-in, which stopped working
	}
	return s.IsOAuth(conn) || asked()
}

// States are the sign-in states of the OAuth connections of source name
// (s, its config): each connection of an HTTP source that is OAuth by its
// config, holds a sign-in or whose server asked for one (asked), with a
// state that cannot be read said so in its Reason when it is OAuth by its
// config or its server asked.
func States(kc keychain.Keychain, name string, s *config.Source, asked func(conn string) bool) []State {
	if s == nil || s.URL == "" && s.OpenAPI == "" {
		return nil
	}
	conns := s.ConnectionNames()
	if len(conns) == 0 {
		conns = []string{""}
	}
	var out []State
	for _, c := range conns {
		st, err := ReadState(kc, name, c, s)
		switch {
		case err != nil:
			// As NeedsSignIn decides: a keychain that cannot be read
			// (locked, no Secret Service) makes no sign-in of a
			// connection that is not OAuth by its config and whose
			// server never asked; an API without sign-in is not said to
			// need one.
			if !s.IsOAuth(c) && !asked(c) {
				continue
			}
			st.Reason = "the sign-in cannot be read: " + err.Error()
		case !st.SignedIn && st.Reason == "not signed in" && !s.IsOAuth(c) && !asked(c):
			continue
		}
		out = append(out, st)
	}
	return out
}

// ErrNeedsSignIn reports that a connection must be signed in (again) by
// the person before it can be used.
var ErrNeedsSignIn = errors.New("needs sign-in")

// ErrNeedsClient reports that a sign-in needs a client registered with
// the authorization server beforehand: it takes no registration the hub
// can make. The connection's "oauth.clientId" (and redirect port) says
// which.
var ErrNeedsClient = errors.New("needs a client registered beforehand")

// ErrNeedsClientCredentials reports that a REST API's token comes from a
// client credentials flow, which needs the id and secret of a client
// registered with its authorization server: the connection's
// "oauth.clientId", its secret in the keychain.
var ErrNeedsClientCredentials = errors.New("needs the id and secret of a client registered beforehand")

// needsClientError is ErrNeedsClient, or ErrNeedsClientCredentials, with
// what to do in the CLI's words.
type needsClientError struct {
	msg  string
	kind error // ErrNeedsClient when nil
	// reason is set when the connection has a client whose secret is
	// bound to another server (ErrClientElsewhere): which, in a sentence
	// with no command in it, for a window.
	reason string
}

// Reason is why the sign-in needs another client, for a window that asks
// for it in a form; "" where the server takes no registration, which is
// reason enough.
func (e *needsClientError) Reason() string { return e.reason }

// ErrClientElsewhere reports, beside ErrNeedsClient or
// ErrNeedsClientCredentials, that the connection's client has a secret
// that went elsewhere at its first sign-in and goes there only: the
// server the sign-in would send it to now is another.
var ErrClientElsewhere = errors.New("the client's secret belongs to another server")

// needsClient says that server (the authorization server of a source, in
// words) takes no registration the hub can make, and how to give the
// connection a client registered with it beforehand: the client is kept
// in a connection's "oauth", "default" for a source without one.
func needsClient(o SignInOptions, server string) error {
	conn := cmp.Or(o.Conn, "default")
	return &needsClientError{msg: fmt.Sprintf("%s takes no registration the hub can make; register an app with it whose redirect URI is http://127.0.0.1:PORT/callback, then: capabilities connection login %s %s --client-id ID --redirect-port PORT (add --client-secret-stdin if it has a secret)", server, o.Source, conn)}
}

func (e *needsClientError) Error() string { return e.msg }
func (e *needsClientError) Unwrap() []error {
	if e.reason != "" {
		return []error{cmp.Or(e.kind, ErrNeedsClient), ErrClientElsewhere}
	}
	return []error{cmp.Or(e.kind, ErrNeedsClient)}
}

// SignInError says which connection needs a sign-in, and why.
type SignInError struct {
	Source, Conn string
	Reason       string
}

func (e *SignInError) Error() string { return "needs sign-in: " + e.Reason }
func (e *SignInError) Unwrap() error { return ErrNeedsSignIn }

// SignInOptions configure [SignIn].
type SignInOptions struct {
	Source, Conn string
	Def          *config.Source
	Keychain     keychain.Keychain
	// Open shows the sign-in to the person: it is given a one-time page on
	// the loopback listener that redirects to the authorization page, never
	// the authorization URL itself. nil means [OpenBrowser].
	Open func(ctx context.Context, url string) error
	// HTTPClient reaches the server and its authorization server; nil
	// means a client that follows redirects within an origin only.
	HTTPClient *http.Client
	// Flow, when set, is the flow the source's document names (an OpenAPI
	// source): the sign-in runs it instead of asking the server.
	Flow *Flow
}

// Grant is what a sign-in was granted.
type Grant struct {
	Scopes      []string
	Expiry      time.Time
	Refreshable bool
	Issuer      string
}

// SignIn runs the browser sign-in of a connection and keeps its tokens in
// the keychain. It blocks until the person finished in the browser, ctx
// ended, or the flow failed.
func SignIn(ctx context.Context, o SignInOptions) (*Grant, error) {
	if o.Def == nil || o.Def.URL == "" && o.Flow == nil {
		return nil, fmt.Errorf("source %s is not an HTTP source; only HTTP sources sign in with OAuth", o.Source)
	}
	if o.Keychain == nil {
		return nil, errors.New("no keychain is available to keep the sign-in")
	}
	open := o.Open
	if open == nil {
		open = OpenBrowser
	}
	client := o.HTTPClient
	if client == nil {
		// The code, the PKCE verifier and a client secret go to the
		// authorization server only, never through a redirect elsewhere.
		client = &http.Client{CheckRedirect: secrets.SameOriginRedirect}
	}
	if o.Flow != nil {
		return signInFlow(ctx, o, open, client)
	}
	client = remoteOnly(client, o.Def.URL)
	var cfg config.OAuthConfig
	if c := o.Def.Connections[o.Conn]; c != nil && c.OAuth != nil {
		cfg = *c.OAuth
	}
	prev, _ := LoadRecord(o.Keychain, o.Source, o.Conn)

	// Ask the server: its 401 names the resource metadata.
	req, resp, err := oauthProbe(ctx, client, o.Def.URL)
	if err != nil {
		return nil, fmt.Errorf("reaching %s: %w", o.Def.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil, fmt.Errorf("%s answered %s without asking for a sign-in; it does not use OAuth", o.Def.URL, resp.Status)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	// The authorization server, as the handler discovers it: one that
	// publishes no registration endpoint takes only a client registered
	// beforehand (or a metadata document), which the person must give.
	asm, err := discoverAuthServer(ctx, client, challenges, o.Def.URL)
	if err != nil {
		return nil, err
	}
	if asm != nil && asm.RegistrationEndpoint == "" && cfg.ClientID == "" && (cfg.ClientMetadataURL == "" || !asm.ClientIDMetadataDocumentSupported) {
		return nil, needsClient(o, fmt.Sprintf("the authorization server of %s (%s)", o.Source, asm.Issuer))
	}

	var reuse *Record
	lb := (*loopback)(nil)
	if cfg.ClientID == "" && cfg.ClientMetadataURL == "" && asm != nil {
		reuse, lb = o.registeredClient(prev, o.Def.URL, asm.Issuer, cfg.RedirectPort)
	}
	if lb == nil {
		if lb, err = listenLoopback(cfg.RedirectPort); err != nil {
			return nil, err
		}
	}
	defer lb.close()
	redirect := lb.redirect

	var captured struct {
		cfg *oauth2.Config
		tok *oauth2.Token
		url string
	}
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "capabilities",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			captured.url = args.URL
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, errors.New("the authorization URL does not parse")
			}
			return lb.await(ctx, args.URL, u.Query().Get("state"), open)
		},
		RequestRefreshToken: true,
		Client:              client,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			captured.cfg, captured.tok = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if cfg.ClientMetadataURL != "" {
		hcfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: cfg.ClientMetadataURL}
	}
	var secret, bound string // the client's, and the issuer it went to
	if cfg.ClientID != "" {
		pc := &oauthex.ClientCredentials{ClientID: cfg.ClientID}
		if secret, bound = boundClientSecret(o.Keychain, o.Source, o.Conn); secret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
			// Bound, the handler refuses another server too, as it
			// discovers it, before it sends anything there.
			if pc.Issuer = bound; bound != "" && asm != nil && !sameIssuer(bound, asm.Issuer) {
				return nil, clientElsewhere(o, nil, cfg.ClientID, "authorization server", asm.Issuer, bound)
			}
		}
		hcfg.PreregisteredClient = pc
	}
	if reuse != nil {
		pc := &oauthex.ClientCredentials{ClientID: reuse.ClientID, Issuer: reuse.Issuer}
		if reuse.ClientSecret != "" {
			pc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: reuse.ClientSecret}
		}
		hcfg.PreregisteredClient = pc
	}
	wanted := slices.Clone(cfg.Scopes)
	if prev != nil {
		wanted = unionScopes(wanted, prev.WantScopes)
	}
	if len(wanted) > 0 {
		hcfg.ScopeFilter = func(discovered []string) []string { return unionScopes(discovered, wanted) }
	}
	h, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		return nil, err
	}

	if err := h.Authorize(ctx, req, resp); err != nil {
		return nil, fmt.Errorf("signing in to %s: %w", o.Def.URL, err)
	}
	if captured.tok == nil || captured.cfg == nil {
		return nil, fmt.Errorf("signing in to %s: no token was issued", o.Def.URL)
	}
	rec := &Record{
		AccessToken: captured.tok.AccessToken, RefreshToken: captured.tok.RefreshToken,
		TokenType: captured.tok.TokenType, Expiry: captured.tok.Expiry, Issued: time.Now(),
		Scopes:   grantedScopes(captured.tok, captured.cfg.Scopes),
		ClientID: captured.cfg.ClientID, ClientSecret: captured.cfg.ClientSecret, AuthStyle: int(captured.cfg.Endpoint.AuthStyle),
		AuthURL: captured.cfg.Endpoint.AuthURL, TokenURL: captured.cfg.Endpoint.TokenURL, RedirectURL: captured.cfg.RedirectURL,
		SourceURL: o.Def.URL,
		// Neither the connection's own client nor a metadata document's.
		Registered: cfg.ClientID == "" && (cfg.ClientMetadataURL == "" || captured.cfg.ClientID != cfg.ClientMetadataURL),
	}
	if u, err := url.Parse(captured.url); err == nil {
		rec.Resource = u.Query().Get("resource")
	}
	// The issuer and revocation endpoint, for logout.
	if asm != nil {
		rec.Issuer, rec.RevokeURL = asm.Issuer, asm.RevocationEndpoint
	}
	if err := SaveRecord(o.Keychain, o.Source, o.Conn, rec); err != nil {
		return nil, fmt.Errorf("keeping the sign-in in the keychain: %w", err)
	}
	if secret != "" {
		if err := bindClientSecret(o.Keychain, o.Source, o.Conn, bound, rec.Issuer); err != nil {
			return nil, err
		}
	}
	return &Grant{Scopes: rec.Scopes, Expiry: rec.Expiry, Refreshable: rec.RefreshToken != "", Issuer: rec.Issuer}, nil
}

// oauthProbe sends the MCP initialize request without credentials, as a
// client would, so the server answers with its challenge.
func oauthProbe(ctx context.Context, client *http.Client, endpoint string) (*http.Request, *http.Response, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"capabilities","version":"sign-in"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	return req, resp, nil
}

// remoteOnly is client for the sign-in of the server at server: when that
// server is elsewhere, no request of it goes to this machine. Its 401
// names the metadata the hub fetches, and that metadata the authorization
// server, on their own; a server elsewhere must not point the hub at the
// person's local services.
func remoteOnly(client *http.Client, server string) *http.Client {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || onThisMachine(u.Hostname()) {
		return client
	}
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = offThisMachine{base: base, server: secrets.ShownOrigin(secrets.OriginOf(u))}
	return &c
}

// offThisMachine refuses a request to this machine made for a server
// elsewhere.
type offThisMachine struct {
	base   http.RoundTripper
	server string
}

func (t offThisMachine) RoundTrip(r *http.Request) (*http.Response, error) {
	if onThisMachine(r.URL.Hostname()) {
		return nil, &offMachineError{server: t.server, named: secrets.ShownOrigin(secrets.OriginOf(r.URL))}
	}
	return t.base.RoundTrip(r)
}

// onThisMachine reports whether a request to host reaches this machine:
// a loopback name or address, or the unspecified one (0.0.0.0, [::]).
func onThisMachine(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return secrets.IsLoopbackHost(host) || ip != nil && ip.IsUnspecified()
}

// offMachineError is offThisMachine's refusal.
type offMachineError struct{ server, named string }

func (e *offMachineError) Error() string {
	return fmt.Sprintf("%s, a server elsewhere, named %s on this machine for its sign-in; the hub does not go there for it", e.server, e.named)
}

// discoverAuthServer reads the metadata of the authorization server the
// challenges name, as the SDK's handler will; nil when it cannot. It fails
// only when the server pointed at this machine (offMachineError).
func discoverAuthServer(ctx context.Context, client *http.Client, challenges []oauthex.Challenge, endpoint string) (*oauthex.AuthServerMeta, error) {
	var metaURL string
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			metaURL = u
		}
	}
	if metaURL == "" {
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, nil
		}
		u.Path = "/.well-known/oauth-protected-resource" + u.Path
		metaURL = u.String()
	}
	var asm *oauthex.AuthServerMeta
	prm, err := oauthex.GetProtectedResourceMetadata(ctx, metaURL, endpoint, client)
	if err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
		asm, err = auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], client)
	}
	if off := (*offMachineError)(nil); errors.As(err, &off) {
		return nil, off
	}
	if err != nil {
		return nil, nil
	}
	return asm, nil
}

func grantedScopes(tok *oauth2.Token, requested []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return strings.Fields(s)
	}
	return slices.Clone(requested)
}

func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// SignOut revokes a connection's tokens where the authorization server
// offers revocation (RFC 7009) and deletes them from the keychain. revoked
// reports whether the server confirmed the revocation.
func SignOut(ctx context.Context, kc keychain.Keychain, source, conn string, client *http.Client) (revoked bool, err error) {
	rec, err := LoadRecord(kc, source, conn)
	if err != nil {
		return false, err
	}
	if rec == nil {
		return false, nil
	}
	if client == nil {
		client = &http.Client{CheckRedirect: secrets.SameOriginRedirect}
	}
	var rerr error
	if rec.RevokeURL != "" {
		revoked = true
		// The refresh token first: revoking it ends the grant.
		for _, t := range []struct{ tok, hint string }{{rec.RefreshToken, "refresh_token"}, {rec.AccessToken, "access_token"}} {
			if t.tok == "" {
				continue
			}
			if err := revokeToken(ctx, client, rec, t.tok, t.hint); err != nil {
				revoked, rerr = false, err
			}
		}
	}
	if err := deleteRecord(kc, source, conn); err != nil {
		return revoked, err
	}
	if rerr != nil {
		return false, fmt.Errorf("the tokens are deleted here, but the server did not confirm their revocation: %w", rerr)
	}
	return revoked, nil
}

// revokeToken is the RFC 7009 request: a form POST with the token and the
// client's authentication.
func revokeToken(ctx context.Context, client *http.Client, rec *Record, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	if rec.ClientSecret == "" || oauth2.AuthStyle(rec.AuthStyle) == oauth2.AuthStyleInParams {
		form.Set("client_id", rec.ClientID)
		if rec.ClientSecret != "" {
			form.Set("client_secret", rec.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevokeURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec.ClientSecret != "" && oauth2.AuthStyle(rec.AuthStyle) != oauth2.AuthStyleInParams {
		req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the revocation endpoint answered %s", resp.Status)
	}
	return nil
}

// OpenBrowser shows url to the person: through $BROWSER when it is set
// (a command, or several separated by ':', each with %s for the URL or
// taking it as its last argument), else the desktop's opener.
func OpenBrowser(ctx context.Context, u string) error {
	if b := strings.TrimSpace(os.Getenv("BROWSER")); b != "" {
		var errs []error
		for _, c := range strings.Split(b, string(os.PathListSeparator)) {
			fields := strings.Fields(c)
			if len(fields) == 0 {
				continue
			}
			args, subst := fields[1:], false
			for i, a := range args {
				if strings.Contains(a, "%s") {
					args[i], subst = strings.ReplaceAll(a, "%s", u), true
				}
			}
			if !subst {
				args = append(args, u)
			}
			cmd := exec.CommandContext(ctx, fields[0], args...)
			if err := cmd.Start(); err != nil {
				errs = append(errs, err)
				continue
			}
			go cmd.Wait()
			return nil
		}
		return fmt.Errorf("$BROWSER: %w", errors.Join(errs...))
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", u)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", u)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("there is no desktop to open the sign-in page on; set $BROWSER")
		}
		cmd = exec.CommandContext(ctx, "xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
