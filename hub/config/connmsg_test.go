package config

import (
	"strings"
	"testing"
)

func TestConnectionMessageNamesTheCommand(t *testing.T) {
	for _, tc := range []struct {
		source, conn string
		refs         []string
		want, not    []string
	}{
		{"my-docs", "work", []string{"TOKEN"}, []string{"capabilities connection add my-docs work --secret TOKEN (the secret is read from stdin"}, []string{"myDocs"}},
		{"gh", "personal", []string{"A", "B"}, []string{"capabilities connection add gh personal --secret A; capabilities connection add gh personal --secret B"}, nil},
		{"gh", "default", nil, []string{"capabilities connection add gh default (the secret"}, []string{"--secret"}},
		{"petstore", "", []string{"API_KEY"}, []string{"Source petstore (no connection yet) has no secret yet", "capabilities connection add petstore default --secret API_KEY"}, []string{`""`, "add petstore  "}},
		{"petstore", "", nil, []string{"capabilities connection add petstore default (the secret"}, []string{`""`}},
		{"linear", "", []string{OAuthSignInRef}, []string{"Source linear (no connection yet) needs the user to sign in", "`capabilities connection login linear`"}, []string{`""`}},
		{"linear", "me", []string{OAuthSignInRef}, []string{`Connection "me" of linear needs the user to sign in`, "`capabilities connection login linear me`"}, nil},
	} {
		msg := ConnectionMessage(tc.source, tc.conn, tc.refs)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("message %q lacks %q", msg, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(msg, n) {
				t.Errorf("message %q has %q", msg, n)
			}
		}
	}
}
