package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/store"
)

// An upstream skill's entry that changed since the person accepted it is
// a change like a tool's: listed by Changes, shown as accepted and as now
// by ChangedDefinition, and accepted whole (Accept) or as it was shown
// (AcceptShown).

// Changes returns the upstream skills whose entry (frontmatter, files)
// changed since it was pinned, oldest change first.
func (r *Registry) Changes() []catalog.ToolChange {
	var out []catalog.ToolChange
	for _, sk := range r.Current().All() {
		if sk.Source != "" && sk.Changed() {
			out = append(out, sk.toolChange())
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

func (sk *Skill) toolChange() catalog.ToolChange {
	return catalog.ToolChange{Source: sk.Source, Name: "skill:" + sk.Path, Address: sk.Address,
		OldHash: sk.Pinned, NewHash: sk.Hash, Change: sk.Change, At: sk.Updated}
}

// definition is what an upstream skill's pin keeps: its frontmatter, its
// files' paths, sizes and digests, and its SKILL.md's text when read.
func (sk *Skill) definition(text []string) []byte {
	def, _ := json.Marshal(skillDefinition{Frontmatter: sk.Frontmatter, Files: sk.Files, Text: text})
	return def
}

// ChangedDefinition returns the changed upstream skill at address as
// accepted (nil when the pin did not keep it) and as listed now, with the
// text its SKILL.md has now (read from the source and checked against the
// entry), and the hash of the latter, which AcceptShown takes.
func (r *Registry) ChangedDefinition(ctx context.Context, address string) (was, is json.RawMessage, hash string, err error) {
	sk, err := r.changedSkill(address)
	if err != nil {
		return nil, nil, "", err
	}
	tx, err := r.store.BeginCatalog(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	defer tx.Rollback()
	_, pinned, err := tx.Pin(ctx, sk.Source, "skill:"+sk.Path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("reading the accepted entry of %s: %w", address, err)
	}
	if json.Valid(pinned) {
		was = pinned
	}
	return was, r.readDefinition(ctx, sk, true), sk.Hash, nil
}

// ChangedHash is the hash ChangedDefinition gives for address, without
// reading the skill's text from its source.
func (r *Registry) ChangedHash(address string) (string, error) {
	sk, err := r.changedSkill(address)
	if err != nil {
		return "", err
	}
	return sk.Hash, nil
}

func (r *Registry) changedSkill(address string) (*Skill, error) {
	for _, sk := range r.Current().All() {
		if sk.Source != "" && sk.Address == address && sk.Changed() {
			return sk, nil
		}
	}
	return nil, fmt.Errorf("%s is no upstream skill with a changed entry", address)
}

// changeSeen is when the hub first listed source's skill sk with its
// current hash: the time of an earlier listing of the same entry, or now.
func (r *Registry) changeSeen(source string, sk *Skill, now time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, old := range r.upstream[source] {
		if old.Address == sk.Address && old.Hash == sk.Hash && !old.Updated.IsZero() {
			return old.Updated
		}
	}
	return now
}

// Accept pins the current entries of the changed upstream skills target
// names (an address, or skill:<namespace>.* for all of a source's), each
// audited as accepted through channel, and calls Options.Changed when any
// was.
func (r *Registry) Accept(ctx context.Context, target, channel string) ([]catalog.ToolChange, error) {
	var matched []*Skill
	for _, sk := range r.Current().All() {
		if sk.Source == "" {
			continue
		}
		if sk.Address == target || strings.HasSuffix(target, ".*") && strings.HasPrefix(sk.Address, strings.TrimSuffix(target, "*")) {
			matched = append(matched, sk)
		}
	}
	if len(matched) == 0 {
		return nil, fmt.Errorf("accepting %q: no such upstream skill (local skills need no accepting)", target)
	}
	return r.pin(ctx, matched, channel)
}

// AcceptShown pins each upstream skill shown to the entry the person saw
// (catalog.Shown's Hash), and only to it: a skill listed with another
// entry since, or gone, keeps its pin, so the model keeps being told it
// changed, and is returned in stale for the person to look at again.
func (r *Registry) AcceptShown(ctx context.Context, shown []catalog.Shown, channel string) (accepted []catalog.ToolChange, stale []string, err error) {
	all := r.Current().All()
	var matched []*Skill
	for _, s := range shown {
		i := slices.IndexFunc(all, func(sk *Skill) bool { return sk.Source != "" && sk.Address == s.Address })
		switch {
		case i >= 0 && all[i].Hash == s.Hash:
			matched = append(matched, all[i])
		case i < 0 || all[i].Pinned != s.Hash:
			stale = append(stale, s.Address)
		}
	}
	accepted, err = r.pin(ctx, matched, channel)
	return accepted, stale, err
}

// pin pins each changed skill of skills to its entry, audited as accepted
// through channel.
func (r *Registry) pin(ctx context.Context, skills []*Skill, channel string) ([]catalog.ToolChange, error) {
	var accepted []catalog.ToolChange
	for _, sk := range skills {
		if !sk.Changed() {
			continue
		}
		// The text kept is read now; checked against the entry, it is the
		// text shown for the hash accepted.
		if err := r.store.SetPin(ctx, sk.Source, "skill:"+sk.Path, sk.Hash, r.readDefinition(ctx, sk, true), time.Now()); err != nil {
			return accepted, fmt.Errorf("accepting %s: %w", sk.Address, err)
		}
		accepted = append(accepted, sk.toolChange())
		if err := r.store.Audit(ctx, store.AuditEntry{At: r.now(), Channel: channel, Address: sk.Address, Decision: "accept_definition", Detail: sk.Change}); err != nil {
			return accepted, err
		}
	}
	if len(accepted) > 0 {
		// The marks go with new copies of the skills; the set is rebuilt.
		// An entry listed anew meanwhile keeps its own mark: its pin is
		// the entry accepted, not the one listed now.
		r.mu.Lock()
		for _, c := range accepted {
			for i, sk := range r.upstream[c.Source] {
				if sk.Address == c.Address && sk.Hash == c.NewHash {
					cp := *sk
					cp.Pinned, cp.Change, cp.Updated = cp.Hash, "", time.Time{}
					r.upstream[c.Source][i] = &cp
				}
			}
		}
		r.upVer++
		r.mu.Unlock()
		r.changed()
	}
	return accepted, nil
}
