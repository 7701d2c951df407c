package config

import "testing"

func TestRefPlace(t *testing.T) {
	s := &Source{
		Env:     map[string]string{"TOKEN": "${secret:TOKEN}"},
		Headers: map[string]string{"X-Shared": "${secret:SHARED}"},
		Connections: map[string]*Connection{
			"work": {
				Env:     map[string]string{"TOKEN": "${secret:WORK_TOKEN}"},
				Headers: map[string]string{"Authorization": "Bearer ${secret:API_KEY}"},
				Query:   map[string]string{"key": "${secret:QKEY}"},
				Cookies: map[string]string{"session": "${secret:SESSION}"},
			},
		},
	}
	for _, c := range []struct{ conn, ref, want string }{
		{"work", "WORK_TOKEN", "environment variable TOKEN"},
		{"work", "API_KEY", "header Authorization"},
		{"work", "QKEY", "query parameter key"},
		{"work", "SESSION", "cookie session"},
		{"work", "TOKEN", "environment variable TOKEN"},
		{"work", "SHARED", "header X-Shared"},
		{"", "TOKEN", "environment variable TOKEN"},
		{"work", "NOWHERE", "secret NOWHERE"},
	} {
		if got := s.RefPlace(c.conn, c.ref); got != c.want {
			t.Errorf("RefPlace(%q, %q) = %q, want %q", c.conn, c.ref, got, c.want)
		}
	}
}
