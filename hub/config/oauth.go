package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// OAuthConfig is a connection's "oauth" object in config.json. Every field
// is optional: a connection without one still signs in when its server
// asks (dynamic registration). A client secret lives in the keychain (the
// oauth package's ClientSecretKey names its entry), never here.
type OAuthConfig struct {
	// ClientID is a client registered with the authorization server
	// beforehand.
	ClientID string `json:"clientId,omitempty"`
	// ClientMetadataURL is the HTTPS URL of a Client ID Metadata Document
	// the person hosts; used when the authorization server supports it.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Scopes to ask for; empty means the scopes the server names.
	Scopes []string `json:"scopes,omitempty"`
	// RedirectPort fixes the loopback redirect's port (for a preregistered
	// client whose redirect URI names one); 0 picks a free port.
	RedirectPort int `json:"redirectPort,omitempty"`
}

func parseOAuthConfig(at string, raw json.RawMessage, add func(key, format string, args ...any)) *OAuthConfig {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		add(at, "must be an object with \"clientId\", \"clientMetadataUrl\", \"scopes\" and \"redirectPort\"")
		return nil
	}
	o := &OAuthConfig{}
	for k, v := range fields {
		var err error
		switch k {
		case "clientId":
			err = json.Unmarshal(v, &o.ClientID)
		case "clientMetadataUrl":
			if err = json.Unmarshal(v, &o.ClientMetadataURL); err == nil {
				if u, perr := url.Parse(o.ClientMetadataURL); perr != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
					add(at+"."+k, "must be an HTTPS URL with a path (the Client ID Metadata Document the person hosts)")
				}
			}
		case "scopes":
			if err = json.Unmarshal(v, &o.Scopes); err == nil {
				for _, s := range o.Scopes {
					if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
						add(at+"."+k, "scope %q is not a valid OAuth scope", s)
					}
				}
			}
		case "redirectPort":
			if err = json.Unmarshal(v, &o.RedirectPort); err == nil && (o.RedirectPort < 0 || o.RedirectPort > 65535) {
				add(at+"."+k, "must be a port number from 1 to 65535 (or 0 for any free port)")
			}
		case "clientSecret":
			add(at+"."+k, "a client secret does not go in config.json; store it with `capabilities connection login --client-secret-stdin` (it goes to the keychain)")
			continue
		default:
			add(at+"."+k, "unknown key (known: clientId, clientMetadataUrl, scopes, redirectPort)")
			continue
		}
		if err != nil {
			add(at+"."+k, "has the wrong type")
		}
	}
	return o
}

// IsOAuth reports whether connection conn of s signs in with OAuth: it is
// configured so, or it holds a sign-in. HTTP and OpenAPI sources sign in.
func (s *Source) IsOAuth(conn string) bool {
	if s == nil || s.URL == "" && s.OpenAPI == "" {
		return false
	}
	c := s.Connections[conn]
	return c != nil && c.OAuth != nil
}

// SignInConnection is the connection of source name (s) a sign-in keeps
// its client and tokens under, given the one asked for (conn; "" for the
// default). A REST API without connections gets its first, "default"; an
// HTTP source without connections signs in as none (""). It fails,
// naming what to do, when s has several connections and no default.
func (s *Source) SignInConnection(name, conn string) (string, error) {
	if conn == "" {
		conn = s.DefaultConnection()
	}
	switch {
	case conn != "":
		return conn, nil
	case len(s.Connections) > 0:
		return "", fmt.Errorf("source %s has several connections and none is the default; name one", name)
	case s.OpenAPI != "":
		return "default", nil
	}
	return "", nil
}

// ClientConnection is the connection of source name (s) a client
// registered beforehand is kept in, given the one asked for: as
// SignInConnection names it, and "default" for an HTTP source without
// connections, since a client is kept in a connection's "oauth" (the
// connection added is then the source's default, which signs in).
func (s *Source) ClientConnection(name, conn string) (string, error) {
	conn, err := s.SignInConnection(name, conn)
	if err == nil && conn == "" {
		conn = "default"
	}
	return conn, err
}

// PutOAuth makes connection conn of s one that signs in with OAuth,
// adding it when s has none of that name; a clientID ("" keeps the one it
// has) and redirectPort name a client registered with the authorization
// server beforehand. It reports whether anything changed.
func (s *Source) PutOAuth(conn, clientID string, redirectPort int) bool {
	c := s.Connections[conn]
	if c != nil && c.OAuth != nil && clientID == "" && redirectPort == 0 {
		return false
	}
	if c == nil {
		c = &Connection{}
	}
	if c.OAuth == nil {
		c.OAuth = &OAuthConfig{}
	}
	if clientID != "" {
		c.OAuth.ClientID = clientID
	}
	if redirectPort != 0 {
		c.OAuth.RedirectPort = redirectPort
	}
	s.PutConnection(conn, c, false)
	return true
}
