package hubtest

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"testing"

	"capabilities.sh/capabilities/hub/store"
)

// OpenStore opens a store in a temporary folder, closed when the test ends.
func OpenStore(t testing.TB) *store.DB {
	t.Helper()
	return OpenStoreFile(t, filepath.Join(t.TempDir(), "capabilities.db"))
}

// OpenStoreFile opens the store in file, closed when the test ends.
func OpenStoreFile(t testing.TB, file string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SQL opens a handle of its own on db's file, as another process would,
// for tests that read or change what the store's typed calls do not show:
// count rows, or damage a journal to see a resume refuse it. It enforces
// foreign keys, as the store does, and is closed when the test ends.
func SQL(t testing.TB, db *store.DB) *sql.DB {
	t.Helper()
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(ON)")
	h, err := sql.Open("sqlite", "file:"+db.Path()+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
