package catalog

import (
	"errors"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
)

// A source's note names its state in the model's words, and says nothing
// of a listed source unless asked to (always).
func TestSourceNote(t *testing.T) {
	src := &config.Source{Connections: map[string]*config.Connection{"work": {}}}
	listed := Listing{Tried: true, Listed: true}
	for _, tc := range []struct {
		name     string
		ls       Listing
		st       upstream.SourceState
		starting bool
		always   bool
		want     string // "" for no note
	}{
		{"starting", Listing{}, upstream.SourceState{}, true, false, "is still starting"},
		{"listed and up", listed, upstream.SourceState{State: upstream.SourceUp}, false, false, ""},
		{"listed, down, asked", listed, upstream.SourceState{State: upstream.SourceDown, Err: "exit 1"}, false, true, "from its last listing"},
		{"down for good", Listing{Tried: true}, upstream.SourceState{State: upstream.SourceDown, Err: "exit 1"}, false, false, "so its tools are not listed: exit 1. Tell the user"},
		{"down for now", Listing{Tried: true}, upstream.SourceState{State: upstream.SourceDown, Err: "refused", Retryable: true}, false, false, "may come back"},
		{"needs a secret", Listing{Tried: true}, upstream.SourceState{State: upstream.SourceNeedsSecret, Err: "no API_KEY"}, false, false, "`capabilities connection add my-files work`"},
		{"needs sign-in", Listing{Tried: true}, upstream.SourceState{State: upstream.SourceNeedsSignIn, Err: "401"}, false, false, "sign in before it can be used (401)"},
		{"not listed", Listing{Tried: true, Err: errors.New("bad schema")}, upstream.SourceState{State: upstream.SourceUp}, false, false, "could not be listed: bad schema."},
	} {
		got := SourceNote("my-files", src, tc.ls, tc.st, tc.starting, tc.always)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, got, tc.want)
		}
	}
}
