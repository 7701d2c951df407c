package openapi

import (
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

func TestSecretPlaceWords(t *testing.T) {
	for _, c := range []struct {
		p    SecretPlace
		want string
	}{
		{SecretPlace{In: "header", Name: "X-API-Key"}, "header X-API-Key"},
		{SecretPlace{In: "query", Name: "api_key"}, "query parameter api_key"},
		{SecretPlace{In: "cookie", Name: "session"}, "cookie session"},
	} {
		if got := c.p.Where(); got != c.want {
			t.Errorf("Where of %+v = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestSecretPlacePut(t *testing.T) {
	c := &config.Connection{Headers: map[string]string{"X-Other": "kept"}}
	SecretPlace{In: "header", Name: "Authorization", Prefix: "Bearer "}.Put(c)
	SecretPlace{In: "query", Name: "api_key"}.Put(c)
	SecretPlace{In: "cookie", Name: "session"}.Put(c)
	if c.Headers["Authorization"] != "Bearer ${secret:Authorization}" || c.Headers["X-Other"] != "kept" {
		t.Errorf("headers = %v", c.Headers)
	}
	if c.Query["api_key"] != "${secret:api_key}" || c.Cookies["session"] != "${secret:session}" {
		t.Errorf("query = %v, cookies = %v", c.Query, c.Cookies)
	}
}
