package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// remoteFiles is a Remote over files by URI: each SKILL.md among them is
// one skill, listed with every file under its folder. tamper, when set, is
// served for every read instead of the file.
type remoteFiles struct {
	mu     sync.Mutex
	files  map[string]string
	tamper string
	lists  int
}

func (f *remoteFiles) ListSkills(_ context.Context, source string) ([]upstream.ListedSkill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	var out []upstream.ListedSkill
	for uri, text := range f.files {
		root, ok := strings.CutSuffix(uri, "SKILL.md")
		if !ok {
			continue
		}
		doc, err := Parse([]byte(text))
		if err != nil {
			return nil, err
		}
		var res []upstream.SkillResource
		for u, t := range f.files {
			if strings.HasPrefix(u, root) {
				res = append(res, upstream.SkillResource{URI: u, Digest: digestOf([]byte(t)), Size: int64(len(t))})
			}
		}
		b, _ := json.Marshal(res)
		out = append(out, upstream.ListedSkill{URI: uri, Frontmatter: doc.Frontmatter, Resources: b})
	}
	return out, nil
}

func (f *remoteFiles) ReadResource(_ context.Context, source, uri string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tamper != "" {
		return []byte(f.tamper), nil
	}
	return []byte(f.files[uri]), nil
}

func (f *remoteFiles) set(uri, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[uri] = text
}

func (f *remoteFiles) listed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists
}

// TestRegistryPinsAndAccepts drives the registry's upstream half through
// its API: a Refresh pins each skill first seen, a later entry with other
// files is marked changed with what changed (Changed called when a refresh
// lists other skills or marks), Accept pins it again (audited, and Changed
// called), the pin holds for a new registry over the same
// store, and a file served other than listed is refused and listed again.
func TestRegistryPinsAndAccepts(t *testing.T) {
	ctx := context.Background()
	const md = "skill://acme/refunds/SKILL.md"
	remote := &remoteFiles{files: map[string]string{
		md:                                "---\nname: refunds\ndescription: Process refund requests.\n---\n# Refunds\nRefund the amount paid.\n",
		"skill://acme/refunds/example.md": "Dear customer.\n",
	}}
	db := hubtest.OpenStore(t)
	home := t.TempDir()
	cfg := `{"sources": {"my-docs": {"url": "http://127.0.0.1:9/mcp"}}}`
	r := newRegistryAt(t, home, db, cfg, remote)
	changed := 0
	r.changed = func() { changed++ }

	const addr = "skill:myDocs.acme/refunds"
	r.Refresh(ctx, nil)
	sk, ok := r.Current().Lookup(addr)
	if !ok || sk.Source != "my-docs" || sk.Changed() || sk.Pinned != sk.Hash || changed != 1 {
		t.Fatalf("after the first refresh: %v, %+v, Changed called %d times", ok, sk, changed)
	}
	if r.Refresh(ctx, nil); changed != 1 {
		t.Fatalf("a refresh that listed the same skills called Changed (%d times)", changed)
	}
	if len(r.Served()) != 0 {
		t.Fatalf("an upstream skill is served: %+v", r.Served())
	}
	data, _, err := r.ReadFile(ctx, sk, "example.md")
	if err != nil || string(data) != "Dear customer.\n" {
		t.Fatalf("read: %q, %v", data, err)
	}

	// A source whose tools could not be listed keeps its skills.
	remote.set("skill://acme/refunds/example.md", "Dear valued customer.\n")
	remote.set("skill://acme/refunds/extra.md", "More.\n")
	r.Refresh(ctx, map[string]error{"my-docs": context.DeadlineExceeded})
	if sk, _ := r.Current().Lookup(addr); sk.Changed() {
		t.Fatalf("a failed source's skills changed: %s", sk.Change)
	}
	r.Refresh(ctx, nil)
	sk, _ = r.Current().Lookup(addr)
	if !sk.Changed() || sk.Change != "changed example.md; added extra.md" || changed != 2 {
		t.Fatalf("after a change: changed %v, %q, Changed called %d times", sk.Changed(), sk.Change, changed)
	}
	if _, err := r.Accept(ctx, "skill:git-workflow", "cli"); err == nil || !strings.Contains(err.Error(), "local skills need no accepting") {
		t.Fatalf("accepting a skill that is not an upstream's: %v", err)
	}
	accepted, err := r.Accept(ctx, "skill:myDocs.*", "cli")
	if err != nil || len(accepted) != 1 || accepted[0].Address != addr || accepted[0].Change != "changed example.md; added extra.md" || changed != 3 {
		t.Fatalf("accept: %v, %+v, Changed called %d times", err, accepted, changed)
	}
	if sk, _ := r.Current().Lookup(addr); sk.Changed() {
		t.Fatalf("still changed after accepting: %s", sk.Change)
	}
	hist, err := db.History(ctx, 10)
	if err != nil || len(hist) != 1 || hist[0].Address != addr || hist[0].Decision != "accept_definition" || hist[0].Channel != "cli" {
		t.Fatalf("audit: %v, %+v", err, hist)
	}

	// The pin holds for a new registry over the same store.
	again := newRegistryAt(t, home, db, cfg, remote)
	again.Refresh(ctx, nil)
	if sk, ok := again.Current().Lookup(addr); !ok || sk.Changed() {
		t.Fatalf("a new registry: %v, %+v", ok, sk)
	}

	// Content other than listed is refused, and the source is listed again.
	remote.mu.Lock()
	remote.tamper = "Refund everything.\n"
	remote.mu.Unlock()
	before := remote.listed()
	sk, _ = r.Current().Lookup(addr)
	if _, _, err := r.ReadFile(ctx, sk, "example.md"); err == nil || !strings.Contains(err.Error(), "serves other content than it listed") {
		t.Fatalf("tampered content: %v", err)
	}
	testwait.For(t, 0, "the source to be listed again", func() bool { return remote.listed() > before })

	// A source removed from the config takes its skills along.
	again.config = func() *config.Config { return &config.Config{} }
	again.Refresh(ctx, nil, "my-docs")
	if all := again.Current().All(); slices.ContainsFunc(all, func(s *Skill) bool { return s.Source != "" }) {
		t.Fatalf("a removed source's skills remain")
	}
}

