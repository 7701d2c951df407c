package hub

import (
	"slices"
	"strings"
	"testing"
)

func TestConnectionReasonNamesTheConnection(t *testing.T) {
	for _, tc := range []struct {
		conn    string
		missing []string
		want    string
	}{
		{"work", []string{"TOKEN"}, "connection work has no secret yet"},
		{"", []string{"TOKEN"}, "the source has no connection yet, so no secret"},
		{"me", []string{OAuthSignInRef}, signInReason + " for connection me"},
		{"", []string{OAuthSignInRef}, signInReason + "; the source has no connection yet"},
	} {
		got := connectionReason(tc.conn, tc.missing)
		if got != tc.want {
			t.Errorf("connectionReason(%q, %v) = %q, want %q", tc.conn, tc.missing, got, tc.want)
		}
		if slices.Contains(tc.missing, OAuthSignInRef) != strings.HasPrefix(got, signInReason) {
			t.Errorf("connectionReason(%q, %v) = %q: a sign-in's reason starts with %q, a secret's does not", tc.conn, tc.missing, got, signInReason)
		}
	}
}
