package sandbox

import (
	"context"
	"strings"
	"testing"
)

func TestCheckNamespace(t *testing.T) {
	refused := []string{"", "eval", "arguments", "parseInt", "parseFloat", "isNaN", "hub", "console", "ToolError",
		"crypto", "Date", "globalThis", "Function", "let", "yield", "await", "class", "undefined",
		"café", "1st", "my-src", "a.b", strings.Repeat("a", MaxNameLength+1)}
	for _, name := range refused {
		if err := CheckNamespace(name); err == nil {
			t.Errorf("CheckNamespace(%q) = nil, want an error", name)
		}
	}
	for _, name := range []string{"github", "mySrc", "_private", "$dollar", "notes2", strings.Repeat("a", MaxNameLength)} {
		if err := CheckNamespace(name); err != nil {
			t.Errorf("CheckNamespace(%q) = %v, want nil", name, err)
		}
	}
}

// Every global a real runtime has, after the prelude, is refused: the
// check reads them from the runtime, not only from a list.
func TestCheckNamespaceRefusesEveryGlobal(t *testing.T) {
	eng, err := loadEngine()
	if err != nil {
		t.Fatal(err)
	}
	r, err := newShell(eng, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := r.rt.GlobalObject().GetOwnPropertyNames()
	if len(names) < 40 {
		t.Fatalf("the runtime has only %d globals: %v", len(names), names)
	}
	for _, name := range names {
		if CheckNamespace(name) == nil {
			t.Errorf("CheckNamespace(%q) = nil for a global of the runtime", name)
		}
	}
}

// A namespace the check accepts installs and answers; one it refuses is
// refused by the run with the same check.
func TestCheckNamespaceAgreesWithRuns(t *testing.T) {
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, ns := range []string{"notes", "_x", "$y", "parseInt", "eval", "hub"} {
				req := request(t, "return typeof "+ns+".send;", nil, Limits{})
				req.Namespaces = []Namespace{{Name: ns, Tools: []string{"send"}}}
				out := d.Run(context.Background(), req)
				if CheckNamespace(ns) == nil {
					if out.Status != StatusCompleted || string(out.Result) != `"function"` {
						t.Errorf("namespace %s: %s %s %+v, want a function", ns, out.Status, out.Result, out.Error)
					}
				} else if out.Status != StatusFailed || out.Error == nil || out.Error.Code != CodeInvalidRequest {
					t.Errorf("namespace %s: %s %+v, want invalid_request", ns, out.Status, out.Error)
				}
			}
		})
	}
}
