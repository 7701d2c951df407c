package hubtest

import (
	"context"
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
