package catalog

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffLines(t *testing.T) {
	got := DiffLines([]string{"a", "b", "c"}, []string{"a", "c", "d"}, 5)
	want := []DiffLine{{"  a", DiffSame}, {"- b", DiffRemoved}, {"  c", DiffSame}, {"+ d", DiffAdded}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DiffLines (-want +got):\n%s", diff)
	}
	// Far from the change, unchanged lines become one note.
	a := []string{"1", "2", "3", "4", "5", "6"}
	b := []string{"1", "2", "3", "4", "5", "six"}
	got = DiffLines(a, b, 1)
	want = []DiffLine{{"  … 4 unchanged lines", DiffElided}, {"  5", DiffSame}, {"- 6", DiffRemoved}, {"+ six", DiffAdded}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DiffLines with context 1 (-want +got):\n%s", diff)
	}
	// A long definition changed in one place is compared around that
	// place only: its common start and end are set aside.
	long := make([]string, 5000)
	for i := range long {
		long[i] = fmt.Sprintf("line %d", i)
	}
	changed := slices.Clone(long)
	changed[2500] = "line 2500, changed"
	got = DiffLines(long, changed, 0)
	want = []DiffLine{{"  … 2500 unchanged lines", DiffElided}, {"- line 2500", DiffRemoved}, {"+ line 2500, changed", DiffAdded}, {"  … 2499 unchanged lines", DiffElided}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one line changed in 5000 (-want +got):\n%s", diff)
	}
	// Past the bound of its work, a diff removes and adds the middle whole.
	a, b = make([]string, 2100), make([]string, 2100)
	for i := range a {
		a[i], b[i] = fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
	}
	got = DiffLines(a, b, 0)
	if len(got) != 4200 || got[0] != (DiffLine{"- a0", DiffRemoved}) || got[4199] != (DiffLine{"+ b2099", DiffAdded}) {
		t.Errorf("a diff past maxDiffCells: %d lines, first %+v", len(got), got[0])
	}
}

func TestDefinitionLines(t *testing.T) {
	got := DefinitionLines([]byte(`{"description":"Post","name":"postMessage"}`))
	want := []string{"{", `  "description": "Post",`, `  "name": "postMessage"`, "}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefinitionLines (-want +got):\n%s", diff)
	}
	if got := DefinitionLines(nil); got != nil {
		t.Errorf("no definition: %q", got)
	}
}
