package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func open(t *testing.T, file string, opts *Options) *DB {
	t.Helper()
	db, err := Open(context.Background(), file, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestFreshDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	db := open(t, file, nil)

	all, err := loadMigrations(Migrations())
	if err != nil {
		t.Fatal(err)
	}
	if db.Version() != len(all) || len(all) == 0 {
		t.Fatalf("Version = %d, want %d", db.Version(), len(all))
	}
	var mode string
	if err := db.sql.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var uv int
	if err := db.sql.QueryRow(`PRAGMA user_version`).Scan(&uv); err != nil || uv != len(all) {
		t.Fatalf("user_version = %d, %v", uv, err)
	}
	for _, table := range []string{"tools", "pins", "runs", "journal", "pending", "decisions", "audit"} {
		var n int
		if err := db.sql.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name=?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s missing (%v)", table, err)
		}
	}
	if err := db.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestExistingDatabaseGetsOnlyNewMigrations(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	v1 := fstest.MapFS{
		"0001_init.sql": {Data: []byte(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);`)},
	}
	db := open(t, file, &Options{Migrations: v1})
	if _, err := db.sql.Exec(`INSERT INTO notes (body) VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	v2 := fstest.MapFS{
		"0001_init.sql": v1["0001_init.sql"],
		"0002_tags.sql": {Data: []byte(`ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'none';`)},
	}
	db = open(t, file, &Options{Migrations: v2})
	if db.Version() != 2 {
		t.Fatalf("Version = %d, want 2", db.Version())
	}
	var body, tag string
	if err := db.sql.QueryRow(`SELECT body, tag FROM notes`).Scan(&body, &tag); err != nil {
		t.Fatal(err)
	}
	if body != "kept" || tag != "none" {
		t.Fatalf("row = %q %q; the data must survive and the new column exist", body, tag)
	}
	var applied int
	if err := db.sql.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&applied); err != nil || applied != 2 {
		t.Fatalf("schema_migrations rows = %d, %v", applied, err)
	}
	// Opening again applies nothing.
	db.Close()
	db = open(t, file, &Options{Migrations: v2})
	if db.Version() != 2 {
		t.Fatalf("reopen Version = %d", db.Version())
	}
}

func TestFailedMigrationChangesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	v1 := fstest.MapFS{"0001_init.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)}}
	open(t, file, &Options{Migrations: v1}).Close()

	bad := fstest.MapFS{
		"0001_init.sql":   v1["0001_init.sql"],
		"0002_good.sql":   {Data: []byte(`CREATE TABLE b (y INTEGER);`)},
		"0003_broken.sql": {Data: []byte(`CREATE TABLE c (z INTEGER; -- syntax error`)},
	}
	_, err := Open(context.Background(), file, &Options{Migrations: bad})
	if err == nil || !strings.Contains(err.Error(), "0003_broken.sql") {
		t.Fatalf("Open = %v, want an error naming the broken migration", err)
	}
	db := open(t, file, &Options{Migrations: v1})
	var n int
	db.sql.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name='b'`).Scan(&n)
	if n != 0 || db.Version() != 1 {
		t.Fatalf("after a failed migration: table b exists=%d version=%d; want all or nothing", n, db.Version())
	}
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	v2 := fstest.MapFS{
		"0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)},
		"0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER);`)},
	}
	open(t, file, &Options{Migrations: v2}).Close()
	_, err := Open(context.Background(), file, &Options{Migrations: fstest.MapFS{"0001_a.sql": v2["0001_a.sql"]}})
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("Open = %v, want ErrTooNew", err)
	}
}

func TestMigrationNamesAreChecked(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"gap":      {"0001_a.sql": {Data: []byte(`SELECT 1;`)}, "0003_c.sql": {Data: []byte(`SELECT 1;`)}},
		"bad name": {"1_a.sql": {Data: []byte(`SELECT 1;`)}},
	} {
		if _, err := loadMigrations(fsys); err == nil {
			t.Errorf("%s: loadMigrations accepted it", name)
		}
	}
}

func TestTwoHandlesShareTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "capabilities.db")
	a := open(t, file, nil)
	b := open(t, file, nil)
	if _, err := a.sql.Exec(`INSERT INTO decisions (address, connection, hash, mode, channel, at) VALUES ('x.y', '', 'h', 'allow', 'cli', 1)`); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := b.sql.QueryRow(`SELECT mode FROM decisions WHERE address='x.y'`).Scan(&mode); err != nil || mode != "allow" {
		t.Fatalf("second handle read %q, %v", mode, err)
	}
	if _, err := os.Stat(file + "-wal"); err != nil {
		t.Fatalf("no WAL file beside the database: %v", err)
	}
}
