//go:build !headless

package ui

import (
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/google/go-cmp/cmp"
)

var firstRunCands = []ImportCandidate{
	{Name: "github", Clients: []string{"claude-code", "vscode"}, Secrets: []string{"env.GITHUB_TOKEN"}},
	{Name: "memory", Clients: []string{"cursor"}},
}

func TestFirstRunLogic(t *testing.T) {
	for _, tc := range []struct {
		c    ImportCandidate
		want string
	}{
		{firstRunCands[0], "github — from claude-code, vscode (1 secret env.GITHUB_TOKEN into the keychain)"},
		{firstRunCands[1], "memory — from cursor"},
		{ImportCandidate{Name: "x", Secrets: []string{"env.A", "headers.B"}}, "x (2 secrets env.A, headers.B into the keychain)"},
	} {
		if got := candidateLabel(tc.c); got != tc.want {
			t.Errorf("candidateLabel(%s) = %q, want %q", tc.c.Name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		checked []bool
		move    bool
		want    ImportSelection
	}{
		{[]bool{true, true}, true, ImportSelection{Names: []string{"github", "memory"}, Move: true}},
		{[]bool{false, true}, false, ImportSelection{Names: []string{"memory"}}},
		{[]bool{false, false}, true, ImportSelection{Move: true}},
		{[]bool{true}, false, ImportSelection{Names: []string{"github"}}},
	} {
		if got := selectionOf(firstRunCands, tc.checked, tc.move); !cmp.Equal(got, tc.want) {
			t.Errorf("selectionOf(%v, %v) = %+v, want %+v", tc.checked, tc.move, got, tc.want)
		}
	}
	for n, want := range map[int]string{0: "Import", 1: "Import 1 server", 3: "Import 3 servers"} {
		text, ok := importButtonText(n)
		if text != want || ok != (n > 0) {
			t.Errorf("importButtonText(%d) = %q, %v", n, text, ok)
		}
	}
}

func TestFirstRunWindowImportsTheCheckedServers(t *testing.T) {
	a := test.NewTempApp(t)
	got := make(chan ImportSelection, 2)
	fail := true
	w := newFirstRunWindow(a, FirstRun{Candidates: firstRunCands, Import: func(s ImportSelection) (string, error) {
		got <- s
		if fail {
			return "", errors.New("the keychain is locked")
		}
		return "Imported memory.", nil
	}})
	w.win.Show()
	if w.button.Text != "Import 2 servers" || w.button.Disabled() || !w.move.Checked {
		t.Fatalf("initial state: %q disabled=%v move=%v", w.button.Text, w.button.Disabled(), w.move.Checked)
	}
	test.Tap(w.boxes[0])
	test.Tap(w.move)
	if w.button.Text != "Import 1 server" {
		t.Fatalf("after unchecking github: %q", w.button.Text)
	}
	test.Tap(w.button)
	wait := func() ImportSelection {
		t.Helper()
		select {
		case s := <-got:
			select {
			case <-w.done:
			case <-time.After(10 * time.Second):
				t.Fatal("the window did not show the result")
			}
			return s
		case <-time.After(10 * time.Second):
			t.Fatal("Import was not called")
		}
		return ImportSelection{}
	}
	if s := wait(); !cmp.Equal(s, ImportSelection{Names: []string{"memory"}}) {
		t.Fatalf("Import got %+v", s)
	}
	if w.result.Text != "Could not import everything: the keychain is locked" || w.button.Disabled() {
		t.Fatalf("after a failure: %q, button disabled %v", w.result.Text, w.button.Disabled())
	}
	fail = false
	test.Tap(w.button)
	wait()
	if w.result.Text != "Imported memory." || w.skip.Text != "Close" || !w.boxes[1].Disabled() {
		t.Fatalf("after the import: %q, %q", w.result.Text, w.skip.Text)
	}
	test.Tap(w.boxes[1])
	test.Tap(w.boxes[0])
	if w.boxes[0].Checked {
		t.Error("a box changed after the import")
	}
	// Nothing checked: nothing to import.
	w2 := newFirstRunWindow(a, FirstRun{Candidates: firstRunCands, Import: func(ImportSelection) (string, error) { t.Error("imported nothing"); return "", nil }})
	test.Tap(w2.boxes[0])
	test.Tap(w2.boxes[1])
	if !w2.button.Disabled() {
		t.Error("Import is enabled with nothing checked")
	}
}
