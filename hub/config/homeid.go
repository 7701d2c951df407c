package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"capabilities.sh/capabilities/keychain"
)

// HomeID returns the stable id of the home at p, creating it (a random id
// in the file home-id) the first time. The keychain keeps the home's
// secrets under a service named with it, so two homes never share an entry.
// Two processes that create it at once agree on the one written first.
func HomeID(p Paths) (string, error) {
	path := p.HomeID()
	if id, err := readHomeID(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return id, err
	}
	if err := os.MkdirAll(p.Home, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", p.Home, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	id := "h" + hex.EncodeToString(b)
	// Write aside, then link into place: the file is either absent or
	// whole, and the first link wins.
	tmp, err := os.CreateTemp(p.Home, ".home-id.*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(id + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return readHomeID(path)
}

func readHomeID(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if id == "" || len(id) > 64 || strings.ContainsAny(id, " /\\\t\n") {
		return "", fmt.Errorf("%s: not a home id (%q); move it aside and a new one is made, but the keychain entries of the old id are then not found", path, id)
	}
	return id, nil
}

// HomeKeychain returns the keychain of the home at p on base (the OS
// keychain under base's service): its entries live under the service
// "<base service>/<home id>".
func HomeKeychain(p Paths, base keychain.System) (*keychain.Home, error) {
	id, err := HomeID(p)
	if err != nil {
		return nil, err
	}
	return keychain.ForHome(base, id)
}

// homeIDName is the file under CAPABILITIES_HOME that holds the home's id.
const homeIDName = "home-id"

// HomeID is the file that holds the home's id.
func (p Paths) HomeID() string { return filepath.Join(p.Home, homeIDName) }
