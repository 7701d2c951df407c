package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpenAPIConfig(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "api.json")
	tests := []struct {
		name, json string
		want       []string // problems; none when the config is valid
	}{
		{"file", `{"sources": {"api": {"openapi": "` + abs + `", "baseUrl": "http://127.0.0.1:9/v1"}}}`, nil},
		{"url", `{"sources": {"api": {"openapi": "https://example.com/openapi.json", "connections": {"me": {"query": {"key": "${secret:key}"}}}}}}`, nil},
		{"relative file", `{"sources": {"api": {"openapi": "api.json"}}}`, []string{"sources.api.openapi: a file path must be absolute"}},
		{"other scheme", `{"sources": {"api": {"openapi": "ftp://example.com/a.json"}}}`, []string{"sources.api.openapi: must be an http:// or https:// URL or a file path"}},
		{"bad baseUrl", `{"sources": {"api": {"openapi": "` + abs + `", "baseUrl": "example.com"}}}`, []string{"sources.api.baseUrl: must be an http:// or https:// URL"}},
		{"baseUrl alone", `{"sources": {"api": {"baseUrl": "https://example.com"}}}`, []string{"sources.api.baseUrl: belongs to OpenAPI sources"}},
		{"mixed with mcp", `{"sources": {"api": {"openapi": "` + abs + `", "command": "x"}}}`, []string{"sources.api: has \"openapi\" and \"command\" or \"url\""}},
		{"env connection", `{"sources": {"api": {"openapi": "` + abs + `", "connections": {"me": {"env": {"K": "${secret:k}"}}}}}}`, []string{"sources.api.connections.me.env: env belongs to stdio sources"}},
		{"cookies on mcp", `{"sources": {"api": {"url": "https://h/mcp", "connections": {"me": {"cookies": {"k": "${secret:k}"}}}}}}`, []string{"sources.api.connections.me.cookies: \"cookies\" belong to OpenAPI sources"}},
		{"origins", `{"sources": {"api": {"openapi": "` + abs + `", "origins": ["https://uploads.example.com", "http://127.0.0.2:8080/"]}}}`, nil},
		{"origin with a path", `{"sources": {"api": {"openapi": "` + abs + `", "origins": ["https://uploads.example.com/v1", "uploads.example.com", "https://u:p@h.example.com"]}}}`, []string{
			`sources.api.origins[0]: "https://uploads.example.com/v1" is more than an origin: write its scheme, host and port only (https://uploads.example.com)`,
			`sources.api.origins[1]: "uploads.example.com" is not an origin`,
			`sources.api.origins[2]: "https://u:p@h.example.com" is more than an origin`}},
		{"origins not a list", `{"sources": {"api": {"openapi": "` + abs + `", "origins": "https://uploads.example.com"}}}`, []string{"sources.api.origins: must be an array of origins"}},
		{"origins on mcp", `{"sources": {"api": {"url": "https://h/mcp", "origins": ["https://uploads.example.com"]}}}`, []string{"sources.api.origins: belongs to OpenAPI sources"}},
		{"query on stdio", `{"sources": {"api": {"command": "x", "connections": {"me": {"query": {"k": "${secret:k}"}}}}}}`, []string{"sources.api.connections.me.query: \"query\" belongs to HTTP and OpenAPI sources"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("config.json", []byte(tc.json))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				b, _ := json.Marshal(cfg)
				again, err := Parse("config.json", b)
				if err != nil {
					t.Fatalf("saved config does not parse: %v", err)
				}
				if diff := cmp.Diff(cfg.Sources["api"], again.Sources["api"], cmp.AllowUnexported(Source{}, Connection{})); diff != "" {
					t.Errorf("round trip: %s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), "config.json: "+w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
