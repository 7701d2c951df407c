package oauth

import "testing"

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
