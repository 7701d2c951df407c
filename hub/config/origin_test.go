package config

import (
	"strings"
	"testing"
)

// TestPlainHTTPNote: a note only where credentials go over plain http to
// another machine, saying whether the source allows it; an OpenAPI
// source's target is its baseUrl, else its document's server.
func TestPlainHTTPNote(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      *Source
		server string
		want   string // "" for no note, else a part of it
	}{
		{"https", &Source{URL: "https://mcp.example.com/mcp"}, "", ""},
		{"stdio", &Source{Command: "files"}, "", ""},
		{"this machine", &Source{URL: "http://127.0.0.1:8080/mcp"}, "", ""},
		{"plain http", &Source{URL: "http://mcp.example.com/mcp"}, "", `only over https, or with "allowInsecureHttp": true`},
		{"allowed", &Source{URL: "http://mcp.example.com/mcp", AllowInsecureHTTP: true}, "", "unencrypted"},
		{"openapi server", &Source{OpenAPI: "api.json"}, "http://api.example.com", "plain http on another machine"},
		{"openapi baseUrl", &Source{OpenAPI: "api.json", BaseURL: "https://api.example.com"}, "http://api.example.com", ""},
	} {
		got := tc.s.PlainHTTPNote("acme", tc.server)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
