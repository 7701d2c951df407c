package skills

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// TestSkillFilesSizeBeforeRead gives a registry skills with files far over the
// per-skill limit (sparse, so they cost no disk): a 64 GB SKILL.md and a
// 1 GB reference file. Each skill is skipped with a warning that names the
// file and the limit, and listing them allocates a few KB of Go heap
// (in-process, measured as TotalAlloc: a read of either file would
// allocate its size, or crash the hub). A file that grows after its skill
// was listed is not read whole when described.
func TestSkillFilesSizeBeforeRead(t *testing.T) {
	home := t.TempDir()
	skills := filepath.Join(home, "skills")
	hubtest.Sparse(t, filepath.Join(skills, "huge-md", "SKILL.md"), 64<<30)
	writeSkill(t, filepath.Join(skills, "huge-ref"), "---\nname: huge-ref\ndescription: A skill with a huge reference.\n---\n")
	hubtest.Sparse(t, filepath.Join(skills, "huge-ref", "references", "big.bin"), 1<<30)
	writeSkill(t, filepath.Join(skills, "grows"), "---\nname: grows\ndescription: A skill whose file grows later.\n---\n")
	if err := os.WriteFile(filepath.Join(skills, "grows", "notes.md"), []byte("small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs hubtest.LogBuffer
	r := New(Options{Home: home, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(r.Close)

	var set *Set
	n := hubtest.Allocated(func() { set = r.Current() })
	if n > 4<<20 {
		t.Errorf("listing the skills allocated %d bytes; the files over the limit must not be read", n)
	}
	if _, ok := set.Lookup("skill:grows"); !ok || len(set.All()) != 1 {
		t.Fatalf("skills served: %d; want only skill:grows", len(set.All()))
	}
	for _, want := range []string{
		`dir=` + filepath.Join(skills, "huge-md") + ` problem="SKILL.md: it is 65536.0 MB, above the 16.0 MB it may hold (the limit of bytes per skill)"`,
		`dir=` + filepath.Join(skills, "huge-ref") + ` problem="references/big.bin is 1024.0 MB, which takes its files past 16.0 MB (the limit of bytes per skill)"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no warning %q in:\n%s", want, logs.String())
		}
	}

	// The file grows to 64 GB after the listing: describe reads at most
	// the size it was listed with, then lists again and skips the skill.
	sk, _ := set.Lookup("skill:grows")
	hubtest.Sparse(t, filepath.Join(skills, "grows", "notes.md"), 64<<30)
	var rerr error
	n = hubtest.Allocated(func() { _, _, rerr = r.ReadFile(context.Background(), sk, "notes.md") })
	if rerr == nil || n > 4<<20 {
		t.Errorf("reading a file grown to 64 GB: err %v, %d bytes allocated", rerr, n)
	}
}

// TestSkillIndexOnChange checks that the skill folders are read when they
// change, not on every lookup (each of the heart's searches is one): a
// hundred lookups read them once, and an edited file, a new skill, a
// removed skill and a skills root that appears later are each seen.
func TestSkillIndexOnChange(t *testing.T) {
	later := filepath.Join(t.TempDir(), "later")
	cfg, _ := json.Marshal(map[string]any{"skills": map[string]any{"paths": []string{later}}})
	r, home := newTestRegistry(t, string(cfg), nil)
	reads := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.reads
	}
	if !r.watch.on() {
		t.Fatal("the skill folders are not watched")
	}
	for range 100 {
		if _, ok := r.Current().Lookup("skill:git-workflow"); !ok {
			t.Fatal("skill:git-workflow is not served")
		}
	}
	if n := reads(); n != 1 {
		t.Fatalf("100 lookups read the skill folders %d times; want once", n)
	}

	guide := filepath.Join(home, "skills", "git-workflow", "references", "GUIDE.md")
	if err := os.WriteFile(guide, []byte("# Edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the edited file to be listed with its new size", func() bool {
		sk, ok := r.Current().Lookup("skill:git-workflow")
		f, _ := sk.File("references/GUIDE.md")
		return ok && f.Size == int64(len("# Edited\n"))
	})

	writeSkill(t, filepath.Join(home, "skills", "release-notes"), "---\nname: release-notes\ndescription: Draft release notes.\n---\n")
	testwait.For(t, 0, "a new skill to be served", func() bool {
		_, ok := r.Current().Lookup("skill:release-notes")
		return ok
	})
	if err := os.RemoveAll(filepath.Join(home, "skills", "pdf-forms")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "a removed skill to be gone", func() bool {
		_, ok := r.Current().Lookup("skill:pdf-forms")
		return !ok
	})
	writeSkill(t, filepath.Join(later, "late-one"), "---\nname: late-one\ndescription: In a folder made after the hub started.\n---\n")
	testwait.For(t, 0, "a skill in a root made later to be served", func() bool {
		_, ok := r.Current().Lookup("skill:late-one")
		return ok
	})
	before := reads()
	for range 100 {
		r.Current()
	}
	if n := reads(); n != before {
		t.Errorf("with nothing changed, 100 more lookups read the folders %d times", n-before)
	}
}
