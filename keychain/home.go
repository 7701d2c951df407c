package keychain

import (
	"errors"
	"fmt"
	"regexp"
)

// Home is the keychain of one CAPABILITIES_HOME: base's entries under the
// service "<base service>/<home id>".
//
// Entries written before homes had ids sit under the base service itself,
// shared by every home. Reading a key this home does not have yet moves
// such an entry here (read the old entry, write the new one, delete the old
// one), so the home that first asks for it keeps it, and no other home reads
// it after that.
type Home struct {
	scoped, legacy System
}

var homeIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ForHome returns the keychain of the home whose id is homeID, on base's
// service and timeout.
func ForHome(base System, homeID string) (*Home, error) {
	if !homeIDRE.MatchString(homeID) {
		return nil, fmt.Errorf("keychain: invalid home id %q", homeID)
	}
	scoped := base
	scoped.Service = base.ServiceName() + "/" + homeID
	legacy := base
	legacy.Service = base.ServiceName()
	return &Home{scoped: scoped, legacy: legacy}, nil
}

// ServiceName is the service this home's entries are stored under.
func (h *Home) ServiceName() string { return h.scoped.ServiceName() }

// Get returns the secret under key, moving an entry of the shared service
// from before homes had ids into this home first.
func (h *Home) Get(key string) (string, error) {
	v, err := h.scoped.Get(key)
	if !errors.Is(err, ErrNotFound) {
		return v, err
	}
	old, lerr := h.legacy.Get(key)
	if lerr != nil {
		// Nothing to move (or the shared entry cannot be read): the answer
		// is this home's.
		return "", err
	}
	if err := h.scoped.Set(key, old); err != nil {
		return "", fmt.Errorf("keychain: moving %q into this home: %w", key, err)
	}
	if err := h.legacy.Delete(key); err != nil && !errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("keychain: moving %q into this home: %w", key, err)
	}
	return old, nil
}

// Set stores secret under key in this home.
func (h *Home) Set(key, secret string) error { return h.scoped.Set(key, secret) }

// Delete removes key from this home, and a shared entry of the same key
// from before homes had ids, so that a deleted secret does not come back by
// migration. It returns [ErrNotFound] when neither existed.
func (h *Home) Delete(key string) error {
	err := h.scoped.Delete(key)
	if lerr := h.legacy.Delete(key); lerr == nil {
		return nil
	} else if !errors.Is(lerr, ErrNotFound) && (err == nil || errors.Is(err, ErrNotFound)) {
		return lerr
	}
	return err
}

// DeleteAll removes every entry of this home. Shared entries from before
// homes had ids are left: another home may still claim them.
func (h *Home) DeleteAll() error { return h.scoped.DeleteAll() }
