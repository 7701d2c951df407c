package skills

// Skills of upstream servers that offer the Skills extension.
//
// At each Refresh the registry pages through an upstream's skills/list
// (Remote.ListSkills, when its capabilities declare
// io.modelcontextprotocol/skills) and keeps the entries: search and
// describe show them as skill:<namespace>.<path>. Only entries with a
// complete file list are kept ("dynamic" ones cannot be checked); content
// is read when a skill is described, through resources/read
// (Remote.ReadResource), and used only when its size and digest (and, for
// SKILL.md, its frontmatter) are the entry's. Each skill is pinned like a
// tool, in the pins table under the name skill:<path>, with its SKILL.md's
// text: a later entry with other frontmatter or files is marked changed
// until the person accepts it. The entries a source listed last are kept
// in the store's skills table, so a registry knows them, and their
// changes, before it lists them again (the CLI's hub never does).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

var (
	digestRE       = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	skillSegmentRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.~-]*$`)
)

// upstreamSkill checks one entry of source's listing and makes it a Skill.
func upstreamSkill(source string, e upstream.ListedSkill) (*Skill, error) {
	scheme, rest, ok := strings.Cut(e.URI, "://")
	root, isSkillMD := strings.CutSuffix(rest, "/SKILL.md")
	if !ok || scheme == "" || !isSkillMD || root == "" {
		return nil, fmt.Errorf("uri %q is not the URI of a SKILL.md", e.URI)
	}
	segs := strings.Split(root, "/")
	for _, seg := range segs {
		if !skillSegmentRE.MatchString(seg) || seg == "." || seg == ".." {
			return nil, fmt.Errorf("uri %q: the skill path has a segment the hub does not address (%q)", e.URI, seg)
		}
	}
	var fm map[string]any
	if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || fm == nil {
		return nil, fmt.Errorf("%s: frontmatter is not an object", e.URI)
	}
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	if name == "" || strings.TrimSpace(desc) == "" {
		return nil, fmt.Errorf("%s: frontmatter lacks a string name or description", e.URI)
	}
	if name != segs[len(segs)-1] {
		return nil, fmt.Errorf("%s: the name %q is not the skill path's last segment", e.URI, name)
	}
	if string(e.Resources) == `"dynamic"` {
		return nil, fmt.Errorf("%s: its files are \"dynamic\", without digests to check them by", e.URI)
	}
	var res []upstream.SkillResource
	if err := json.Unmarshal(e.Resources, &res); err != nil || res == nil {
		return nil, fmt.Errorf("%s: resources is neither a list of files nor \"dynamic\"", e.URI)
	}
	if len(res) > skillMaxFiles {
		return nil, fmt.Errorf("%s: %d files, above %d", e.URI, len(res), skillMaxFiles)
	}
	prefix := scheme + "://" + root + "/"
	var files []SkillFile
	var total int64
	seen := map[string]bool{}
	for _, r := range res {
		rel, ok := strings.CutPrefix(r.URI, prefix)
		if !ok {
			return nil, fmt.Errorf("%s: file %q is not inside the skill", e.URI, r.URI)
		}
		if c, ok := CleanFile(rel); !ok || c != rel || strings.Contains(rel, "#") {
			return nil, fmt.Errorf("%s: file %q has a path the hub does not address", e.URI, r.URI)
		}
		if seen[rel] {
			return nil, fmt.Errorf("%s: file %q is listed twice", e.URI, r.URI)
		}
		seen[rel] = true
		if !digestRE.MatchString(r.Digest) || r.Size < 0 {
			return nil, fmt.Errorf("%s: file %q has no valid sha256 digest and size", e.URI, r.URI)
		}
		total += r.Size
		files = append(files, SkillFile{Path: rel, Size: r.Size, Digest: r.Digest})
	}
	if !seen["SKILL.md"] {
		return nil, fmt.Errorf("%s: its files do not list SKILL.md", e.URI)
	}
	if total > skillMaxBytes {
		return nil, fmt.Errorf("%s: its files pass %d bytes", e.URI, skillMaxBytes)
	}
	sort.Slice(files, func(i, j int) bool {
		if (files[i].Path == "SKILL.md") != (files[j].Path == "SKILL.md") {
			return files[i].Path == "SKILL.md"
		}
		return files[i].Path < files[j].Path
	})
	fmJSON, _ := json.Marshal(fm) // sorted keys: the hash does not move with their order
	ns := naming.Namespace(source)
	return &Skill{
		Source: source, Namespace: ns, Path: root, Address: "skill:" + ns + "." + root, Name: name, Description: desc,
		Frontmatter: e.Frontmatter, Files: files, URI: e.URI, Hash: skillHash(fmJSON, files),
	}, nil
}

// skillDefinition is what a pin keeps of an upstream skill, to say what
// changed and to show it.
type skillDefinition struct {
	Frontmatter json.RawMessage `json:"frontmatter"`
	Files       []SkillFile     `json:"files"`
	// Text is SKILL.md's body line by line, as the source served it when
	// the entry was pinned or shown (up to skillTextMax bytes), so that a
	// change shows what the skill now says, not only other digests; nil
	// when it could not be read.
	Text []string `json:"text,omitempty"`
}

// skillTextMax bounds the SKILL.md text a pin keeps and a change shows.
const skillTextMax = 64 << 10

// textLines is body as the lines a definition keeps: its first
// skillTextMax bytes, cut at the end of a line, and a last line saying how
// much was left out.
func textLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	kept, cut := body, 0
	if len(body) > skillTextMax {
		end := strings.LastIndexByte(body[:skillTextMax], '\n') + 1
		if end == 0 { // one long line: cut it between characters
			for end = skillTextMax; !utf8.RuneStart(body[end]); end-- {
			}
		}
		kept, cut = body[:end], len(body)-end
	}
	lines := strings.Split(strings.TrimSuffix(kept, "\n"), "\n")
	if cut > 0 {
		lines = append(lines, fmt.Sprintf("… %d more bytes of SKILL.md not kept", cut))
	}
	return lines
}

// skillChange says in one line how def differs from the pinned one.
func skillChange(pinned []byte, cur *Skill) string {
	var old skillDefinition
	if pinned == nil || json.Unmarshal(pinned, &old) != nil {
		return "its frontmatter or files changed"
	}
	var parts []string
	var a, b any
	json.Unmarshal(old.Frontmatter, &a)
	json.Unmarshal(cur.Frontmatter, &b)
	if !reflect.DeepEqual(a, b) {
		parts = append(parts, "its frontmatter changed")
	}
	was := map[string]string{}
	for _, f := range old.Files {
		was[f.Path] = f.Digest
	}
	var changed, added []string
	for _, f := range cur.Files {
		d, ok := was[f.Path]
		switch {
		case !ok:
			added = append(added, f.Path)
		case d != f.Digest:
			changed = append(changed, f.Path)
		}
		delete(was, f.Path)
	}
	if len(changed) > 0 {
		parts = append(parts, "changed "+strings.Join(changed, ", "))
	}
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, ", "))
	}
	if len(was) > 0 {
		parts = append(parts, "removed "+strings.Join(slices.Sorted(maps.Keys(was)), ", "))
	}
	if len(parts) == 0 {
		return "its frontmatter or files changed"
	}
	return strings.Join(parts, "; ")
}

// Refresh lists the skills of the named sources (every enabled one
// when none) and pins each skill seen for the first time. A source that
// fails, or whose tools could not be listed (failed), keeps the skills it
// had.
//
// Refresh is safe for concurrent use; the listings run without the
// registry's lock.
func (r *Registry) Refresh(ctx context.Context, failed map[string]error, sources ...string) {
	cfg := r.config()
	if r.remote == nil || cfg == nil {
		return
	}
	if len(sources) == 0 {
		for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
			if !cfg.Sources[name].Disabled {
				sources = append(sources, name)
			}
		}
	}
	listed := map[string][]*Skill{}
	for _, src := range sources {
		if s := cfg.Sources[src]; s == nil || s.Disabled {
			listed[src] = nil
			continue
		}
		if failed[src] != nil {
			continue
		}
		entries, err := r.remote.ListSkills(ctx, src)
		if err != nil {
			r.log.Warn("listing skills failed", "source", src, "err", err)
			continue
		}
		var skills []*Skill
		seen := map[string]bool{}
		for _, e := range entries {
			sk, err := upstreamSkill(src, e)
			if err == nil && seen[sk.Address] {
				err = fmt.Errorf("%s is listed twice", e.URI)
			}
			if err != nil {
				r.log.Warn("skipping an upstream skill", "source", src, "problem", r.secrets.Scrub(err.Error()))
				continue
			}
			seen[sk.Address] = true
			sk.Description = r.secrets.Scrub(sk.Description)
			skills = append(skills, sk)
		}
		if err := r.pinSkills(ctx, src, skills); err != nil {
			r.log.Warn("pinning skills failed", "source", src, "err", err)
			continue
		}
		listed[src] = skills
	}
	r.mu.Lock()
	before := marks(r.upstream)
	// What the store keeps changes only with the entries or when they were
	// first listed; a source without skills is forgotten each time.
	kept := map[string]bool{}
	for src, skills := range listed {
		kept[src] = len(skills) > 0 && sameEntries(r.upstream[src], skills)
	}
	for src, skills := range listed {
		if len(skills) == 0 {
			delete(r.upstream, src)
		} else {
			r.upstream[src] = skills
		}
	}
	for src := range r.upstream {
		if s := cfg.Sources[src]; s == nil || s.Disabled {
			delete(r.upstream, src)
			listed[src] = nil
		}
	}
	r.upVer++
	moved := !maps.Equal(before, marks(r.upstream))
	r.mu.Unlock()
	for src, skills := range listed {
		if !kept[src] {
			r.keep(ctx, src, skills)
		}
	}
	if moved {
		// The window and the tray list the changed skills: a skill that
		// came, went or changed since is news to them.
		r.changed()
	}
}

// sameEntries reports whether two listings of a source have the same
// entries, each first listed at the same time.
func sameEntries(a, b []*Skill) bool {
	if len(a) != len(b) {
		return false
	}
	was := make(map[string]*Skill, len(a))
	for _, sk := range a {
		was[sk.Path] = sk
	}
	for _, sk := range b {
		if w := was[sk.Path]; w == nil || w.Hash != sk.Hash || !w.Updated.Equal(sk.Updated) {
			return false
		}
	}
	return true
}

// marks are the upstream skills by address, each with its entry's hash and
// its pin.
func marks(upstream map[string][]*Skill) map[string][2]string {
	out := map[string][2]string{}
	for _, skills := range upstream {
		for _, sk := range skills {
			out[sk.Address] = [2]string{sk.Hash, sk.Pinned}
		}
	}
	return out
}

// pinSkills pins each skill seen for the first time, with the text its
// SKILL.md has now, and sets every skill's Pinned and Change from its pin.
func (r *Registry) pinSkills(ctx context.Context, source string, skills []*Skill) error {
	unpinned, err := r.unpinned(ctx, source, skills)
	if err != nil {
		return err
	}
	// Read without the store's lock: the source may be slow.
	defs := map[*Skill][]byte{}
	for _, sk := range unpinned {
		defs[sk] = r.readDefinition(ctx, sk, false)
	}
	tx, err := r.store.BeginCatalog(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now()
	for _, sk := range skills {
		def := defs[sk]
		if def == nil {
			def = sk.definition(nil)
		}
		if err := tx.PinFirst(ctx, source, "skill:"+sk.Path, sk.Hash, def, now); err != nil {
			return fmt.Errorf("pinning %s: %w", sk.Address, err)
		}
		if err := markPin(ctx, tx, sk, func() time.Time { return r.changeSeen(source, sk, now) }); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// markPin sets sk's Pinned from its pin and, when its entry is another,
// what changed (Change) and since when (Updated, from seen).
func markPin(ctx context.Context, tx *store.CatalogTx, sk *Skill, seen func() time.Time) error {
	pinned, pinnedDef, err := tx.Pin(ctx, sk.Source, "skill:"+sk.Path)
	if err != nil {
		return fmt.Errorf("reading the pin of %s: %w", sk.Address, err)
	}
	sk.Pinned = pinned
	if sk.Changed() {
		sk.Change = skillChange(pinnedDef, sk)
		sk.Updated = seen()
	}
	return nil
}

// keep stores the skills source listed, for a registry that has not
// listed them yet (load); none forgets them.
func (r *Registry) keep(ctx context.Context, source string, skills []*Skill) {
	kept := make([]store.ListedSkill, 0, len(skills))
	for _, sk := range skills {
		entry, err := json.Marshal(sk.entry())
		if err != nil {
			continue
		}
		seen := sk.Updated
		if seen.IsZero() {
			seen = r.now()
		}
		kept = append(kept, store.ListedSkill{Path: sk.Path, Entry: entry, Seen: seen})
	}
	if err := r.store.SetSkills(ctx, source, kept); err != nil {
		r.log.Warn("keeping the listed skills failed", "source", source, "err", err)
	}
}

// entry is the skills/list entry sk was made from, as upstreamSkill reads
// it.
func (sk *Skill) entry() upstream.ListedSkill {
	root := strings.TrimSuffix(sk.URI, "SKILL.md")
	res := make([]upstream.SkillResource, len(sk.Files))
	for i, f := range sk.Files {
		res[i] = upstream.SkillResource{URI: root + f.Path, Digest: f.Digest, Size: f.Size}
	}
	b, _ := json.Marshal(res)
	return upstream.ListedSkill{URI: sk.URI, Frontmatter: sk.Frontmatter, Resources: b}
}

// load takes the skills each configured, enabled source listed last, as
// the store keeps them, with their pins' marks: a registry knows them
// before its first Refresh lists them again (the CLI's hub lists none).
// A kept entry that no longer reads as a skill, or has no pin, is left
// out.
func (r *Registry) load(ctx context.Context) {
	cfg := r.config()
	if r.remote == nil || r.store == nil || cfg == nil {
		return
	}
	kept, err := r.store.Skills(ctx)
	if err != nil || len(kept) == 0 {
		if err != nil {
			r.log.Warn("reading the kept skills failed", "err", err)
		}
		return
	}
	tx, err := r.store.BeginCatalog(ctx)
	if err != nil {
		r.log.Warn("reading the kept skills failed", "err", err)
		return
	}
	defer tx.Rollback()
	bySource := map[string][]*Skill{}
	for _, k := range kept {
		if s := cfg.Sources[k.Source]; s == nil || s.Disabled {
			continue
		}
		var e upstream.ListedSkill
		if err := json.Unmarshal(k.Entry, &e); err != nil {
			continue
		}
		sk, err := upstreamSkill(k.Source, e)
		if err != nil || sk.Path != k.Path {
			continue
		}
		sk.Description = r.secrets.Scrub(sk.Description)
		if markPin(ctx, tx, sk, func() time.Time { return k.Seen }) != nil {
			continue
		}
		bySource[k.Source] = append(bySource[k.Source], sk)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for src, skills := range bySource {
		if _, listed := r.upstream[src]; !listed {
			r.upstream[src] = skills
		}
	}
	r.upVer++
}

// unpinned returns the skills of source that have no pin yet.
func (r *Registry) unpinned(ctx context.Context, source string, skills []*Skill) ([]*Skill, error) {
	tx, err := r.store.BeginCatalog(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var out []*Skill
	for _, sk := range skills {
		_, _, err := tx.Pin(ctx, source, "skill:"+sk.Path)
		switch {
		case errors.Is(err, store.ErrNoPin):
			out = append(out, sk)
		case err != nil:
			return nil, fmt.Errorf("reading the pin of %s: %w", sk.Address, err)
		}
	}
	return out, nil
}

// readDefinition is sk's definition with the text of its SKILL.md as the
// source serves it now, checked against the entry; without the text when
// it cannot be read (relist says whether content other than listed has
// the source listed again, as a read for the model does).
func (r *Registry) readDefinition(ctx context.Context, sk *Skill, relist bool) []byte {
	data, err := r.fetchSkillFile(ctx, sk, "SKILL.md", relist)
	if err != nil {
		r.log.Warn("reading an upstream skill's text", "skill", sk.Address, "err", r.secrets.Scrub(err.Error()))
		return sk.definition(nil)
	}
	doc, err := Parse(data)
	if err != nil {
		return sk.definition(nil)
	}
	// Kept and shown as the descriptions are: without the hub's secrets.
	return sk.definition(textLines(r.secrets.Scrub(doc.Body)))
}

// readUpstreamSkillFile reads one file of an upstream skill through
// resources/read and returns it only when its size and digest are the
// entry's, and, for SKILL.md, its frontmatter too; content other than
// listed has the source listed again.
func (r *Registry) readUpstreamSkillFile(ctx context.Context, sk *Skill, rel string) ([]byte, *Skill, error) {
	data, err := r.fetchSkillFile(ctx, sk, rel, true)
	return data, sk, err
}

// fetchSkillFile is readUpstreamSkillFile; relist says whether content
// other than listed has the source listed again.
func (r *Registry) fetchSkillFile(ctx context.Context, sk *Skill, rel string, relist bool) ([]byte, error) {
	f, ok := sk.File(rel)
	if !ok {
		return nil, fmt.Errorf("%s has no file %q", sk.Address, rel)
	}
	uri := strings.TrimSuffix(sk.URI, "SKILL.md") + rel
	data, err := r.remote.ReadResource(ctx, sk.Source, uri)
	if err != nil {
		return nil, fmt.Errorf("reading %s#%s: %w", sk.Address, rel, err)
	}
	stale := fmt.Errorf("reading %s#%s: the source serves other content than it listed for it (size or digest differ); it is read again at the next refresh", sk.Address, rel)
	if int64(len(data)) != f.Size || digestOf(data) != f.Digest {
		if relist && r.ctx.Err() == nil {
			r.goBackground(func() { r.Refresh(r.ctx, nil, sk.Source) })
		}
		return nil, stale
	}
	if rel == "SKILL.md" {
		doc, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("reading %s: SKILL.md: %v", sk.Address, err)
		}
		var a, b any
		json.Unmarshal(doc.Frontmatter, &a)
		json.Unmarshal(sk.Frontmatter, &b)
		if !reflect.DeepEqual(a, b) {
			return nil, errors.New(strings.Replace(stale.Error(), "size or digest differ", "its frontmatter differs", 1))
		}
	}
	return data, nil
}
