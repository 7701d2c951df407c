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
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/skills"
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
	info := &ProfileInfo{Name: name, Mode: sc.prof.ModeOrDefault(), ReadOnly: sc.prof.ReadOnly}
	states := h.up.State()
	for _, s := range sc.prof.Sources {
		ns := naming.Namespace(s)
		info.Sources = append(info.Sources, ns)
		src := sc.cfg.Sources[s]
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

// scope is what one request made in a profile sees. A nil *scope is the
// whole hub, as a client without a profile sees it; every method works on
// it.
type scope struct {
	name string
	prof *config.Profile
	base *config.Config // the person's config the scope was made from
	cfg  *config.Config // base as the profile sees it (config.ForProfile)
	// rules are the profile's own policy.
	rules *policy.Policy

	mu       sync.Mutex
	snapOf   *catalog.Snapshot // the catalog snap was filtered from
	snap     *catalog.Snapshot
	skillsOf *skills.Set
	skills   *skills.Set
}

// scopes caches one scope per profile of the current config.
type scopes struct {
	mu     sync.Mutex
	base   *config.Config
	byName map[string]*scope
}

// scope returns the scope of profile name under the current config: nil
// for "" (the whole hub), *UnknownProfileError for a profile the config
// does not have.
func (h *Hub) scope(name string) (*scope, error) {
	if name == "" {
		return nil, nil
	}
	cfg := h.Config()
	c := &h.scopes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base != cfg {
		c.base, c.byName = cfg, map[string]*scope{}
	}
	if sc := c.byName[name]; sc != nil {
		return sc, nil
	}
	prof := cfg.Profile(name)
	if prof == nil {
		return nil, &UnknownProfileError{Name: name, Known: cfg.ProfileNames()}
	}
	sc := &scope{name: name, prof: prof, base: cfg, cfg: cfg.ForProfile(name),
		rules: policy.New(policy.ConfigRules(prof.Policy, nil))}
	c.byName[name] = sc
	return sc, nil
}

// profile is the scope's name, "" for the whole hub.
func (sc *scope) profile() string {
	if sc == nil {
		return ""
	}
	return sc.name
}

// config is cfg as the scope sees it. A scope made from another config
// (the profile changed or was removed since) sees no source at all.
func (sc *scope) config(cfg *config.Config) *config.Config {
	if sc == nil {
		return cfg
	}
	if cfg == sc.base {
		return sc.cfg
	}
	if v := cfg.ForProfile(sc.name); v != nil && slices.Equal(v.Profile(sc.name).Sources, sc.prof.Sources) {
		return v
	}
	empty := *cfg
	empty.Sources = map[string]*config.Source{}
	return &empty
}

// has reports whether source exists for the scope.
func (sc *scope) has(source string) bool {
	return sc == nil || sc.prof.HasSource(source)
}

// snapshot is snap with only the scope's tools, made once per catalog
// snapshot.
func (sc *scope) snapshot(snap *catalog.Snapshot) *catalog.Snapshot {
	if sc == nil {
		return snap
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.snapOf != snap {
		var tools []*catalog.Tool
		for _, t := range snap.Tools {
			if sc.prof.HasSource(t.Source) {
				tools = append(tools, t)
			}
		}
		sc.snapOf, sc.snap = snap, catalog.NewSnapshot(tools, snap.Version)
	}
	return sc.snap
}

// skillSet is set without the upstream skills of sources outside the
// scope; the person's own skills (from folders) stay.
func (sc *scope) skillSet(set *skills.Set) *skills.Set {
	if sc == nil || set == nil {
		return set
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.skillsOf != set {
		var kept []*skills.Skill
		for _, sk := range set.All() {
			if sk.Source == "" || sc.prof.HasSource(sk.Source) {
				kept = append(kept, sk)
			}
		}
		sc.skillsOf, sc.skills = set, skills.NewSet(kept)
	}
	return sc.skills
}

// gate is policy.Gate, then the scope's tightening (policy.Tighten): a
// read-only profile denies every tool that is not read-only, and the
// profile's own rules apply after the person's.
func (sc *scope) gate(p *policy.Policy, in policy.GateInput) policy.Decision {
	d := policy.Gate(p, in)
	if sc == nil {
		return d
	}
	return policy.Tighten(d, sc.name, sc.prof.ReadOnly, sc.rules, in)
}

// config is the hub's current config as the run's scope sees it.
func (r *runHost) config() *config.Config { return r.scope.config(r.h.Config()) }

// profileClient is the client a run made in scope sc is recorded with: the
// client's name, and the profile it selected.
func profileClient(client string, sc *scope) string {
	if sc == nil {
		// A client's own name never reads as a profile's mark.
		return strings.ReplaceAll(client, "[profile ", "(profile ")
	}
	return strings.TrimSpace(strings.ReplaceAll(client, "[profile ", "(profile ") + " " + profileMark(sc.name))
}

// holdsRun reports whether a run recorded with client was made in the
// scope: in a profile, only the profile's own runs exist; the whole hub
// holds every run.
func (sc *scope) holdsRun(client string) bool {
	return sc == nil || strings.HasSuffix(client, " "+profileMark(sc.name)) || client == profileMark(sc.name)
}

func profileMark(name string) string { return "[profile " + name + "]" }

// madeInProfile reports whether a run's or pending input's client was
// recorded by profileClient, in a profile.
func madeInProfile(client string) bool {
	i := strings.LastIndex(client, "[profile ")
	return i >= 0 && strings.HasSuffix(client, "]") && config.IsProfileName(client[i+len("[profile "):len(client)-1])
}
