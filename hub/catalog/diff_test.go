package catalog

import (
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
	// Past the bound of its work, a diff removes and adds whole.
	long := make([]string, 2100)
	for i := range long {
		long[i] = "x"
	}
	got = DiffLines(long, append(long[:len(long):len(long)], "y"), 0)
	if len(got) != 2*len(long)+1 || got[0].Kind != DiffRemoved || got[len(got)-1] != (DiffLine{"+ y", DiffAdded}) {
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
