package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestSkillsKeptBySource: SetSkills replaces one source's skills and
// leaves the others'; none forgets them.
func TestSkillsKeptBySource(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(t.TempDir(), "capabilities.db"), nil)
	t0 := time.UnixMilli(1_700_000_000_000)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.SetSkills(ctx, "docs", []ListedSkill{{Path: "acme/refunds", Entry: []byte(`{"uri":"skill://acme/refunds/SKILL.md"}`), Seen: t0}, {Path: "acme/invoices", Entry: []byte(`{}`), Seen: t0}}))
	must(db.SetSkills(ctx, "wiki", []ListedSkill{{Path: "style", Entry: []byte(`{}`), Seen: t0}}))
	must(db.SetSkills(ctx, "docs", []ListedSkill{{Path: "acme/refunds", Entry: []byte(`{"uri":"skill://acme/refunds/SKILL.md","v":2}`), Seen: t0.Add(time.Hour)}}))
	got, err := db.Skills(ctx)
	must(err)
	if len(got) != 2 || got[0].Source != "docs" || got[0].Path != "acme/refunds" || string(got[0].Entry) != `{"uri":"skill://acme/refunds/SKILL.md","v":2}` ||
		!got[0].Seen.Equal(t0.Add(time.Hour)) || got[1].Source != "wiki" || got[1].Path != "style" {
		t.Fatalf("kept skills: %+v", got)
	}
	must(db.SetSkills(ctx, "wiki", nil))
	if got, err := db.Skills(ctx); err != nil || len(got) != 1 || got[0].Source != "docs" {
		t.Fatalf("after forgetting wiki's: %+v, %v", got, err)
	}
}
