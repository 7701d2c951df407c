package hub

import (
	"slices"
	"testing"

	"capabilities.sh/capabilities/hub/catalog"
)

// The order policy list shows is the order rules apply: every deny first,
// then the most specific.
func TestPolicyOrder(t *testing.T) {
	p := NewPolicy([]Rule{
		{Target: "github", Mode: Allow, From: OriginConfig, AllConnections: true},
		{Target: "github.create*", Mode: Ask, From: OriginConfig, AllConnections: true},
		{Target: "github.createIssue", Mode: Allow, From: OriginDialog, Remembered: true, Connection: "work", Hash: "h1"},
		{Target: "github.createIssue", Mode: Ask, From: OriginConfig, AllConnections: true},
		{Target: "github.c*", Mode: Allow, From: OriginConfig, AllConnections: true},
		{Target: "github", Mode: Deny, From: OriginCLI, AllConnections: true},
		{Target: "github.deleteRepo", Mode: Deny, From: OriginDialog, Remembered: true, AllConnections: true},
		{Target: "github.createIssue", Mode: Allow, From: OriginConfig, AllConnections: true},
	})
	var got []string
	for _, r := range p.Rules() {
		got = append(got, string(r.Mode)+" "+r.Target+" "+r.From)
	}
	want := []string{
		"deny github.deleteRepo dialog",
		"deny github cli",
		"allow github.createIssue dialog",
		"ask github.createIssue config",
		"allow github.createIssue config",
		"ask github.create* config",
		"allow github.c* config",
		"allow github config",
	}
	if !slices.Equal(got, want) {
		t.Errorf("order:\n%q\nwant\n%q", got, want)
	}
}

func TestNormalizeTarget(t *testing.T) {
	snap := catalog.NewSnapshot([]*catalog.Tool{
		{Source: "my-files", Namespace: "myFiles", Name: "read_text_file", JSName: "readTextFile", Address: "myFiles.readTextFile"},
		{Source: "memory", Namespace: "memory", Name: "open_nodes", JSName: "openNodes", Address: "memory.openNodes"},
	}, 1)
	cfg := testConfig(map[string]*Source{"my-files": {Command: "x"}, "memory": {Command: "x"}, "later": {Command: "x"}, "off": {Command: "x", Disabled: true}})
	for _, tc := range []struct {
		in, want string
		matches  int
		notUp    []string
		near     []string
	}{
		{"memory.open_nodes", "memory.openNodes", 1, nil, nil},
		{"memory.openNodes", "memory.openNodes", 1, nil, nil},
		{"my-files.*", "myFiles.*", 1, nil, nil},
		{"my-files", "myFiles", 1, nil, nil},
		{"my-files.read_text_file", "myFiles.readTextFile", 1, nil, nil},
		{"later.do_thing", "later.do_thing", 0, []string{"later"}, nil},
		{"memory.open_nodez", "memory.open_nodez", 0, nil, []string{"memory.open_nodes", "memory.openNodes"}},
		{"memroy", "memroy", 0, nil, []string{"memory"}},
	} {
		c := checkTarget(tc.in, snap, cfg)
		if c.Target != tc.want || c.Matches != tc.matches || !slices.Equal(c.NotUpYet, tc.notUp) || !slices.Equal(c.DidYouMean, tc.near) {
			t.Errorf("checkTarget(%q) = %+v, want %s matching %d, not up %v, near %v", tc.in, c, tc.want, tc.matches, tc.notUp, tc.near)
		}
		if (c.Warning() == "") != (tc.matches > 0) {
			t.Errorf("checkTarget(%q).Warning() = %q", tc.in, c.Warning())
		}
	}
}