// TestChangedSkillShowsItsText: a skill's pin keeps its SKILL.md's text,
// so a change shows what the skill said and says now, line by line; what
// is accepted keeps the text shown; a source serving other text than it
// listed shows none rather than that text.
func TestChangedSkillShowsItsText(t *testing.T) {
	ctx := context.Background()
	const md, addr = "skill://acme/refunds/SKILL.md", "skill:myDocs.acme/refunds"
	const head = "---\nname: refunds\ndescription: Process refund requests.\n---\n"
	remote := &remoteFiles{files: map[string]string{md: head + "# Refunds\nRefund the amount paid.\nAsk for the order number.\n"}}
	r := newRegistryAt(t, t.TempDir(), hubtest.OpenStore(t), `{"sources": {"my-docs": {"url": "http://127.0.0.1:9/mcp"}}}`, remote)
	r.Refresh(ctx, nil)

	remote.set(md, head+"# Refunds\nRefund twice the amount paid.\nAsk for the order number.\n")
	r.Refresh(ctx, nil)
	was, is, hash, err := r.ChangedDefinition(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	var diff []string
	for _, l := range catalog.DiffLines(catalog.DefinitionLines(was), catalog.DefinitionLines(is), 0) {
		if l.Kind == catalog.DiffRemoved || l.Kind == catalog.DiffAdded {
			diff = append(diff, strings.Join(strings.Fields(l.Text), " "))
		}
	}
	// SKILL.md's size and digest, then its text.
	if want := []string{`- "Refund the amount paid.",`, `+ "Refund twice the amount paid.",`}; len(diff) != 6 || !slices.Equal(diff[4:], want) {
		t.Fatalf("the diff's changed lines are %q, want the size's, the digest's and %q", diff, want)
	}

	// What is accepted keeps the text shown: the next change is shown
	// against it.
	if _, _, err := r.AcceptShown(ctx, []catalog.Shown{{Address: addr, Hash: hash}}, "cli"); err != nil {
		t.Fatal(err)
	}
	remote.set(md, head+"# Refunds\nRefund nothing.\nAsk for the order number.\n")
	r.Refresh(ctx, nil)
	was, _, _, err = r.ChangedDefinition(ctx, addr)
	if err != nil || !strings.Contains(string(was), `"Refund twice the amount paid."`) {
		t.Fatalf("accepted as shown, the pin keeps %s (%v)", was, err)
	}

	// The hub's secrets are not kept or shown.
	r.secrets = secrets.New()
	r.secrets.Set("billing", "sk_live_4242424242")
	remote.set(md, head+"# Refunds\nUse the key sk_live_4242424242.\n")
	r.Refresh(ctx, nil)
	if _, is, _, err = r.ChangedDefinition(ctx, addr); err != nil || strings.Contains(string(is), "4242") || !strings.Contains(string(is), "Use the key ") {
		t.Fatalf("a secret in the text: %s (%v)", is, err)
	}

	// Text other than listed is not shown as the skill's.
	remote.mu.Lock()
	remote.tamper = head + "Refund everything.\n"
	remote.mu.Unlock()
	_, is, _, err = r.ChangedDefinition(ctx, addr)
	if err != nil || strings.Contains(string(is), "everything") || strings.Contains(string(is), `"text"`) {
		t.Fatalf("with other text served: %s (%v)", is, err)
	}
}

// TestSkillTextBound: the text a pin keeps stops at skillTextMax bytes,
// at the end of a line or, in one long line, between characters, and says
// how much it left out.
func TestSkillTextBound(t *testing.T) {
	line := strings.Repeat("é", 100) + "\n"
	long := strings.Repeat(line, skillTextMax/len(line)+10)
	lines := textLines(long)
	kept := 0
	for _, l := range lines[:len(lines)-1] {
		kept += len(l) + 1
	}
	if kept > skillTextMax || lines[0] != strings.TrimSuffix(line, "\n") || lines[len(lines)-1] != fmt.Sprintf("… %d more bytes of SKILL.md not kept", len(long)-kept) {
		t.Fatalf("kept %d bytes in %d lines, last %q", kept, len(lines), lines[len(lines)-1])
	}
	one := textLines(strings.Repeat("é", skillTextMax))
	if len(one) != 2 || len(one[0]) > skillTextMax || !utf8.ValidString(one[0]) || !strings.HasPrefix(one[1], "… ") {
		t.Fatalf("one long line: %d lines, the first %d bytes, valid %v", len(one), len(one[0]), utf8.ValidString(one[0]))
	}
}

// offline is a Remote whose source cannot be reached.
type offline struct{}

func (offline) ListSkills(context.Context, string) ([]upstream.ListedSkill, error) {
	return nil, context.DeadlineExceeded
}

func (offline) ReadResource(context.Context, string, string) ([]byte, error) {
	return nil, context.DeadlineExceeded
}

// TestRegistryKnowsListedSkills: a registry knows the skills a source
// listed last, as the store keeps them, before it lists them again (the
// CLI's hub never does): their changes with what changed, accepted there
// for the next; a source removed from the config, or its skills gone,
// takes them along.
func TestRegistryKnowsListedSkills(t *testing.T) {
	ctx := context.Background()
	const md, addr = "skill://acme/refunds/SKILL.md", "skill:myDocs.acme/refunds"
	remote := &remoteFiles{files: map[string]string{
		md:                                "---\nname: refunds\ndescription: Process refund requests.\n---\n# Refunds\n",
		"skill://acme/refunds/example.md": "Dear customer.\n",
	}}
	db := hubtest.OpenStore(t)
	home := t.TempDir()
	const cfg = `{"sources": {"my-docs": {"url": "http://127.0.0.1:9/mcp"}}}`
	r := newRegistryAt(t, home, db, cfg, remote)
	r.Refresh(ctx, nil)
	remote.set("skill://acme/refunds/example.md", "Dear valued customer.\n")
	r.Refresh(ctx, nil)
	listed, _ := r.Current().Lookup(addr)

	cold := newRegistryAt(t, home, db, cfg, offline{})
	sk, ok := cold.Current().Lookup(addr)
	if !ok || !sk.Changed() || sk.Change != "changed example.md" || sk.Hash != listed.Hash || sk.Updated.UnixMilli() != listed.Updated.UnixMilli() || sk.Description != "Process refund requests." {
		t.Fatalf("a registry that has not listed: %v, %+v", ok, sk)
	}
	// A listing that fails keeps them.
	cold.Refresh(ctx, nil)
	if changes := cold.Changes(); len(changes) != 1 || changes[0].Address != addr {
		t.Fatalf("changes after a failed listing: %+v", changes)
	}
	if accepted, err := cold.Accept(ctx, addr, "cli"); err != nil || len(accepted) != 1 {
		t.Fatalf("accepting without the source: %+v, %v", accepted, err)
	}
	if sk, _ := newRegistryAt(t, home, db, cfg, offline{}).Current().Lookup(addr); sk == nil || sk.Changed() {
		t.Fatalf("accepted, then a new registry: %+v", sk)
	}

	// Gone from the listing, gone from the store.
	remote.mu.Lock()
	remote.files = map[string]string{}
	remote.mu.Unlock()
	r.Refresh(ctx, nil)
	if _, ok := newRegistryAt(t, home, db, cfg, offline{}).Current().Lookup(addr); ok {
		t.Fatal("a skill no longer listed is still known")
	}
	// A source no longer configured brings none.
	remote.set(md, "---\nname: refunds\ndescription: Process refund requests.\n---\n# Refunds\n")
	r.Refresh(ctx, nil)
	if _, ok := newRegistryAt(t, home, db, `{"sources": {}}`, offline{}).Current().Lookup(addr); ok {
		t.Fatal("a removed source's skill is known")
	}
}
