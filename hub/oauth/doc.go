// Package oauth signs a connection in with OAuth, and keeps its tokens in
// the keychain.
//
// An HTTP source's connection signs in with OAuth 2.1 as the MCP
// authorization spec describes it. The protocol is go-sdk's: discovery
// (RFC 9728 protected resource metadata, RFC 8414 / OpenID Connect
// authorization server metadata), client registration (a Client ID Metadata
// Document, a preregistered client, or RFC 7591 dynamic registration), PKCE
// S256, the RFC 8707 resource parameter and the RFC 9207 iss check all run
// inside auth.AuthorizationCodeHandler; token refresh is golang.org/x/oauth2.
// This package adds what a desktop hub needs around them. SignIn runs the
// flow in the person's browser (OpenBrowser) through a loopback redirect
// (RFC 8252) and keeps what was granted as a Record in the keychain;
// ReadState says what a connection's sign-in is worth now (NeedsSignIn
// whether it waits for one, States every OAuth connection's of a source),
// and SignOut revokes and deletes it. SignIns keeps the sign-ins a hub runs,
// one per connection at a time. A Conn, from NewConn, is the auth.OAuthHandler of
// one session: it hands out the access token, refreshes it when due, and
// never opens a browser in the middle of a call; a connection that needs
// the person fails at once with a *SignInError (ErrNeedsSignIn), and the
// person signs in outside the call. A sign-in belongs to the source URL it
// was made for and to the authorization server that issued it: its tokens
// go nowhere else. An OpenAPI source's connection signs in with the flow
// its document names (Flow: an oauth2 scheme's authorization code flow,
// or an openIdConnect scheme's discovery document), PKCE S256 with
// golang.org/x/oauth2, a preregistered client or one registered
// dynamically when the authorization server publishes metadata; its
// tokens go to the API's origin only. A client the hub registered
// dynamically is kept with the Record, and the connection's next sign-in to
// the same source and authorization server signs in as it again on the
// same redirect port (Record.Registered): an authorization server keeps
// every client registered with it. Of the hub, the package imports only
// config and secrets (deps_test.go).
package oauth
