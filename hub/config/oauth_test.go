package config

import (
	"strings"
	"testing"
)

func TestOAuthConfigErrors(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"clientSecret":"x"}}}}}}`, "sources.s.connections.c.oauth.clientSecret"},
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"scopes":"a b"}}}}}}`, "sources.s.connections.c.oauth.scopes"},
		{`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"oauth":{"clientMetadataUrl":"http://x.example/c"}}}}}}`, "sources.s.connections.c.oauth.clientMetadataUrl"},
		{`{"sources":{"s":{"command":"x","connections":{"c":{"oauth":{}}}}}}`, "only an HTTP source"},
	} {
		_, err := Parse("config.json", []byte(tc.conf))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.conf, err, tc.want)
		}
	}
	cfg, err := Parse("config.json", []byte(`{"sources":{"s":{"url":"https://x.example/mcp","connections":{"c":{"default":true,"oauth":{"clientId":"abc","scopes":["read","write"],"redirectPort":8765}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Sources["s"].Connections["c"].OAuth
	if o == nil || o.ClientID != "abc" || len(o.Scopes) != 2 || o.RedirectPort != 8765 || !cfg.Sources["s"].IsOAuth("c") {
		t.Fatalf("parsed %+v", o)
	}
	if err := cfg.Validate("config.json"); err != nil {
		t.Fatalf("a saved oauth object does not parse again: %v", err)
	}
}
