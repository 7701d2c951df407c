package config

import (
	"errors"
	"fmt"
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
