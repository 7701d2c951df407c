package oauth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// A document's flow sends the code, the PKCE verifier and a client secret
// to its endpoints: HTTPS, or plain HTTP on this machine only.
func TestEndpointProblem(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://auth.example.test/token":  true,
		"http://127.0.0.1:8080/token":      true,
		"http://localhost/token":           true,
		"http://[::1]:9/token":             true,
		"http://auth.example.test/token":   false,
		"http://127.0.0.1.example.test/t":  false,
		"ftp://auth.example.test/token":    false,
		"/token":                           false,
		"":                                 false,
		"javascript:alert(1)":              false,
		"https://auth.example.test:99/tok": true,
	} {
		if got := endpointProblem(u) == ""; got != ok {
			t.Errorf("endpointProblem(%q) = %q; want usable %v", u, endpointProblem(u), ok)
		}
	}
}

// A client's secret goes only where its first sign-in sent it: a REST
// API's document that names a token URL on another origin afterwards (a
// hostile document, or a moved server) gets no token request, and the
// error is the client form's; the same origin still signs in, and a new
// client given for the other server goes there.
func TestClientSecretBoundToItsTokenURL(t *testing.T) {
	a, b := hubtest.NewAuthServer(t), hubtest.NewAuthServer(t)
	a.Clients = map[string]string{"svc": "svc-secret"}
	b.Clients = map[string]string{"svc": "svc-secret", "svc-b": "b-secret"}
	kc := &hubtest.MemKeychain{}
	def := &config.Source{OpenAPI: "/api.json", Connections: map[string]*config.Connection{"default": {Default: true, OAuth: &config.OAuthConfig{ClientID: "svc"}}}}
	ctx := context.Background()
	signIn := func(tokenURL string) error {
		_, err := SignIn(ctx, SignInOptions{Source: "api", Conn: "default", Def: def, Keychain: kc,
			Flow: &Flow{Scheme: "cc", TokenURL: tokenURL, ClientCredentials: true, Resource: "http://127.0.0.1:9"}})
		return err
	}
	if err := SetClientSecret(kc, "api", "default", "svc-secret"); err != nil {
		t.Fatal(err)
	}
	if err := signIn(a.Srv.URL + "/token"); err != nil {
		t.Fatalf("the first sign-in: %v", err)
	}
	if err := signIn(a.Srv.URL + "/oauth/token"); err == nil || !strings.Contains(err.Error(), "getting a token at") {
		t.Fatalf("a token URL on the same origin: %v, want the server's refusal of a path it does not serve", err)
	}
	err := signIn(b.Srv.URL + "/token")
	if !errors.Is(err, ErrNeedsClientCredentials) || !strings.Contains(err.Error(), "the token URL of api is now "+b.Srv.URL+"/token; the secret of its client svc goes only to "+a.Srv.URL+"/token, where its first sign-in sent it;") || !errors.Is(err, ErrClientElsewhere) {
		t.Fatalf("a token URL on another origin: %v", err)
	}
	if n := b.Count("client_credentials"); n != 0 {
		t.Errorf("the other token URL got %d requests", n)
	}
	def.Connections["default"].OAuth.ClientID = "svc-b"
	if err := SetClientSecret(kc, "api", "default", "b-secret"); err != nil {
		t.Fatal(err)
	}
	if err := signIn(b.Srv.URL + "/token"); err != nil {
		t.Fatalf("a sign-in with a client of the other server: %v", err)
	}
	if got := b.SentSecrets(); !slices.Equal(got, []string{"b-secret"}) {
		t.Errorf("the other server got the secrets %q, want its own client's", got)
	}
}
