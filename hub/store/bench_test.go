package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRunWrites times the store's writes of a run that makes one
// call, as the execute path makes them, one sub-benchmark each: the run's
// row, its call's journal entry, and the envelope at the end.
func BenchmarkRunWrites(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "capabilities.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	w, err := db.NewJournal(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	env := []byte(`{"runId":"r","status":"completed","result":"Echo: hello","calls":[{"seq":1,"address":"everything.echo","ok":true,"ms":1}]}`)
	n := 0
	create := func() string {
		n++
		id := fmt.Sprintf("r_%d", n)
		now := time.Now()
		r := &Run{ID: id, Code: `return await everything.echo({ message: "hello" });`, Status: "running", Attempts: 1, Created: now, Updated: now}
		if err := db.CreateRun(ctx, r, Lease{Owner: "1/x", Until: now.Add(time.Minute)}); err != nil {
			b.Fatal(err)
		}
		return id
	}
	put := func(id string) {
		e := &JournalEntry{Seq: 1, Address: "everything.echo", ArgsHash: "h", State: "ok", Outcome: []byte(`"Echo: hello"`), Args: `{"message":"hello"}`}
		if err := w.Put(id, e, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("create", func(b *testing.B) {
		for b.Loop() {
			create()
		}
	})
	b.Run("journal", func(b *testing.B) {
		id := create()
		for b.Loop() {
			put(id)
		}
	})
	b.Run("finish", func(b *testing.B) {
		id := create()
		for b.Loop() {
			if _, err := db.FinishRun(ctx, id, "1/x", "completed", env, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
