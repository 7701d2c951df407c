package deptest

import (
	"slices"
	"testing"
)

// The checker reports an upward import when it is given one: a store that
// imported the heart, and a policy that reached the keychain through a
// package of its own.
func TestViolations(t *testing.T) {
	deps := []string{
		"context",
		Module + "/hub/store",
		Module + "/hub",
		Module + "/hub/naming",
		Module + "/keychain",
		Module + "/hubx",
	}
	for _, tc := range []struct {
		self      string
		forbidden []string
		want      []string
	}{
		{Module + "/hub/store", []string{Heart}, []string{Module + "/hub"}},
		{Module + "/hub/store", []string{AllHub}, []string{Module + "/hub", Module + "/hub/naming"}},
		{Module + "/hub/policy", []string{Module + "/keychain", "net/http"}, []string{Module + "/keychain"}},
		{Module + "/hub/store", []string{"net/http", Module + "/sandbox/..."}, nil},
	} {
		if got := Violations(tc.self, deps, tc.forbidden); !slices.Equal(got, tc.want) {
			t.Errorf("Violations(%s, %v) = %v, want %v", tc.self, tc.forbidden, got, tc.want)
		}
	}
}

// Deps reads a real graph: the store depends on itself and on SQLite, and
// the checker finds the import of database/sql that a rule forbidding it
// would refuse.
func TestDepsOfTheStore(t *testing.T) {
	store := Module + "/hub/store"
	deps := Deps(t, store, "linux")
	if !slices.Contains(deps, store) || !slices.Contains(deps, "database/sql") {
		t.Fatalf("go list -deps %s = %v", store, deps)
	}
	if got := Violations(store, deps, []string{"database/sql"}); !slices.Equal(got, []string{"database/sql"}) {
		t.Errorf("a rule forbidding database/sql found %v", got)
	}
}

// Imports reads only a package's own imports: the store imports SQLite's
// driver, not the C library translation the driver is built on, which
// Deps reaches through it; a rule on imports refuses database/sql.
func TestImportsOfTheStore(t *testing.T) {
	store := Module + "/hub/store"
	imports := Imports(t, store, "linux")
	if !slices.Contains(imports, "database/sql") || !slices.Contains(imports, "modernc.org/sqlite") {
		t.Fatalf("the imports of %s = %v", store, imports)
	}
	const lib = "modernc.org/sqlite/lib"
	if slices.Contains(imports, lib) || !slices.Contains(Deps(t, store, "linux"), lib) {
		t.Errorf("%s is among the store's imports or not among its dependencies", lib)
	}
	if got := Violations(store, imports, []string{"database/sql"}); !slices.Equal(got, []string{"database/sql"}) {
		t.Errorf("a rule forbidding database/sql found %v", got)
	}
}
