package policy

import (
	"slices"
	"testing"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// The order policy list shows is the order rules apply: every deny first,
// then the most specific.
func TestPolicyOrder(t *testing.T) {
	p := New([]Rule{
		{Target: "github", Mode: config.Allow, From: OriginConfig, AllConnections: true},
		{Target: "github.create*", Mode: config.Ask, From: OriginConfig, AllConnections: true},
		{Target: "github.createIssue", Mode: config.Allow, From: OriginDialog, Remembered: true, Connection: "work", Hash: "h1"},
		{Target: "github.createIssue", Mode: config.Ask, From: OriginConfig, AllConnections: true},
		{Target: "github.c*", Mode: config.Allow, From: OriginConfig, AllConnections: true},
		{Target: "github", Mode: config.Deny, From: OriginCLI, AllConnections: true},
		{Target: "github.deleteRepo", Mode: config.Deny, From: OriginDialog, Remembered: true, AllConnections: true},
		{Target: "github.createIssue", Mode: config.Allow, From: OriginConfig, AllConnections: true},
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
	cfg := &config.Config{Sources: map[string]*config.Source{"my-files": {Command: "x"}, "memory": {Command: "x"}, "later": {Command: "x"}, "off": {Command: "x", Disabled: true}}, Policy: map[string]config.Mode{}}
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
		c := CheckTarget(tc.in, snap, cfg)
		if c.Target != tc.want || c.Matches != tc.matches || !slices.Equal(c.NotUpYet, tc.notUp) || !slices.Equal(c.DidYouMean, tc.near) {
			t.Errorf("checkTarget(%q) = %+v, want %s matching %d, not up %v, near %v", tc.in, c, tc.want, tc.matches, tc.notUp, tc.near)
		}
		if (c.Warning() == "") != (tc.matches > 0) {
			t.Errorf("checkTarget(%q).Warning() = %q", tc.in, c.Warning())
		}
	}
}

// TestChannelWords: the model is told where a person decided in words; a
// channel without words is named as it is.
func TestChannelWords(t *testing.T) {
	for channel, want := range map[string]string{ChannelDialog: "approval dialog", ChannelClient: "client's form", ChannelCLI: "terminal", ChannelWindow: "window"} {
		if got := ChannelWords(channel); got != want {
			t.Errorf("ChannelWords(%s) = %q, want %q", channel, got, want)
		}
	}
}
