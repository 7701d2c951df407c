package openapi

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// The flow a REST API signs in with is the document's: of its schemes
// that offer an authorization code flow (with absolute URLs) or an OpenID
// Connect discovery URL, the one the most operations ask for, with the
// scopes they name; a baseUrl is where its token goes. Without one of
// those, a client credentials flow, which takes no person. A flow whose
// URLs are relative offers none.
func TestSignInFlow(t *testing.T) {
	loc := filepath.Join("testdata", "signin.yaml")
	data, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseOpenAPI(loc, data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := doc.signInFlow("api", &config.Source{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Scheme != "code" || f.AuthURL != "https://auth.example.test/authorize" || f.TokenURL != "https://auth.example.test/token" || f.Discovery != "" {
		t.Errorf("the flow: %+v; want scheme code's authorization code flow", f)
	}
	if !slices.Equal(f.Scopes, []string{"repo:read", "repo:write"}) {
		t.Errorf("the scopes: %q; want those the operations name, not admin", f.Scopes)
	}
	if f.Resource != "https://api.example.test:443" {
		t.Errorf("the tokens are for %q, want the server's origin", f.Resource)
	}
	if f, _ := doc.signInFlow("api", &config.Source{BaseURL: "http://127.0.0.1:8080/api"}); f.Resource != "http://127.0.0.1:8080" {
		t.Errorf("with a baseUrl the tokens are for %q, want its origin", f.Resource)
	}

	// Without the authorization code flow's operations, the OpenID
	// Connect scheme is next; without it, nothing.
	delete(doc.ops, "listRepos")
	delete(doc.ops, "createRepo")
	if f, err := doc.signInFlow("api", &config.Source{}); err != nil || f.Scheme != "oidc" || f.Discovery == "" || !slices.Equal(f.Scopes, []string{"openid"}) {
		t.Errorf("the flow without code's operations: %+v, %v; want oidc's discovery URL", f, err)
	}
	delete(doc.ops, "getMe")
	if f, err := doc.signInFlow("api", &config.Source{}); err != nil || f.Scheme != "machine" || !f.ClientCredentials || f.TokenURL != "https://auth.example.test/token" || f.AuthURL != "" {
		t.Errorf("the flow of a document with only a client credentials flow and a relative one: %+v, %v", f, err)
	}
	delete(doc.ops, "listJobs")
	if f, err := doc.signInFlow("api", &config.Source{}); err == nil || !strings.Contains(err.Error(), "offers no OAuth sign-in") {
		t.Errorf("a document with only a relative flow: %+v, %v; want no sign-in", f, err)
	}
	if s := doc.schemes["relative"]; s.authURL != "" || s.tokenURL != "" {
		t.Errorf("a relative flow's URLs were kept: %+v", s)
	}
}

// An operation that takes an OAuth scheme with a flow tells the person
// to sign in, and still how to give a token instead.
func TestSchemeHowToSignIn(t *testing.T) {
	s := &openapiScheme{typ: "oauth2", authURL: "https://a.test/authorize", tokenURL: "https://a.test/token"}
	got := schemeHowTo("api", "", "code", s)
	want := "an OAuth sign-in (code): capabilities connection login api default (or an access token: capabilities connection add api default --header Authorization --prefix 'Bearer ')"
	if got != want {
		t.Errorf("how to:\n got %s\nwant %s", got, want)
	}
	s.authURL, s.clientTokenURL = "", "https://a.test/token"
	if got := schemeHowTo("api", "work", "code", s); !strings.HasPrefix(got, "an OAuth client of the API (code): capabilities connection login api work --client-id ID --client-secret-stdin (or an access token: ") {
		t.Errorf("a scheme with a client credentials flow: %s", got)
	}
	s.clientTokenURL = ""
	if got := schemeHowTo("api", "work", "code", s); !strings.HasPrefix(got, "an OAuth access token (code): capabilities connection add api work") {
		t.Errorf("a scheme without a flow: %s", got)
	}
}
