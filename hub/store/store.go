// Package store keeps the hub's durable state in one SQLite file: the tool
// catalog, runs and their journals, pending inputs, decisions and the audit
// trail.
//
// It is the only package that writes SQL. Callers use its typed calls and
// its own rows (Run, JournalEntry, Pending, Decision, AuditEntry, Tool,
// Handle), which name no type of the packages above it: a run's envelope
// is JSON bytes, a decision's mode a string. The files are laid out by
// concept: runs.go (runs, leases, claims, retention), journal.go (the
// journal and its group commit), args.go (a call's arguments as the
// journal keeps them), pending.go, decisions.go (decisions and the audit
// trail), catalog.go (tools, pins, addresses) and handles.go.
//
// The database runs in WAL mode with synchronous=NORMAL, so every committed
// transaction survives a kill -9 of the process, and a second process (the
// CLI deciding an approval while no hub runs, or while one does) can read and
// write beside the hub. The schema evolves through numbered migrations
// embedded in the binary (migrations/NNNN_name.sql); Open applies the missing
// ones in a single transaction and records the schema version, so a database
// is always at a version this binary knows, or untouched.
//
// The files are the person's alone: Open creates the database 0600 (SQLite
// gives its WAL and shared-memory files the database's mode) and sets 0600
// on an existing database, WAL and shared-memory file, whatever mode an
// older version or another tool left them in. The database uses
// incremental auto-vacuum, so Prune gives deleted runs' pages back to the
// file system; a database made before that is vacuumed once on Open.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations returns the embedded migrations.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	return sub
}

// DB is an open store. It is safe for concurrent use.
type DB struct {
	sql     *sql.DB
	path    string
	version int

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt // prepared's, closed by Close
}

// Options configures Open. The zero value is what the hub uses.
type Options struct {
	// Migrations replaces the embedded migrations (tests).
	Migrations fs.FS
}

// ErrTooNew reports a database written by a newer version of capabilities.
var ErrTooNew = errors.New("database schema is newer than this version of capabilities")

// Open opens (creating if needed) the database at file and migrates it.
// A process opens its store once and shares the *DB.
func Open(ctx context.Context, file string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	migs := opts.Migrations
	if migs == nil {
		migs = Migrations()
	}
	if err := secureFiles(file); err != nil {
		return nil, fmt.Errorf("opening store %s: %w", file, err)
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMs))
	q.Add("_pragma", "foreign_keys(ON)")
	// A WAL grown by a burst is cut back to 4 MiB once it is checkpointed.
	q.Add("_pragma", "journal_size_limit(4194304)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + file + "?" + q.Encode()
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", file, err)
	}
	// One connection: SQLite takes one writer at a time, and a second
	// connection of this process that lost the race slept in the busy
	// handler (a millisecond or more) instead of queueing here for the
	// connection. Transactions are short; no caller holds rows open while
	// it queries again.
	sqldb.SetMaxOpenConns(1)
	db := &DB{sql: sqldb, path: file}
	if err := db.incrementalVacuum(ctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("opening store %s: %w", file, err)
	}
	if err := db.migrate(ctx, migs); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("opening store %s: %w", file, err)
	}
	return db, nil
}

// busyTimeoutMs is how long a statement waits for another process's lock.
const busyTimeoutMs = 10000

// FileMode is the mode of the database and its WAL and shared-memory files.
const FileMode os.FileMode = 0o600

// Files are the database file and the files SQLite keeps beside it.
func Files(file string) []string {
	return []string{file, file + "-wal", file + "-shm", file + "-journal"}
}

// secureFiles creates the database file with FileMode when it is missing,
// so SQLite never creates it with its default 0644, and sets FileMode on
// the database files that exist.
func secureFiles(file string) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range Files(file) {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		if fi.Mode().Perm() != FileMode {
			if err := os.Chmod(p, FileMode); err != nil {
				return fmt.Errorf("restricting %s to its owner: %w", p, err)
			}
		}
	}
	return nil
}

// incrementalVacuum turns on incremental auto-vacuum, which takes a VACUUM
// to apply (on a new database it costs nothing).
func (db *DB) incrementalVacuum(ctx context.Context) error {
	var mode int
	if err := db.sql.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return fmt.Errorf("reading auto_vacuum: %w", err)
	}
	const incremental = 2
	if mode == incremental {
		return nil
	}
	if _, err := db.sql.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("setting auto_vacuum: %w", err)
	}
	// Instant on a new database; a copy of the whole file on an old one.
	if _, err := db.sql.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("vacuuming to turn on auto_vacuum: %w", err)
	}
	return nil
}

// prepared returns query as a statement prepared once for the life of db,
// for queries on hot paths: SQLite parses and plans a statement on every
// plain Exec or Query, which can cost as much as running it. The statement
// is shared and closed by Close; callers must not close it.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if st, ok := db.stmts[query]; ok {
		return st, nil
	}
	st, err := db.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if db.stmts == nil {
		db.stmts = map[string]*sql.Stmt{}
	}
	db.stmts[query] = st
	return st, nil
}

// exec runs a statement of the hot path, prepared once.
func (db *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := db.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// query is exec for statements that return rows.
func (db *DB) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := db.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// Close closes the prepared statements and the database.
func (db *DB) Close() error {
	db.stmtMu.Lock()
	for q, st := range db.stmts {
		st.Close()
		delete(db.stmts, q)
	}
	db.stmtMu.Unlock()
	return db.sql.Close()
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Version is the schema version after Open's migrations.
func (db *DB) Version() int { return db.version }

type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

func loadMigrations(migs fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(migs, ".")
	if err != nil {
		return nil, fmt.Errorf("reading migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %q: name must be NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(migs, e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: path.Base(e.Name()), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must run 1, 2, 3... without gaps (want %04d)", m.name, i+1)
		}
	}
	return out, nil
}

// migrate applies every missing migration in one immediate transaction, so
// two processes opening the same new database do not both migrate it.
func (db *DB) migrate(ctx context.Context, migs fs.FS) error {
	all, err := loadMigrations(migs)
	if err != nil {
		return err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("starting migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name    TEXT NOT NULL,
		applied INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if current > len(all) {
		return fmt.Errorf("%w (database at version %d, this binary knows %d); upgrade capabilities", ErrTooNew, current, len(all))
	}
	for _, m := range all[current:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)`,
			m.version, m.name, time.Now().UnixMilli()); err != nil {
			return fmt.Errorf("recording migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(all))); err != nil {
		return fmt.Errorf("recording schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing migrations: %w", err)
	}
	db.version = len(all)
	return nil
}

// Check runs SQLite's integrity check and reports the first problem.
func (db *DB) Check(ctx context.Context) error {
	var res string
	if err := db.sql.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return fmt.Errorf("checking database: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("database %s is damaged: %s", db.path, res)
	}
	return nil
}
