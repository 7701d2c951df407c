package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"capabilities.sh/capabilities/hub/naming"
)

// Profile is a named view of the hub for the clients that select it
// (config.json's "profiles"): only its sources exist for them, each on the
// connection it pins, under rules that can only be stricter than the
// person's.
//
//	"profiles": {"work": {"sources": ["github", "linear"],
//	  "connections": {"github": "work"}, "mode": "code",
//	  "readOnly": false, "policy": {"linear.*": "ask"}}}
type Profile struct {
	// Sources are the names of the sources the profile shows, as under
	// "sources".
	Sources []string `json:"sources"`
	// Connections pins a source's connection: the profile's calls use it,
	// and the source's other connections are out of reach. A source not
	// named here is used on its default connection.
	Connections map[string]string `json:"connections,omitempty"`
	// Mode is how clients see the tools: ProfileCode (the three tools, the
	// default) or ProfileDirect (each tool its own MCP tool).
	Mode string `json:"mode,omitempty"`
	// ReadOnly refuses every call to a tool that is not read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Policy are rules applied after the person's: an ask or a deny
	// tightens, an allow never loosens.
	Policy map[string]Mode `json:"policy,omitempty"`

	extra map[string]json.RawMessage
}

// The modes of a profile.
const (
	ProfileCode   = "code"
	ProfileDirect = "direct"
)

var profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

var profileKeys = []string{"sources", "connections", "mode", "readOnly", "policy"}

// IsProfileName reports whether name can name a profile: letters, digits,
// _, . and -, starting with a letter or digit, at most 64 (it appears in
// URL paths and client entries).
func IsProfileName(name string) bool { return profileNameRE.MatchString(name) }

// HasSource reports whether the profile shows source.
func (p *Profile) HasSource(source string) bool {
	for _, s := range p.Sources {
		if s == source {
			return true
		}
	}
	return false
}

// ModeOrDefault is the profile's mode, ProfileCode when it names none.
func (p *Profile) ModeOrDefault() string {
	if p.Mode == "" {
		return ProfileCode
	}
	return p.Mode
}

// MarshalJSON keeps unknown keys of a profile.
func (p *Profile) MarshalJSON() ([]byte, error) {
	type plain Profile
	return withExtra((*plain)(p), p.extra)
}

// parseProfiles reads config.json's "profiles". It runs after the sources
// are read, since a profile names them.
func parseProfiles(c *Config, raw json.RawMessage, add func(string, string, ...any)) map[string]*Profile {
	var profs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &profs); err != nil {
		add("profiles", "must be an object of profiles keyed by name")
		return nil
	}
	out := map[string]*Profile{}
	for _, name := range sortedKeys(profs) {
		at := "profiles." + name
		if !IsProfileName(name) {
			add(at, "profile name must start with a letter or digit and hold only letters, digits, _, . and - (at most 64)")
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(profs[name], &fields); err != nil || fields == nil {
			add(at, "must be an object with \"sources\" and optionally \"connections\", \"mode\", \"readOnly\" and \"policy\"")
			continue
		}
		p := &Profile{}
		if v, ok := fields["sources"]; ok {
			delete(fields, "sources")
			if err := json.Unmarshal(v, &p.Sources); err != nil {
				add(at+".sources", "must be a list of source names")
			}
		}
		if v, ok := fields["connections"]; ok {
			delete(fields, "connections")
			if err := json.Unmarshal(v, &p.Connections); err != nil {
				add(at+".connections", "must be an object mapping a source to one of its connections")
			}
		}
		if v, ok := fields["mode"]; ok {
			delete(fields, "mode")
			if err := json.Unmarshal(v, &p.Mode); err != nil {
				add(at+".mode", "must be \"code\" or \"direct\"")
			}
		}
		if v, ok := fields["readOnly"]; ok {
			delete(fields, "readOnly")
			if err := json.Unmarshal(v, &p.ReadOnly); err != nil {
				add(at+".readOnly", "must be true or false")
			}
		}
		if v, ok := fields["policy"]; ok {
			delete(fields, "policy")
			var pol map[string]string
			if err := json.Unmarshal(v, &pol); err != nil {
				add(at+".policy", "must be an object mapping an address, glob or namespace to \"allow\", \"ask\" or \"deny\"")
			}
			for _, k := range sortedKeys(pol) {
				m, err := ParseMode(pol[k])
				if err != nil {
					add(at+".policy."+k, "%v", err)
					continue
				}
				if p.Policy == nil {
					p.Policy = map[string]Mode{}
				}
				p.Policy[k] = m
			}
		}
		checkKeys(at, fields, profileKeys, add)
		if len(fields) > 0 {
			p.extra = fields
		}
		validateProfile(c, p, at, add)
		out[name] = p
	}
	return out
}

