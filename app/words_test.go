package main

import (
	"bytes"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
)

func TestVersionFlag(t *testing.T) {
	home := t.TempDir()
	want := cli(t, home, "", "version")
	for _, flag := range []string{"--version", "-version"} {
		r := cli(t, home, "", flag)
		if r.code != exitOK || !strings.HasPrefix(r.stdout, "capabilities "+version) || r.stdout != want.stdout {
			t.Errorf("capabilities %s: exit %d, stdout %q, stderr %q; want what 'capabilities version' prints, %q", flag, r.code, r.stdout, r.stderr, want.stdout)
		}
	}
}

// TestApproveExpired: approving a run whose approvals all expired decides
// nothing, so it is an error with exit 1, not "Decided."; a run with one
// expired and one live approval decides the live one and says both.
func TestApproveExpired(t *testing.T) {
	expired := hub.Approval{ID: "p1", RunID: "r_1", Kind: hub.KindApproval, Address: "memory.deleteEntities", Connection: "default", Reason: "policy asks", Preview: "{}", Expired: true}
	live := hub.Approval{ID: "p2", RunID: "r_1", Kind: hub.KindApproval, Address: "memory.createEntities", Connection: "default", Reason: "policy asks", Preview: "{}"}
	for _, tc := range []struct {
		name      string
		pend      []hub.Approval
		wantErr   string
		wantOut   string
		decisions []string
	}{
		{"all expired", []hub.Approval{expired}, "run r_1: 1 approval(s) expired and nothing was decided", "This approval expired", nil},
		{"one of two expired", []hub.Approval{expired, live}, "", "Decided 1; 1 expired. The model continues", []string{"p2=" + hub.AllowOnce}},
		{"none expired", []hub.Approval{live}, "", "Decided. The model continues", []string{"p2=" + hub.AllowOnce}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var decided []string
			err := approveLoop(&env{Stdout: &out, Stdin: strings.NewReader("")}, "r_1", tc.pend, true, false, false, func(id, d string) error {
				decided = append(decided, id+"="+d)
				return nil
			})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || hintOf(err) == "" {
					t.Errorf("error %v (hint %q), want %q with a hint", err, hintOf(err), tc.wantErr)
				}
			} else if err != nil {
				t.Errorf("error %v", err)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output %q, want %q in it", out.String(), tc.wantOut)
			}
			if strings.Join(decided, ",") != strings.Join(tc.decisions, ",") {
				t.Errorf("decided %v, want %v", decided, tc.decisions)
			}
		})
	}
}
