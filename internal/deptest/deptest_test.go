package deptest

import (
	"fmt"
	"slices"
	"strings"
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

// recorder is a T that keeps what a check reports instead of failing the
// test that runs it.
type recorder struct{ errors []string }

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("deptest: fatal: "+format, args...))
}

// The checks fail when a package imports one its rule puts above it: the
// OpenAPI sources import the upstream sessions, so a rule that put the
// sessions above them fails, once per platform and naming the import, and
// the rules the packages keep pass.
func TestChecksFailOnAnUpwardImport(t *testing.T) {
	openapi, upstream := Module+"/hub/openapi", Module+"/hub/upstream"
	for name, check := range map[string]func(T, string, ...string){"CheckImports": CheckImports, "Check": Check} {
		var r recorder
		check(&r, openapi, upstream)
		if len(r.errors) != len(Platforms) {
			t.Fatalf("%s of an upward import reported %d errors, want one per platform: %q", name, len(r.errors), r.errors)
		}
		for _, e := range r.errors {
			if !strings.HasPrefix(e, openapi+" ") || !strings.Contains(e, upstream) {
				t.Errorf("%s reported %q, want it to name %s and %s", name, e, openapi, upstream)
			}
		}
		r = recorder{}
		check(&r, upstream, openapi, Heart)
		if len(r.errors) > 0 {
			t.Errorf("%s of the sessions, which import neither the OpenAPI sources nor the heart: %q", name, r.errors)
		}
	}
}
