package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"capabilities.sh/capabilities/keychain"
)

// ProfilesPinning names the profiles that pin connection conn of source,
// sorted: removing the connection would leave them pointing at nothing.
func (c *Config) ProfilesPinning(source, conn string) []string {
	var out []string
	for _, name := range c.ProfilesUsing(source) {
		if c.Profiles[name].Connections[source] == conn {
			out = append(out, name)
		}
	}
	return out
}

// RemoveConnection removes connection conn of source name with the secrets
// it references in kc, as 'capabilities connection remove' does: when it
// was the default, the first of the others in name order becomes it. A
// connection a profile pins is refused, naming the profiles. Secrets that
// could not be deleted are returned in lost; the connection goes anyway.
// Its OAuth sign-in is the caller's to delete (hub/oauth).
func (c *Config) RemoveConnection(kc keychain.Keychain, name, conn string) (lost []error, err error) {
	s, ok := c.Sources[name]
	if !ok {
		return nil, fmt.Errorf("no source named %q", name)
	}
	if _, ok := s.Connections[conn]; !ok {
		return nil, fmt.Errorf("source %s has no connection %q (it has: %s)", name, conn, strings.Join(s.ConnectionNames(), ", "))
	}
	if pins := c.ProfilesPinning(name, conn); len(pins) > 0 {
		return nil, fmt.Errorf("connection %s of %s is pinned by profile %s: remove or change those profiles first", conn, name, strings.Join(pins, ", "))
	}
	for _, ref := range s.SecretRefs(conn) {
		if err := kc.Delete(SecretKey(name, conn, ref)); err != nil && !errors.Is(err, keychain.ErrNotFound) {
			lost = append(lost, err)
		}
	}
	wasDefault := s.DefaultConnection() == conn
	delete(s.Connections, conn)
	if wasDefault && len(s.Connections) > 0 {
		s.Connections[s.ConnectionNames()[0]].Default = true
	}
	return lost, nil
}

// SetDefaultConnection makes conn the default connection of source name:
// the one its calls use when they name none.
func (c *Config) SetDefaultConnection(name, conn string) error {
	s, ok := c.Sources[name]
	if !ok {
		return fmt.Errorf("no source named %q", name)
	}
	cn, ok := s.Connections[conn]
	if !ok {
		return fmt.Errorf("source %s has no connection %q (it has: %s)", name, conn, strings.Join(s.ConnectionNames(), ", "))
	}
	s.PutConnection(conn, cn, true)
	return nil
}

// OAuthSignInRef stands, among a connection's missing secrets, for the
// sign-in it waits for. No ${secret:NAME} can have this name.
const OAuthSignInRef = "(sign-in)"

// ConnectionMessage tells the model which command stores the missing
// secrets: `capabilities connection add SOURCE CONNECTION --secret REF` for
// each (source and connection by their names in config.json, not the
// namespace), which works whatever else the connection references.
// A source with no connection yet (conn "") is said to have none, and its
// commands add its default connection, "default".
func ConnectionMessage(source, conn string, refs []string) string {
	who := fmt.Sprintf("Connection %q of %s", conn, source)
	if conn == "" {
		who = fmt.Sprintf("Source %s (no connection yet)", source)
	}
	if slices.Contains(refs, OAuthSignInRef) {
		return fmt.Sprintf("%s needs the user to sign in. The hub asked them to: the sign-in page opens on their screen when there is one, and the tray shows it. Tell the user; they can also run `%s`. Never ask for a password or token in chat. Then resume.",
			who, strings.TrimSpace("capabilities connection login "+source+" "+conn))
	}
	add := ConnectionToAdd(conn)
	cmds := make([]string, 0, max(len(refs), 1))
	for _, ref := range refs {
		cmds = append(cmds, fmt.Sprintf("capabilities connection add %s %s --secret %s", source, add, ref))
	}
	if len(cmds) == 0 {
		cmds = append(cmds, fmt.Sprintf("capabilities connection add %s %s", source, add))
	}
	return fmt.Sprintf("%s has no secret yet. Ask the user to add it in a terminal: %s (the secret is read from stdin; never ask for it in chat). Then resume.",
		who, strings.Join(cmds, "; "))
}

// ConnectionToAdd is the connection a command that adds a secret names:
// conn, or "default" for a source with no connection yet (its first
// connection becomes its default).
func ConnectionToAdd(conn string) string {
	return cmp.Or(conn, "default")
}

// PlaceSecret makes connection conn of the source (its default, or the
// first, "default", when conn is "") carry a secret named after name: a
// stdio source gets it as environment variable name, an HTTP source as
// header name, after "Bearer " when bearer. It returns the connection.
func (s *Source) PlaceSecret(conn, name string, bearer bool) string {
	conn = ConnectionToAdd(cmp.Or(conn, s.DefaultConnection()))
	c := s.Connections[conn]
	if c == nil {
		c = &Connection{}
	}
	ref := "${secret:" + secretRefName(name) + "}"
	if s.Command != "" {
		if c.Env == nil {
			c.Env = map[string]string{}
		}
		c.Env[name] = ref
	} else {
		if c.Headers == nil {
			c.Headers = map[string]string{}
		}
		if bearer {
			ref = "Bearer " + ref
		}
		c.Headers[name] = ref
	}
	s.PutConnection(conn, c, false)
	return conn
}

// NoSecretPlaceError says that a connection of an MCP source references
// no secret, so the hub cannot tell where its secret goes: the person
// says it, an environment variable (Env: a stdio source) or a header
// (PlaceSecret).
type NoSecretPlaceError struct {
	Source, Conn string
	Env          bool
}

func (e *NoSecretPlaceError) Error() string {
	how := "--header NAME"
	if e.Env {
		how = "--env VAR"
	}
	return fmt.Sprintf("the hub cannot tell where the secret of %s goes; say it in a terminal: capabilities connection add %s %s %s", e.Source, e.Source, e.Conn, how)
}

// ValidEnvName reports whether k may name an environment variable of a
// stdio source (letters, digits and _, not first a digit).
func ValidEnvName(k string) bool { return envNameRE.MatchString(k) }
