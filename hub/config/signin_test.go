package config

import "testing"

// The connection a sign-in keeps its client and tokens under, and the
// change that makes a connection sign in.
func TestSignInConnectionAndPutOAuth(t *testing.T) {
	api := &Source{OpenAPI: "api.json"}
	if conn, err := api.SignInConnection("api", ""); conn != "default" || err != nil {
		t.Errorf("a REST API without connections: %q, %v", conn, err)
	}
	if conn, err := (&Source{URL: "https://mcp.example.test"}).SignInConnection("m", ""); conn != "" || err != nil {
		t.Errorf("an HTTP source without connections: %q, %v", conn, err)
	}
	two := &Source{URL: "https://mcp.example.test", Connections: map[string]*Connection{"a": {}, "b": {}}}
	if _, err := two.SignInConnection("m", ""); err == nil {
		t.Error("several connections and no default gave a connection")
	}
	if conn, _ := two.SignInConnection("m", "b"); conn != "b" {
		t.Errorf("a named connection: %q", conn)
	}
	// A client registered beforehand is kept in a connection.
	if conn, err := (&Source{URL: "https://mcp.example.test"}).ClientConnection("m", ""); conn != "default" || err != nil {
		t.Errorf("the client of an HTTP source without connections: %q, %v", conn, err)
	}
	if _, err := two.ClientConnection("m", ""); err == nil {
		t.Error("several connections and no default gave a connection for the client")
	}

	if !api.PutOAuth("default", "", 0) || api.Connections["default"].OAuth == nil || api.DefaultConnection() != "default" {
		t.Fatalf("PutOAuth on a source without connections: %+v", api.Connections)
	}
	if api.PutOAuth("default", "", 0) {
		t.Error("PutOAuth changed a connection that already signs in")
	}
	if !api.PutOAuth("default", "pre-1", 8765) || api.Connections["default"].OAuth.ClientID != "pre-1" || api.Connections["default"].OAuth.RedirectPort != 8765 {
		t.Errorf("PutOAuth with a client: %+v", api.Connections["default"].OAuth)
	}
}
