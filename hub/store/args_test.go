package store

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"
)

func TestKeepArgs(t *testing.T) {
	long := strings.Repeat("a", MaxArgsBytes)
	for _, tc := range []struct {
		name, in string
		want     string // the kept text, without the mark
		cut      bool
	}{
		{"none", "", "{}", false},
		{"compacted", "{ \"text\" : \"hi\",\n  \"n\": 1 }", `{"text":"hi","n":1}`, false},
		{"strings keep their bytes", `{"s":"a\"b \u00e9"}`, `{"s":"a\"b \u00e9"}`, false},
		{"not JSON stays on one line", "{oops\nno", "{oops no", false},
		{"long", `{"t":"` + long + `"}`, `{"t":"` + long[:MaxArgsBytes-len(`{"t":"`)-len(argsCutMark)-len("4058 of 4104 bytes kept")], true},
	} {
		got := KeepArgs(json.RawMessage(tc.in))
		if len(got) > MaxArgsBytes {
			t.Errorf("%s: kept %d bytes, over %d", tc.name, len(got), MaxArgsBytes)
		}
		text, cut := splitArgs(got)
		if text != tc.want || cut != tc.cut {
			t.Errorf("%s: KeepArgs = %q (cut %v), want %q (cut %v)", tc.name, got, cut, tc.want, tc.cut)
		}
		if cut && !strings.HasSuffix(got, " of 4104 bytes kept") {
			t.Errorf("%s: the mark does not say what was kept: %q", tc.name, got[len(text):])
		}
	}
}

// A cut never splits a character or an escape, wherever the limit falls.
func TestCutJSONText(t *testing.T) {
	text := []byte(`{"a":"x\"y","b":"é\u00e9\ud83d\ude00日"}`)
	for n := 0; n <= len(text); n++ {
		k := cutJSONText(text, n)
		if k > n {
			t.Fatalf("cut at %d for a limit of %d", k, n)
		}
		head := text[:k]
		if !utf8.Valid(head) {
			t.Errorf("limit %d: %q splits a character", n, head)
		}
		// An escape is whole: a backslash run ends even, a \u has its four
		// digits, and a high surrogate its low half.
		s := string(head)
		if i := strings.LastIndex(s, `\`); i >= 0 {
			tail := s[i:]
			switch {
			case strings.HasSuffix(s, `\`) && !strings.HasSuffix(s, `\\`):
				t.Errorf("limit %d: %q ends in a lone backslash", n, s)
			case strings.HasPrefix(tail, `\u`) && len(tail) < 6:
				t.Errorf("limit %d: %q cuts a \\u escape", n, s)
			case strings.HasSuffix(s, `\ud83d`):
				t.Errorf("limit %d: %q keeps half a surrogate pair", n, s)
			}
		}
	}
	if k := cutJSONText(text, 12); string(text[:k]) != `{"a":"x\"y",` {
		t.Errorf("a cut after a whole escape: %q", text[:k])
	}
	if k := cutJSONText(text, 8); string(text[:k]) != `{"a":"x` {
		t.Errorf("a cut inside \\\": %q", text[:k])
	}
}

// An older database gains the column: its journal stays as it was, with
// no arguments recorded, and new entries keep theirs. A later put without
// arguments keeps them; retention counts them.
func TestJournalArgsMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "capabilities.db")
	older := fstest.MapFS{}
	names, err := fs.Glob(Migrations(), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name >= "0008" {
			continue
		}
		b, err := fs.ReadFile(Migrations(), name)
		if err != nil {
			t.Fatal(err)
		}
		older[name] = &fstest.MapFile{Data: b}
	}
	db := open(t, file, &Options{Migrations: older})
	if db.Version() != 7 {
		t.Fatalf("the older schema is version %d", db.Version())
	}
	now := time.Now()
	if err := db.CreateRun(ctx, &Run{ID: "r_old", Code: "x", Status: "completed", Created: now, Updated: now}, Lease{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(`INSERT INTO journal (run_id, seq, address, args_hash, state, outcome, ms, started) VALUES ('r_old', 1, 'up.echo', 'h1', 'ok', '{"said":"hi"}', 3, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open(t, file, nil)
	if db.Version() < 8 {
		t.Fatalf("Version = %d after the upgrade", db.Version())
	}
	j, err := db.ReadJournal(ctx, "r_old")
	if err != nil {
		t.Fatal(err)
	}
	if e := j[1]; e == nil || e.Address != "up.echo" || e.ArgsHash != "h1" || e.State != "ok" || string(e.Outcome) != `{"said":"hi"}` || e.Ms != 3 || e.Args != "" || e.ArgsCut {
		t.Fatalf("the old entry after the upgrade: %+v", e)
	}

	w, err := db.NewJournal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateRun(ctx, &Run{ID: "r_new", Code: "x", Status: "completed", Created: now, Updated: now}, Lease{}); err != nil {
		t.Fatal(err)
	}
	big := KeepArgs(json.RawMessage(`{"t":"` + strings.Repeat("é", MaxArgsBytes) + `"}`))
	for _, e := range []*JournalEntry{
		{Seq: 1, Address: "up.echo", ArgsHash: "h", State: "issued", Args: `{"text":"hi"}`},
		{Seq: 1, Address: "up.echo", ArgsHash: "h", State: "ok", Outcome: json.RawMessage(`{}`)},
		{Seq: 2, Address: "up.echo", ArgsHash: "h2", State: "ok", Outcome: json.RawMessage(`{}`), Args: big},
	} {
		if err := w.Put("r_new", e, now); err != nil {
			t.Fatal(err)
		}
	}
	j, err = db.ReadJournal(ctx, "r_new")
	if err != nil {
		t.Fatal(err)
	}
	if e := j[1]; e.State != "ok" || e.Args != `{"text":"hi"}` || e.ArgsCut {
		t.Errorf("an entry put again without arguments: %+v", e)
	}
	if e := j[2]; !e.ArgsCut || !strings.HasPrefix(e.Args, `{"t":"éé`) || strings.Contains(e.Args, "cut") || !utf8.ValidString(e.Args) {
		t.Errorf("cut arguments read back: cut %v, %q…", e.ArgsCut, e.Args[:min(20, len(e.Args))])
	}

	// Retention counts the arguments as it counts outcomes: the bytes of
	// r_new are the old run's plus both entries' arguments.
	p, err := db.Prune(ctx, Retention{MaxBytes: 1, Finished: []string{"completed"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	// code "x", notices null, and per entry its address, hash and outcome
	old := int64(1 + 4 + len("up.echo") + len("h1") + len(`{"said":"hi"}`))
	nw := int64(1+4+2*len("up.echo")+len("h")+len("h2")+2*len(`{}`)) + int64(len(`{"text":"hi"}`)+len(big))
	if p.Runs != 2 || p.Bytes != old+nw {
		t.Errorf("Prune = %+v, want both runs and %d bytes", p, old+nw)
	}
}
