package hub

// Profiles: a named view of the hub that a client selects outside the
// model's reach (capabilities mcp --profile NAME, the HTTP path
// /mcp/p/NAME). For a request made in a profile only the profile's
// sources exist: the sandbox has no global for any other, search has no
// hit and describe no declaration of it, its upstream skills are absent;
// a source whose connection the profile pins has only that one. The
// profile's rules apply after the person's and only tighten them, and a
// read-only profile refuses every call to a tool that is not read-only.
//
// This is enforced here, in the heart, on every request that names a
// profile; the surfaces only pass the name along.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/upstream"
)

// ErrUnknownProfile is what a request that names a profile the config does
// not have fails with (as *UnknownProfileError).
var ErrUnknownProfile = errors.New("unknown profile")

// UnknownProfileError names a profile the config does not have, and those
// it has.
type UnknownProfileError struct {
	Name  string
	Known []string
}

func (e *UnknownProfileError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("no profile named %q; config.json has no profiles (capabilities profile add)", e.Name)
	}
	return fmt.Sprintf("no profile named %q; profiles: %s", e.Name, strings.Join(e.Known, ", "))
}

// Is makes errors.Is(err, ErrUnknownProfile) true.
func (e *UnknownProfileError) Is(target error) bool { return target == ErrUnknownProfile }

// ProfileInfo describes a profile as its clients' surface presents it.
type ProfileInfo struct {
	Name     string
	Mode     string   // config.ProfileCode or config.ProfileDirect
	Sources  []string // namespaces of the profile's sources, in the profile's order
	ReadOnly bool
	// Unavailable are the profile's sources that cannot be used now, each
	// "namespace (why)": disabled, waiting for a secret or a sign-in, down.
	Unavailable []string
}

// Profile describes profile name, or fails with *UnknownProfileError.
func (h *Hub) Profile(name string) (*ProfileInfo, error) {
	sc, err := h.scope(name)
	if err != nil {
		return nil, err
	}
	prof := sc.Profile()
	info := &ProfileInfo{Name: name, Mode: prof.ModeOrDefault(), ReadOnly: prof.ReadOnly}
	states := h.up.State()
	for _, s := range prof.Sources {
		ns := naming.Namespace(s)
		info.Sources = append(info.Sources, ns)
		src := sc.ProfileConfig().Sources[s]
		if src == nil {
			continue
		}
		// As the source's state says, which the hub keeps without asking
		// the keychain: the surface asks for every HTTP request.
		switch st := states[s].State; {
		case src.Disabled || st == upstream.SourceDisabled:
			info.Unavailable = append(info.Unavailable, ns+" (disabled)")
		case st == upstream.SourceNeedsSignIn:
			info.Unavailable = append(info.Unavailable, ns+" (needs a sign-in)")
		case st == upstream.SourceNeedsSecret:
			info.Unavailable = append(info.Unavailable, ns+" (needs a secret)")
		case st == upstream.SourceDown:
			info.Unavailable = append(info.Unavailable, ns+" (down)")
		}
	}
	return info, nil
}

// scope returns the scope of profile name under the current config: nil
// for "" (the whole hub), *UnknownProfileError for a profile the config
// does not have. Every request starts here, reading config.json again if
// it changed: a source added in a terminal is there for the next one.
func (h *Hub) scope(name string) (*scope.Scope, error) {
	h.ReloadConfig(h.bg)
	if name == "" {
		return nil, nil
	}
	cfg := h.Config()
	sc, ok := h.scopes.Get(cfg, name)
	if !ok {
		return nil, &UnknownProfileError{Name: name, Known: cfg.ProfileNames()}
	}
	return sc, nil
}

// config is the hub's current config as the run's scope sees it.
func (r *runHost) config() *config.Config { return r.scope.Config(r.h.Config()) }

// PutProfile adds profile name to config.json (replacing one of that name
// only with replace), as 'capabilities profile add' does, after checking
// it the way the file is read; the hub applies it.
func (h *Hub) PutProfile(ctx context.Context, name string, p *config.Profile, replace bool) error {
	return h.editConfig(ctx, func(cfg *config.Config) error { return cfg.PutProfile(h.paths.Config(), name, p, replace) })
}

// RemoveProfile removes profile name from config.json: clients that
// select it are refused from then on.
func (h *Hub) RemoveProfile(ctx context.Context, name string) error {
	return h.editConfig(ctx, func(cfg *config.Config) error {
		if cfg.Profile(name) == nil {
			return &UnknownProfileError{Name: name, Known: cfg.ProfileNames()}
		}
		delete(cfg.Profiles, name)
		return nil
	})
}
