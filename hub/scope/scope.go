package scope

import (
	"slices"
	"strings"
	"sync"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/skills"
)

// Scope is what one request made in a profile sees. A nil *Scope is the
// whole hub, as a client without a profile sees it; every method works on
// it.
type Scope struct {
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

// Cache keeps one scope per profile of the current config. The zero value
// is ready.
type Cache struct {
	mu     sync.Mutex
	base   *config.Config
	byName map[string]*Scope
}

// Get returns the scope of profile name under cfg, the current config,
// made once per config; ok is false when cfg has no such profile.
func (c *Cache) Get(cfg *config.Config, name string) (sc *Scope, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.base != cfg {
		c.base, c.byName = cfg, map[string]*Scope{}
	}
	if sc := c.byName[name]; sc != nil {
		return sc, true
	}
	prof := cfg.Profile(name)
	if prof == nil {
		return nil, false
	}
	sc = &Scope{name: name, prof: prof, base: cfg, cfg: cfg.ForProfile(name),
		rules: policy.New(policy.ConfigRules(prof.Policy, nil))}
	c.byName[name] = sc
	return sc, true
}

// Name is the scope's profile's name, "" for the whole hub.
func (sc *Scope) Name() string {
	if sc == nil {
		return ""
	}
	return sc.name
}

// Config is cfg as the scope sees it. A scope made from another config
// (the profile changed or was removed since) sees no source at all.
func (sc *Scope) Config(cfg *config.Config) *config.Config {
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

// Has reports whether source exists for the scope.
func (sc *Scope) Has(source string) bool {
	return sc == nil || sc.prof.HasSource(source)
}

// Snapshot is snap with only the scope's tools, made once per catalog
// snapshot.
func (sc *Scope) Snapshot(snap *catalog.Snapshot) *catalog.Snapshot {
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

// SkillSet is set without the upstream skills of sources outside the
// scope; the person's own skills (from folders) stay.
func (sc *Scope) SkillSet(set *skills.Set) *skills.Set {
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

// Gate is policy.Gate, then the scope's tightening (policy.Tighten): a
// read-only profile denies every tool that is not read-only, and the
// profile's own rules apply after the person's.
func (sc *Scope) Gate(p *policy.Policy, in policy.GateInput) policy.Decision {
	d := policy.Gate(p, in)
	if sc == nil {
		return d
	}
	return policy.Tighten(d, sc.name, sc.prof.ReadOnly, sc.rules, in)
}

// Profile is the scope's profile in the config it was made from; nil for
// the whole hub.
func (sc *Scope) Profile() *config.Profile {
	if sc == nil {
		return nil
	}
	return sc.prof
}

// ProfileConfig is the config the scope was made from as the profile sees
// it (config.ForProfile); nil for the whole hub.
func (sc *Scope) ProfileConfig() *config.Config {
	if sc == nil {
		return nil
	}
	return sc.cfg
}

// Client is the client a run made in scope sc is recorded with: the
// client's name, and the profile it selected.
func Client(client string, sc *Scope) string {
	if sc == nil {
		// A client's own name never reads as a profile's mark.
		return strings.ReplaceAll(client, "[profile ", "(profile ")
	}
	return strings.TrimSpace(strings.ReplaceAll(client, "[profile ", "(profile ") + " " + profileMark(sc.name))
}

// HoldsRun reports whether a run recorded with client was made in the
// scope: in a profile, only the profile's own runs exist; the whole hub
// holds every run.
func (sc *Scope) HoldsRun(client string) bool {
	return sc == nil || strings.HasSuffix(client, " "+profileMark(sc.name)) || client == profileMark(sc.name)
}

func profileMark(name string) string { return "[profile " + name + "]" }

// MadeInProfile reports whether a run's or pending input's client was
// recorded by Client, in a profile.
func MadeInProfile(client string) bool {
	i := strings.LastIndex(client, "[profile ")
	return i >= 0 && strings.HasSuffix(client, "]") && config.IsProfileName(client[i+len("[profile "):len(client)-1])
}
