package hub

// Skills in search and describe.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/search"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/skills/skilltext"
	"capabilities.sh/capabilities/hub/tsgen"
)

// skillGroup is the key of the skills' group in search's answer; no
// namespace can take it.
const skillGroup = "skill:"

// skillDocs returns the index's documents of v's skills (Hidden: listed
// apart from the namespaces), and marks those a deny on their source hides.
func (v *view) skillDocs(cfg *config.Config) []search.Doc {
	all := v.skills.All()
	docs := make([]search.Doc, len(all))
	v.skillHidden = make([]bool, len(all))
	for i, sk := range all {
		docs[i] = search.Doc{Namespace: sk.Namespace, Name: sk.Name, Description: sk.Description, Headings: sk.Headings, Hidden: true}
		if sk.Source != "" {
			// Only a rule on the whole source (or a glob as wide) can name
			// a skill: no method is called \x00skill.
			s := cfg.Sources[sk.Source]
			in := policy.GateInput{Source: sk.Source, Namespace: sk.Namespace, Name: "\x00skill", JSName: "\x00skill", ReadOnly: true,
				SourceMissing: s == nil, SourceDisabled: s != nil && s.Disabled}
			v.skillHidden[i] = v.scope.Gate(v.policy, in).Mode == config.Deny
		}
	}
	return docs
}

// writeSkillHits writes search's group of skills, the index's documents
// docs (after v's tools).
func (v *view) writeSkillHits(b *strings.Builder, docs []int) {
	hits := make([]*skills.Skill, len(docs))
	for i, d := range docs {
		hits[i] = v.skills.All()[d-len(v.tools)]
	}
	skilltext.WriteHits(b, hits)
}

// describeWithSkills answers describe when some targets are skills: the
// skills first, then the declarations of the other targets in what is left
// of the budget. Everything it writes is a TypeScript comment, so the
// answer stays valid TypeScript.
func (h *Hub) describeWithSkills(ctx context.Context, sc *scope.Scope, skillTargets, others []string, budget int) (string, error) {
	if budget <= 0 {
		budget = tsgen.DefaultBudget
	}
	var nsTargets []string
	for _, t := range skillTargets {
		addr, _, _ := strings.Cut(t, "#")
		if ns, _, dotted := strings.Cut(strings.TrimPrefix(addr, "skill:"), "."); dotted {
			nsTargets = append(nsTargets, ns+".x")
		}
	}
	if srcs := sc.Config(h.Config()).SourcesOfTargets(nsTargets); len(srcs) > 0 {
		h.awaitSources(ctx, srcs, false)
	}
	skillBudget := budget
	if len(others) > 0 {
		skillBudget = budget / 2
	}
	v := h.view(sc)
	var parts []string
	per := skillBudget / len(skillTargets)
	for _, t := range skillTargets {
		text, err := h.describeSkill(ctx, v, t, per)
		if err != nil {
			return "", err
		}
		parts = append(parts, text)
	}
	text := strings.Join(parts, "\n\n")
	if len(others) > 0 {
		rest := budget - tsgen.BudgetTokens(text) - 2
		if rest < 100 {
			rest = 100
		}
		decl, err := h.Describe(ctx, DescribeRequest{Targets: others, Budget: rest, Profile: sc.Name()})
		if err != nil {
			return "", err
		}
		text += "\n\n" + decl
	}
	return text, nil
}

// describeSkill renders one skill target: skill:<address> gives the
// header, the files and SKILL.md's body; skill:<address>#<file> one file.
func (h *Hub) describeSkill(ctx context.Context, v *view, target string, budget int) (string, error) {
	addr, file, hasFile := strings.Cut(target, "#")
	sk, ok := v.skills.Lookup(addr)
	if ok && sk.Source != "" {
		for i, s := range v.skills.All() {
			if s == sk && v.skillHidden[i] {
				ok = false
			}
		}
	}
	if !ok {
		var names []string
		for i, s := range v.skills.All() {
			if !v.skillHidden[i] {
				names = append(names, s.Address)
			}
		}
		msg := fmt.Sprintf("unknown skill %q", addr)
		if c := policy.ClosestNames(addr, names, 3); len(c) > 0 {
			msg += "; closest: " + strings.Join(c, ", ")
		} else if len(names) > 0 && len(names) <= 10 {
			msg += "; skills: " + strings.Join(names, ", ")
		} else {
			msg += "; search for the skill first"
		}
		return "", &InputError{"targets", msg}
	}
	if hasFile {
		rel, ok := skills.CleanFile(file)
		if !ok {
			return "", &InputError{"targets", fmt.Sprintf("%q: the file after # must be a path inside the skill, such as references/GUIDE.md", target)}
		}
		if _, ok := sk.File(rel); !ok {
			return "", &InputError{"targets", fmt.Sprintf("%s has no file %q; its files: %s", sk.Address, rel, strings.Join(sk.FileNames(), ", "))}
		}
		data, sk, err := h.skillContent(ctx, sk, rel)
		if err != nil {
			return "", err
		}
		return skilltext.File(sk, rel, data, budget), nil
	}
	data, sk, err := h.skillContent(ctx, sk, "SKILL.md")
	if err != nil {
		return "", err
	}
	doc, err := skills.Parse(data)
	if err != nil {
		return "", fmt.Errorf("reading %s: SKILL.md: %v", sk.Address, err)
	}
	direct := v.scope.Profile() != nil && v.scope.Profile().Mode == config.ProfileDirect
	return skilltext.Skill(sk, doc.Body, budget, direct), nil
}

// ServedSkills are the skills the hub serves its own clients through the
// Skills extension: the local ones, in address order.
func (h *Hub) ServedSkills() []*skills.Skill { return h.skills.Served() }

// ReadSkillFile returns the bytes of file rel of local skill sk, checked
// against the digest and size the skill was listed with: a file edited
// since is read again with its skill.
func (h *Hub) ReadSkillFile(sk *skills.Skill, rel string) ([]byte, error) {
	data, _, err := h.skills.ReadFile(context.Background(), sk, rel)
	return data, err
}

// skillContent returns the bytes of one file of a skill, checked against
// its listed digest and size.
func (h *Hub) skillContent(ctx context.Context, sk *skills.Skill, rel string) ([]byte, *skills.Skill, error) {
	data, sk, err := h.skills.ReadFile(ctx, sk, rel)
	if err != nil || sk.Source == "" {
		return data, sk, err
	}
	// What an upstream serves is shown with the connection secrets hidden.
	return []byte(h.secrets.Scrub(string(data))), sk, nil
}

// SetSkillFolder adds a folder of skills to config.json's skills.paths (an
// absolute path or one starting with ~/), or with add false removes the
// one at dir; the skills in it show at the next search. The home's own
// skills folder is always read and is not listed there.
func (h *Hub) SetSkillFolder(ctx context.Context, dir string, add bool) error {
	return h.editConfig(ctx, func(cfg *config.Config) error {
		if add {
			return cfg.AddSkillFolder(h.paths.Config(), dir)
		}
		return cfg.RemoveSkillFolder(h.paths.Config(), dir)
	})
}

// SkillsHome is the home's own folder of skills.
func (h *Hub) SkillsHome() string { return filepath.Join(h.paths.Home, "skills") }
