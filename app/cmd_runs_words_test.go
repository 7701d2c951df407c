package main

import (
	"testing"

	"capabilities.sh/capabilities/hub"
)

func TestDecisionWords(t *testing.T) {
	for _, tc := range []struct {
		c    hub.CallDetail
		want string
	}{
		{hub.CallDetail{State: "ok"}, "no approval asked (policy allowed it)"},
		{hub.CallDetail{State: "pending"}, "waiting for a decision"},
		{hub.CallDetail{State: "planned"}, "waiting for a decision on the run's plan"},
		{hub.CallDetail{State: "ok", Decision: "allow", Channel: "dialog", Actor: "dialog"}, "allowed once through dialog"},
		{hub.CallDetail{State: "ok", Decision: "allow", Remember: true, Channel: "cli", Actor: "ana"}, "always allowed by ana through cli"},
		{hub.CallDetail{State: "error", Decision: "deny", Channel: "expired"}, "denied when the approval expired"},
	} {
		if got := decisionWords(tc.c); got != tc.want {
			t.Errorf("decisionWords(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
