package hub

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
	} {
		msg := connectionMessage(tc.source, tc.conn, tc.refs)
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
