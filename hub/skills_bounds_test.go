package hub

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// allocated runs f and returns how many bytes of Go heap it allocated
// (cumulative, so a buffer read and dropped counts).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sparse makes a file of size bytes that takes no disk.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// TestSkillFilesSizeBeforeRead gives a hub skills with files far over the
// per-skill limit (sparse, so they cost no disk): a 64 GB SKILL.md and a
// 1 GB reference file. Each skill is skipped with a warning that names the
// file and the limit, and listing them allocates a few KB of Go heap
// (in-process, measured as TotalAlloc: a read of either file would
// allocate its size, or crash the hub). A file that grows after its skill
// was listed is not read whole when described.
func TestSkillFilesSizeBeforeRead(t *testing.T) {
	home := t.TempDir()
	skills := filepath.Join(home, "skills")
	sparse(t, filepath.Join(skills, "huge-md", "SKILL.md"), 64<<30)
	writeSkill(t, filepath.Join(skills, "huge-ref"), "---\nname: huge-ref\ndescription: A skill with a huge reference.\n---\n")
	sparse(t, filepath.Join(skills, "huge-ref", "references", "big.bin"), 1<<30)
	writeSkill(t, filepath.Join(skills, "grows"), "---\nname: grows\ndescription: A skill whose file grows later.\n---\n")
	if err := os.WriteFile(filepath.Join(skills, "grows", "notes.md"), []byte("small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs hubtest.LogBuffer
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	var set *skillSet
	n := allocated(func() { set = h.skills.Current() })
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
	sparse(t, filepath.Join(skills, "grows", "notes.md"), 64<<30)
	var rerr error
	n = allocated(func() { _, _, rerr = h.skills.ReadFile(context.Background(), sk, "notes.md") })
	if rerr == nil || n > 4<<20 {
		t.Errorf("reading a file grown to 64 GB: err %v, %d bytes allocated", rerr, n)
	}
}

// TestSkillIndexOnChange checks that the skill folders are read when they
// change, not on every search: a hundred searches read them once, and an
// edited file, a new skill, a removed skill and a skills root that
// appears later are each seen.
func TestSkillIndexOnChange(t *testing.T) {
	later := filepath.Join(t.TempDir(), "later")
	cfg, _ := json.Marshal(map[string]any{"skills": map[string]any{"paths": []string{later}}})
	h := newSkillHub(t, string(cfg))
	ctx := context.Background()
	reads := func() int {
		h.skills.mu.Lock()
		defer h.skills.mu.Unlock()
		return h.skills.reads
	}
	if !h.skills.watch.on() {
		t.Fatal("the skill folders are not watched")
	}
	for range 100 {
		if _, err := h.Search(ctx, SearchRequest{Query: "git commit conventions"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads(); n != 1 {
		t.Fatalf("100 searches read the skill folders %d times; want once", n)
	}

	guide := filepath.Join(h.paths.Home, "skills", "git-workflow", "references", "GUIDE.md")
	if err := os.WriteFile(guide, []byte("# Edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the edited file to be listed with its new size", func() bool {
		sk, ok := h.skills.Current().Lookup("skill:git-workflow")
		f, _ := sk.File("references/GUIDE.md")
		return ok && f.Size == int64(len("# Edited\n"))
	})

	writeSkill(t, filepath.Join(h.paths.Home, "skills", "release-notes"), "---\nname: release-notes\ndescription: Draft release notes.\n---\n")
	testwait.For(t, 0, "a new skill to be served", func() bool {
		_, ok := h.skills.Current().Lookup("skill:release-notes")
		return ok
	})
	if err := os.RemoveAll(filepath.Join(h.paths.Home, "skills", "pdf-forms")); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "a removed skill to be gone", func() bool {
		_, ok := h.skills.Current().Lookup("skill:pdf-forms")
		return !ok
	})
	writeSkill(t, filepath.Join(later, "late-one"), "---\nname: late-one\ndescription: In a folder made after the hub started.\n---\n")
	testwait.For(t, 0, "a skill in a root made later to be served", func() bool {
		_, ok := h.skills.Current().Lookup("skill:late-one")
		return ok
	})
	before := reads()
	for range 100 {
		h.skills.Current()
	}
	if n := reads(); n != before {
		t.Errorf("with nothing changed, 100 more lookups read the folders %d times", n-before)
	}
}
