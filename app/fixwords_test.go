package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/upstream"
)

func TestStateFix(t *testing.T) {
	for _, tc := range []struct {
		state        upstream.SourceStateKind
		source, conn string
		want         string
	}{
		{upstream.SourceNeedsSecret, "github", "work", "capabilities connection add github work"},
		{upstream.SourceNeedsSecret, "petstore", "", "capabilities connection add petstore default"},
		{upstream.SourceNeedsSignIn, "linear", "me", "capabilities connection login linear me"},
		{upstream.SourceNeedsSignIn, "linear", "", "capabilities connection login linear"},
		{upstream.SourceUp, "github", "work", ""},
		{upstream.SourceDown, "github", "work", ""},
		{upstream.SourceIdle, "github", "", ""},
	} {
		if got := stateFix(tc.state, tc.source, tc.conn); got != tc.want {
			t.Errorf("stateFix(%s, %s, %q) = %q, want %q", tc.state, tc.source, tc.conn, got, tc.want)
		}
	}
}

func TestConnectionInputLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    hub.Approval
		want string
	}{
		{"a secret of a named connection",
			hub.Approval{Address: "github.listIssues", Source: "github", Connection: "work", Reason: "missing secret GITHUB_TOKEN"},
			"github.listIssues waits for a secret (connection work of github): run 'capabilities connection add github work' (the secret is read from stdin)"},
		{"a secret of a source with no connection yet",
			hub.Approval{Address: "petstore.getPet", Source: "petstore", Reason: "missing secret"},
			"petstore.getPet waits for a secret (no connection yet of petstore): run 'capabilities connection add petstore default' (the secret is read from stdin)"},
		{"a sign-in",
			hub.Approval{Address: "linear.listIssues", Source: "linear", Connection: "me", Reason: "sign-in needed"},
			"linear.listIssues waits for a sign-in (connection me of linear): run 'capabilities connection login linear me'"},
		{"a tool that left the catalog",
			hub.Approval{Address: "memory.readGraph", Connection: "default", Reason: "missing secret"},
			"memory.readGraph waits for a secret (connection default of memory): run 'capabilities connection add memory default' (the secret is read from stdin)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := connectionInputLine(tc.a)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if strings.Contains(got, `""`) || strings.Contains(got, "...") {
				t.Errorf("%q names no connection or leaves the command unsaid", got)
			}
		})
	}
}

// TestApproveNothingToDecide: a run with nothing pending (an unknown run,
// or one that waits only for a secret) is an error with a hint, exit 1;
// a secret it waits for is named with the command that adds it.
func TestApproveNothingToDecide(t *testing.T) {
	secret := hub.Approval{ID: "p1", RunID: "r_1", Kind: hub.KindConnection, Address: "petstore.getPet", Source: "petstore", Reason: "missing secret"}
	for _, tc := range []struct {
		name    string
		pend    []hub.Approval
		wantOut string
	}{
		{"unknown run", nil, ""},
		{"only a secret", []hub.Approval{secret}, "run 'capabilities connection add petstore default'"},
		// Another run's call is not this run's to decide, whatever the
		// hub answered.
		{"another run's", []hub.Approval{{ID: "p2", RunID: "r_2", Kind: hub.KindApproval, Address: "bank.transfer", Reason: "policy ask"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := approveLoop(&env{Stdout: &out, Stdin: strings.NewReader("")}, "r_1", tc.pend, true, false, false, func(id, d string) error {
				t.Errorf("decided %s=%s", id, d)
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), "run r_1 has no pending approvals") || hintOf(err) == "" || errors.As(err, new(*usageError)) {
				t.Errorf("error %v (hint %q), want no pending approvals with a hint, exit 1 (not bad usage)", err, hintOf(err))
			}
			if !strings.Contains(out.String(), tc.wantOut) || strings.Contains(out.String(), `""`) {
				t.Errorf("output %q, want %q in it", out.String(), tc.wantOut)
			}
		})
	}
}
