package hub

// Managing sources from a running hub: the window adds, removes, restarts,
// enables and disables them as 'capabilities source ...' does, through
// config.json, which the hub applies at once.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/policy"
)

// diskConfig reads config.json as it is now, for an edit: the file, not
// the hub's last good copy, so an edit never drops what the person wrote
// since.
func (h *Hub) diskConfig() (*config.Config, error) {
	return config.Load(h.paths.Config())
}

// editConfig changes config.json as it is on disk with edit, then checks,
// saves and applies it; nothing is saved when edit fails or returns
// errUnchanged. When the file changed between the read and the write (a
// command or another of the hub's edits wrote it), the edit is made again
// on what it holds now, a few times at most.
func (h *Hub) editConfig(ctx context.Context, edit func(cfg *config.Config) error) error {
	for tries := 1; ; tries++ {
		cfg, err := h.diskConfig()
		if err != nil {
			return err
		}
		if err := edit(cfg); err != nil {
			if errors.Is(err, errUnchanged) {
				return nil
			}
			return err
		}
		err = h.SaveConfig(ctx, cfg)
		if !errors.Is(err, config.ErrChanged) || tries == 3 {
			return err
		}
	}
}

// errUnchanged is an edit of editConfig that changed nothing.
var errUnchanged = errors.New("unchanged")

// EditSource changes source in config.json as it is on disk with edit,
// and saves and applies the config when edit reports a change: the
// window's and the local API's edits of one source
// (config.Source.SetEnabled, AddOrigin).
func (h *Hub) EditSource(ctx context.Context, source string, edit func(s *config.Source) bool) error {
	return h.editConfig(ctx, func(cfg *config.Config) error {
		s := cfg.Sources[source]
		switch {
		case s == nil:
			return fmt.Errorf("no source named %q in %s", source, h.paths.Config())
		case !edit(s):
			return errUnchanged
		}
		return nil
	})
}

// AddSource adds source s under name to config.json, where no source has
// that name, and applies it. What looks like a secret in it
// moves to the keychain as an import's does (config.MoveSecrets); one in
// a document's URL is refused. An OpenAPI source's document is read and
// checked first, and a stdio source's program must be found as the hub
// would start it.
func (h *Hub) AddSource(ctx context.Context, name string, s *config.Source) error {
	found, _ := s.MoveSecrets(name)
	if problem := s.SecretProblem(name); problem != "" {
		return errors.New(problem)
	}
	if s.OpenAPI != "" {
		if _, _, _, err := h.openapi.Check(ctx, s.OpenAPI); err != nil {
			return err
		}
	}
	cfg, err := h.diskConfig()
	if err != nil {
		return err
	}
	if err := cfg.AddSource(h.paths.Config(), name, s, false); err != nil {
		return err
	}
	if err := s.FindCommand(); err != nil {
		return err
	}
	if err := config.StoreSecrets(h.kc, found); err != nil {
		return err
	}
	return h.SaveConfig(ctx, cfg)
}

// RemoveSource removes a source from config.json with its connections'
// secrets and sign-ins, as 'capabilities source remove' does. A source a
// profile uses stays, with the profiles named.
func (h *Hub) RemoveSource(ctx context.Context, name string) error {
	var errs []error
	err := h.editConfig(ctx, func(cfg *config.Config) error {
		s, ok := cfg.Sources[name]
		switch {
		case !ok && cfg.DropRefused(name):
			return nil
		case !ok:
			return fmt.Errorf("no source named %q", name)
		case len(cfg.ProfilesUsing(name)) > 0:
			return fmt.Errorf("source %s is used by profile %s: remove or change those profiles first", name, strings.Join(cfg.ProfilesUsing(name), ", "))
		}
		errs = s.DeleteSecrets(h.kc, name)
		if err := oauth.DeleteSignIns(h.kc, name, s.ConnectionNames()); err != nil {
			errs = append(errs, err)
		}
		delete(cfg.Sources, name)
		return nil
	})
	if err == nil && len(errs) > 0 {
		return fmt.Errorf("removed source %s, but not all of its secrets: %w", name, errors.Join(errs...))
	}
	return err
}

// RemoveConnection removes connection conn of source name with its
// secrets and sign-in, as 'capabilities connection remove' does; when it
// was the default, the first of the others becomes it. A connection a
// profile pins stays, with the profiles named.
func (h *Hub) RemoveConnection(ctx context.Context, name, conn string) error {
	var lost []error
	err := h.editConfig(ctx, func(cfg *config.Config) (err error) {
		if lost, err = cfg.RemoveConnection(h.kc, name, conn); err != nil {
			return err
		}
		if err := oauth.DeleteSignIns(h.kc, name, []string{conn}); err != nil {
			lost = append(lost, err)
		}
		return nil
	})
	if err == nil && len(lost) > 0 {
		return fmt.Errorf("removed connection %s of %s, but not all of its secrets: %w", conn, name, errors.Join(lost...))
	}
	return err
}

// SetDefaultConnection makes conn the connection calls to source name use
// when they name none.
func (h *Hub) SetDefaultConnection(ctx context.Context, name, conn string) error {
	return h.editConfig(ctx, func(cfg *config.Config) error { return cfg.SetDefaultConnection(name, conn) })
}

// RestartSource ends the source's sessions, forgets its failures and
// lists its tools again, starting it anew. It returns the listing's error.
func (h *Hub) RestartSource(ctx context.Context, name string) error {
	s, ok := h.Config().Sources[name]
	if !ok {
		return fmt.Errorf("no source named %q", name)
	}
	if s.Disabled {
		return fmt.Errorf("source %s is disabled; enable it first", name)
	}
	h.up.Restart(name)
	h.events.Publish(Event{Kind: EventSource, ID: name})
	return h.refresh(ctx, name)[name]
}

// SourceTools lists the tools a source offers now, by address, with what
// policy does with each (policy.SourceTools).
func (h *Hub) SourceTools(source string) []policy.SourceTool {
	return policy.SourceTools(h.currentPolicy(), h.catalog.Snapshot(), h.Config(), source)
}
