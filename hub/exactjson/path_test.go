package exactjson

import (
	"context"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
)

// TestAt: a walk ends with its context, and a path leads to the value as
// written, or says why there is none.
func TestAt(t *testing.T) {
	ctx := context.Background()
	deep := hubtest.DeepPadded(100, 100)
	path := strings.TrimSuffix(strings.Repeat("a.", 100), ".")

	// The walk ends with its context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := At(cctx, deep, strings.Split(path, ".")); err != context.Canceled {
		t.Errorf("a walk after its context ended: %v", err)
	}
	// Paths into the value: what is there, and what is not.
	for _, c := range []struct{ path, want, msg string }{
		{"a.pad", `"` + strings.Repeat("x", 100<<10) + `"`, ""},
		{"a.b", "", `a has no key "b" (its keys: a, pad)`},
		{"a.pad.x", "", "a.pad is a string, not an object or an array"},
	} {
		got, msg, err := At(ctx, deep, strings.Split(c.path, "."))
		if err != nil || string(got) != c.want || msg != c.msg {
			t.Errorf("%s: %.40s %q %v", c.path, got, msg, err)
		}
	}
	got, msg, _ := At(ctx, []byte(`{"rows":[{"n":1.000000000000000000001},{"n":2}]}`), []string{"rows", "0", "n"})
	if string(got) != "1.000000000000000000001" || msg != "" {
		t.Errorf("a number at a path: %s %q", got, msg)
	}
	if _, msg, _ := At(ctx, []byte(`{"rows":[1,2]}`), []string{"rows", "2"}); msg != `rows is an array of 2 items, and "2" is not one of its indexes` {
		t.Errorf("an index past the end: %q", msg)
	}
}

// TestExamplePath: the example names the first element or key, one level
// into an array it holds.
func TestExamplePath(t *testing.T) {
	for v, want := range map[string]string{
		`[{"a":1}]`: "0", `{"rows":[1,2],"n":1}`: "rows.0", `{"n":1,"rows":[]}`: "n", `{"a.b":1}`: "0",
		`{}`: "0", `"text"`: "", `12`: "", ``: "0",
	} {
		if got := ExamplePath([]byte(v)); got != want {
			t.Errorf("ExamplePath(%s) = %q, want %q", v, got, want)
		}
	}
}
