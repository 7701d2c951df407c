package policy

import "testing"

func TestDecisionWords(t *testing.T) {
	for _, tc := range []struct {
		state, decision string
		remember        bool
		actor, channel  string
		want            string
	}{
		{"ok", "", false, "", "", "no approval asked (policy allowed it)"},
		{"pending", "", false, "", "", "waiting for a decision"},
		{"planned", "", false, "", "", "waiting for a decision on the run's plan"},
		{"ok", "allow", false, "dialog", ChannelDialog, "allowed once in the approval dialog"},
		{"ok", "allow", true, "ana", ChannelCLI, "always allowed by ana in the terminal"},
		{"ok", "allow", false, "terminal", ChannelCLI, "allowed once in the terminal"},
		{"error", "deny", false, "", ChannelClient, "denied in the client's form"},
		{"error", "deny", false, "", ChannelWindow, "denied in the window"},
		{"error", "deny", false, "", "expired", "denied when the approval expired"},
		{"error", "deny", true, "", "", "always denied"},
	} {
		if got := DecisionWords(tc.state, tc.decision, tc.remember, tc.actor, tc.channel); got != tc.want {
			t.Errorf("DecisionWords(%q, %q, %v, %q, %q) = %q, want %q", tc.state, tc.decision, tc.remember, tc.actor, tc.channel, got, tc.want)
		}
	}
}
