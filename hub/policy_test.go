package hub

import (
	"strings"
	"testing"
)

func TestPolicyPrecedence(t *testing.T) {
	rules := map[string]Mode{
		"github.createIssue": Deny,
		"github.create*":     Allow,
		"github.*":           Ask,
		"github":             Deny,
		"fs":                 Allow,
		"my-docs":            Deny,
	}
	remembered := map[string]Mode{"github.createComment": Deny}
	p := NewPolicy(rules, remembered)
	for _, tc := range []struct {
		in       PolicyInput
		mode     Mode
		rule     string
		inReason string
	}{
		{PolicyInput{Source: "github", Namespace: "github", Address: "github.createIssue"}, Deny, "github.createIssue", "policy deny"},
		{PolicyInput{Source: "github", Namespace: "github", Address: "github.createPullRequest"}, Allow, "github.create*", "policy allow"},
		{PolicyInput{Source: "github", Namespace: "github", Address: "github.createComment"}, Deny, "remembered", "remembered"},
		{PolicyInput{Source: "github", Namespace: "github", Address: "github.listIssues", ReadOnly: true}, Ask, "github.*", "policy ask"},
		{PolicyInput{Source: "fs", Namespace: "fs", Address: "fs.writeFile"}, Allow, "fs", "policy allow"},
		{PolicyInput{Source: "my-docs", Namespace: "myDocs", Address: "myDocs.read"}, Deny, "my-docs", "policy deny"},
		{PolicyInput{Source: "mem", Namespace: "mem", Address: "mem.readGraph", ReadOnly: true}, Allow, "default", "read-only"},
		{PolicyInput{Source: "mem", Namespace: "mem", Address: "mem.createEntities"}, Ask, "default", "not marked read-only"},
		{PolicyInput{Source: "mem", Namespace: "mem", Address: "mem.readGraph", ReadOnly: true, Changed: true}, Ask, "default", "changed tool definition"},
		{PolicyInput{Source: "fs", Namespace: "fs", Address: "fs.readFile", Changed: true}, Ask, "fs", "changed tool definition"},
	} {
		d := p.Decide(tc.in)
		if d.Mode != tc.mode || d.Rule != tc.rule || !strings.Contains(d.Reason, tc.inReason) {
			t.Errorf("Decide(%s) = %+v, want %s by %s (%q)", tc.in.Address, d, tc.mode, tc.rule, tc.inReason)
		}
	}
}
