package openapi

import (
	"strings"
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

// TestSecretPlacePrefersASecret: asked about no operation in particular,
// a document whose first operation takes OAuth and whose next one takes an
// API key says the key's place; asked about the first, the access token's
// (a bearer token in Authorization).
func TestSecretPlacePrefersASecret(t *testing.T) {
	doc := &openapiDoc{
		schemes: map[string]*openapiScheme{
			"oauth": {name: "oauth", typ: "oauth2"},
			"key":   {name: "key", typ: "apiKey", in: "query", key: "api_key"},
		},
		ops: map[string]*openapiOp{
			"addPet":     {security: [][]string{{"oauth"}}},
			"getPetById": {security: [][]string{{"key"}, {"oauth"}}},
		},
	}
	if p, ok := doc.secretPlace(""); !ok || p != (SecretPlace{In: "query", Name: "api_key"}) {
		t.Errorf("secretPlace(\"\") = %+v, %v; want the query parameter api_key", p, ok)
	}
	token := SecretPlace{In: "header", Name: "Authorization", Prefix: "Bearer ", OAuth: true}
	if p, ok := doc.secretPlace("addPet"); !ok || p != token {
		t.Errorf("secretPlace(addPet) = %+v, %v; want %+v", p, ok, token)
	}
	delete(doc.ops, "getPetById")
	if p, ok := doc.secretPlace(""); !ok || p != token {
		t.Errorf("with only OAuth, secretPlace(\"\") = %+v, %v; want %+v", p, ok, token)
	}
}

// TestSchemeHowToNamesTheFlag: the person is told the one command that
// puts an API key where its scheme wants it.
func TestSchemeHowToNamesTheFlag(t *testing.T) {
	for _, c := range []struct {
		s    *openapiScheme
		want string
	}{
		{&openapiScheme{typ: "apiKey", in: "header", key: "X-API-KEY"}, "capabilities connection add api work --header X-API-KEY"},
		{&openapiScheme{typ: "apiKey", in: "query", key: "apiKey"}, "capabilities connection add api work --query apiKey"},
		{&openapiScheme{typ: "apiKey", in: "cookie", key: "api_key"}, "capabilities connection add api work --cookie api_key"},
	} {
		if got := schemeHowTo("api", "work", "k", c.s); !strings.HasSuffix(got, c.want) {
			t.Errorf("schemeHowTo(%+v) = %q, want it to end with %q", c.s, got, c.want)
		}
	}
}