// validateProfile checks p against the config's sources: each source it
// names exists, each pinned connection is one of the source's, the mode is
// known, and each policy target is well formed and names one of its
// sources.
func validateProfile(c *Config, p *Profile, at string, add func(string, string, ...any)) {
	switch p.Mode {
	case "", ProfileCode, ProfileDirect:
	default:
		add(at+".mode", "unknown mode %q: use \"code\" (search, describe, execute) or \"direct\" (each tool its own MCP tool)", p.Mode)
	}
	if len(p.Sources) == 0 {
		add(at+".sources", "empty; name the sources the profile shows")
	}
	seen := map[string]bool{}
	for i, s := range p.Sources {
		where := fmt.Sprintf("%s.sources[%d]", at, i)
		switch {
		case seen[s]:
			add(where, "source %q is listed twice", s)
		case c.Sources[s] == nil:
			add(where, "no source named %q%s", s, knownList("sources", sortedKeys(c.Sources)))
		}
		seen[s] = true
	}
	for _, s := range sortedKeys(p.Connections) {
		conn := p.Connections[s]
		where := at + ".connections." + s
		src := c.Sources[s]
		switch {
		case !seen[s]:
			add(where, "source %q is not one of the profile's sources; add it to \"sources\" or remove the pin", s)
		case src == nil:
			// Reported under sources.
		case src.Connections[conn] == nil:
			add(where, "source %s has no connection %q%s", s, conn, knownList("connections", src.ConnectionNames()))
		}
	}
	for _, k := range sortedKeys(p.Policy) {
		where := at + ".policy." + k
		if !policyKeyRE.MatchString(k) {
			add(where, "not an address (github.createIssue), a glob (github.create*) or a namespace (github)")
			continue
		}
		ns, _, _ := strings.Cut(k, ".")
		if strings.ContainsAny(ns, "*?[") {
			continue // a glob over namespaces matches only the profile's anyway
		}
		named := false
		for _, s := range p.Sources {
			if s == ns || naming.Namespace(s) == ns {
				named = true
				break
			}
		}
		if !named {
			add(where, "names %s, which is not one of the profile's sources (%s)", ns, strings.Join(p.Sources, ", "))
		}
	}
}

func knownList(what string, names []string) string {
	if len(names) == 0 {
		return "; there are no " + what
	}
	return "; " + what + ": " + strings.Join(names, ", ")
}

// Profile returns the profile called name, or nil.
func (c *Config) Profile(name string) *Profile {
	if name == "" {
		return nil
	}
	return c.Profiles[name]
}

// ProfileNames returns the names of the profiles, sorted.
func (c *Config) ProfileNames() []string { return sortedKeys(c.Profiles) }

// PutProfile adds (or with replace, replaces) profile name after checking
// it against the config's sources.
func (c *Config) PutProfile(file, name string, p *Profile, replace bool) error {
	at := "profiles." + name
	if !IsProfileName(name) {
		return &Error{File: file, Key: at, Problem: "profile name must start with a letter or digit and hold only letters, digits, _, . and - (at most 64)"}
	}
	if _, exists := c.Profiles[name]; exists && !replace {
		return &Error{File: file, Key: at, Problem: "a profile with this name exists; remove it first or pass --replace"}
	}
	var errs Errors
	validateProfile(c, p, at, func(key, format string, args ...any) {
		errs = append(errs, &Error{File: file, Key: key, Problem: fmt.Sprintf(format, args...)})
	})
	if len(errs) > 0 {
		return errs
	}
	if c.Profiles == nil {
		c.Profiles = map[string]*Profile{}
	}
	c.Profiles[name] = p
	return nil
}

// ProfilesUsing returns the names of the profiles that show source, sorted.
func (c *Config) ProfilesUsing(source string) []string {
	var out []string
	for _, name := range sortedKeys(c.Profiles) {
		if c.Profiles[name].HasSource(source) {
			out = append(out, name)
		}
	}
	return out
}

// ForProfile returns the config as profile name sees it: only the
// profile's sources, each with only the connection it pins (marked
// default), or all of its connections when it pins none. The rest of the
// config is shared with c; neither may be modified. It returns nil when
// there is no such profile.
func (c *Config) ForProfile(name string) *Config {
	p := c.Profile(name)
	if p == nil {
		return nil
	}
	cp := *c
	cp.refused, cp.refusals = nil, nil
	cp.Sources = make(map[string]*Source, len(p.Sources))
	for _, s := range p.Sources {
		src := c.Sources[s]
		if src == nil {
			continue
		}
		if pin := p.Connections[s]; pin != "" && src.Connections[pin] != nil {
			one := *src
			conn := *src.Connections[pin]
			conn.Default = true
			one.Connections = map[string]*Connection{pin: &conn}
			src = &one
		}
		cp.Sources[s] = src
	}
	return &cp
}
