package sandbox

import (
	"context"
	"testing"
)

// Runtimes are prepared before their run is known. These runs check that
// a prepared runtime never carries the wrong namespaces, caps or state.
func TestPreparedRuntimes(t *testing.T) {
	other := []Namespace{{Name: "notion", Tools: []string{"search"}}}
	probe := `return [typeof github, typeof notion, typeof leaked]`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			run := func(nss []Namespace, code string, limits Limits) Outcome {
				t.Helper()
				req := request(t, code, nil, limits)
				req.Namespaces = nss
				return d.Run(context.Background(), req)
			}
			steps := []struct {
				nss    []Namespace
				code   string
				limits Limits
				want   string // result, or the error code after "!"
			}{
				{testNamespaces, `globalThis.leaked = 1; return typeof github`, Limits{}, `"object"`},
				{testNamespaces, probe, Limits{}, `["object","undefined","undefined"]`},
				{other, probe, Limits{}, `["undefined","object","undefined"]`},
				{other, `return Object.keys(notion)`, Limits{}, `["search"]`},
				{testNamespaces, probe, Limits{}, `["object","undefined","undefined"]`},
				{nil, probe, Limits{}, `["undefined","undefined","undefined"]`},
				// 4M characters: under the default cap (16M), above the cap
				// of an 8 MB memory limit (2M).
				{testNamespaces, `return 'x'.repeat(4 << 20).length`, Limits{}, `4194304`},
				{testNamespaces, `return 'x'.repeat(4 << 20).length`, Limits{MemoryBytes: 8 << 20}, `!` + CodeMemoryLimit},
				{testNamespaces, `return 'x'.repeat(4 << 20).length`, Limits{}, `4194304`},
			}
			for i, s := range steps {
				o := run(s.nss, s.code, s.limits)
				got := string(o.Result)
				if o.Status != StatusCompleted {
					got = "!" + errCode(o)
				}
				if got != s.want {
					t.Fatalf("step %d: got %s, want %s: %s", i, got, s.want, describeOutcome(o))
				}
			}
		})
	}
}
