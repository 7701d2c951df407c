package openapi

import (
	"encoding/json"
	"testing"
)

// dropProperties keeps every other member and property in its order, and
// a required list it empties goes.
func TestDropProperties(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"object","properties":{"a":{"type":"number"},"key":{"type":"string"},"b":{}},"required":["key"],"additionalProperties":false}`: `{"type":"object","properties":{"a":{"type":"number"},"b":{}},"additionalProperties":false}`,
		`{"required":["a","key"],"properties":{"key":{},"a":{"description":"x \"y\""}},"type":"object"}`:                                        `{"required":["a"],"properties":{"a":{"description":"x \"y\""}},"type":"object"}`,
	} {
		got, err := dropProperties(json.RawMessage(in), []string{"key"})
		if err != nil || string(got) != want {
			t.Errorf("dropProperties(%s)\n got %s, %v\nwant %s", in, got, err, want)
		}
	}
	if _, err := dropProperties(json.RawMessage(`[1]`), []string{"key"}); err == nil {
		t.Error("an input schema that is no object is taken")
	}
}

// authParam: a credential's name and a description that says it
// authenticates, on an operation with security.
func TestAuthParam(t *testing.T) {
	for _, tt := range []struct {
		in, name, desc string
		secured, want  bool
	}{
		{"header", "token", "Authentication token. Requires scope: `chat:write`", true, true},
		{"query", "token", "Access token to use if unable to set a header", true, true},
		{"query", "access_token", "OAuth Token", true, true},
		{"header", "X-Auth-Token", "Authorizes the request.", true, true},
		{"header", "token", "Authentication token.", false, false},
		{"query", "token", "The invite token to resolve", true, false},
		{"query", "token", "Token received from the finding report endpoint.", true, false},
		{"query", "ApiKey", "Bigcommerce API Key", true, false},
		{"query", "page_token", "Authentication is not needed for the next page.", true, false},
		{"path", "token", "Authentication token.", true, false},
	} {
		if got := authParam(tt.in, tt.name, tt.desc, tt.secured); got != tt.want {
			t.Errorf("authParam(%q, %q, %q, %v) = %v, want %v", tt.in, tt.name, tt.desc, tt.secured, got, tt.want)
		}
	}
}
