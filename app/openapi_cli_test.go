package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/testwait"
)

func TestSourceAddOpenAPI(t *testing.T) {
	home := t.TempDir()
	root, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples"))
	pets := filepath.Join(root, "3.0", "json", "petstore.json")
	r := cli(t, home, "", "source", "add", "pets", "--openapi", pets, "--base-url", "http://127.0.0.1:4010")
	if r.code != 0 || r.stdout != "Added source pets (namespace pets): 20 operations.\nIt takes an API key in header api_key; give it one with: printf %s \"$KEY\" | capabilities connection add pets default\n" {
		t.Fatalf("add: %+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || cfg.Sources["pets"].OpenAPI != pets || cfg.Sources["pets"].BaseURL != "http://127.0.0.1:4010" {
		t.Fatalf("config after add: %v %+v", err, cfg.Sources["pets"])
	}
	if r := cli(t, home, "", "source", "list"); !strings.Contains(r.stdout, "openapi") {
		t.Errorf("list does not say openapi:\n%s", r.stdout)
	}
	broken, _ := filepath.Abs(filepath.Join("..", "hub", "openapi", "testdata", "broken.json"))
	if r := cli(t, home, "", "source", "add", "bad", "--openapi", broken); r.code != exitFailure || !strings.Contains(r.stderr, broken+": not valid JSON: line 5") {
		t.Errorf("a broken document is refused with its place: %+v", r)
	}
	swagger := filepath.Join(root, "2.0", "json", "petstore.json")
	if r := cli(t, home, "", "source", "add", "old", "--openapi", swagger); r.code != exitFailure || !strings.Contains(r.stderr, "Swagger 2.0") {
		t.Errorf("Swagger 2.0 is refused: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "x", "--base-url", "http://h"); r.code != exitUsage {
		t.Errorf("--base-url alone is bad usage: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "y", "--openapi", pets, "--", "npx"); r.code != exitUsage {
		t.Errorf("--openapi with a command is bad usage: %+v", r)
	}
	cfg, _ = config.Load(filepath.Join(home, "config.json"))
	if len(cfg.Sources) != 1 {
		t.Errorf("refused sources were saved: %v", cfg.Sources)
	}
}

// TestSourceAddPlainHTTP checks that source add says when a source's
// credentials would go over plain http to another machine, and what the
// person can do; https and this machine need no word.
func TestSourceAddPlainHTTP(t *testing.T) {
	home := t.TempDir()
	pets, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"))
	r := cli(t, home, "", "source", "add", "pets", "--openapi", pets, "--base-url", "http://api.example.test:4010")
	if r.code != 0 || !strings.Contains(r.stdout, "Note: http://api.example.test:4010 is plain http on another machine: the hub sends pets's credentials there only over https, or with \"allowInsecureHttp\": true on the source in config.json.") {
		t.Errorf("an OpenAPI source over plain http: %+v", r)
	}
	r = cli(t, home, "", "source", "add", "remote", "--url", "http://mcp.example.test/mcp")
	if r.code != 0 || !strings.Contains(r.stdout, "Note: http://mcp.example.test is plain http on another machine") {
		t.Errorf("an MCP source over plain http: %+v", r)
	}
	for _, url := range []string{"https://mcp.example.test/mcp", "http://127.0.0.1:9/mcp", "http://localhost:9/mcp"} {
		if r := cli(t, home, "", "source", "add", "quiet", "--url", url, "--replace"); r.code != 0 || strings.Contains(r.stdout, "Note:") {
			t.Errorf("%s needs no note: %+v", url, r)
		}
	}
}

// TestSourceAddParsesOnce: the document source add checked is not parsed
// again by the hub: the parser child's output is in the home's cache, one
// file, and the hub started afterwards loads the source from it without a
// parser child of its own. Its status then says what the operations wait
// for.
func TestSourceAddParsesOnce(t *testing.T) {
	w := newWorld(t, 0)
	root, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples"))
	pets := filepath.Join(root, "3.0", "json", "petstore.json")
	if out, errOut, code := w.cli("", "source", "add", "pets", "--openapi", pets, "--base-url", "http://127.0.0.1:4010"); code != 0 {
		t.Fatalf("source add: %d\n%s%s", code, out, errOut)
	}
	cache := config.Paths{Home: w.home}.OpenAPICache()
	files, _ := filepath.Glob(filepath.Join(cache, "*.ops"))
	if len(files) != 1 {
		t.Fatalf("source add left %d parsed documents in %s; want 1", len(files), cache)
	}
	w.startHub()
	logFile := filepath.Join(config.Paths{Home: w.home}.Logs(), "hub.log")
	var log string
	testwait.For(t, time.Minute, "the hub to load pets", func() bool {
		b, _ := os.ReadFile(logFile)
		log = string(b)
		return strings.Contains(log, `msg="OpenAPI document loaded" source=pets`)
	})
	if strings.Contains(log, "parsed in a child process") {
		t.Errorf("the hub parsed the document source add had parsed:\n%s", log)
	}
	// The running hub's status names what pets's operations wait for.
	if out, _, _ := w.cli("", "hub", "status"); !strings.Contains(out, " of 20 operations wait for an OAuth access token (petstore_auth): capabilities connection add pets default") {
		t.Errorf("hub status does not say what pets waits for:\n%s", out)
	}
}

// TestConnectionAddOpenAPIPlacesTheSecret: for an OpenAPI source, a
// connection added without saying where its secret goes takes the place
// the document's security scheme names (Petstore's API key header, not
// the OAuth its writes ask for), --query and --cookie put it in a query
// parameter or cookie, a document that takes only OAuth takes it as an
// access token, and one that names no single secret is told where it can
// go.
func TestConnectionAddOpenAPIPlacesTheSecret(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	root, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json"))
	for name, doc := range map[string]string{"pets": "petstore.json", "oauth": "readme-extensions.json", "basic": "petstore-simple.json"} {
		if r := cli(t, home, "", "source", "add", name, "--openapi", filepath.Join(root, doc), "--base-url", "https://api.example.test"); r.code != 0 {
			t.Fatalf("source add %s: %+v", name, r)
		}
	}
	// Before any, the list says how to add one to a REST API: no place.
	if r := cli(t, home, "", "connection", "list"); r.code != 0 || !strings.Contains(r.stdout, "No connections. Add one with 'capabilities connection add SOURCE NAME', the secret read from stdin: a REST API's goes where its document says") {
		t.Fatalf("connection list before any: %+v", r)
	}
	r := cli(t, home, "key-one\n", "connection", "add", "pets", "work")
	if r.code != 0 || !strings.Contains(r.stdout, "Added connection work of pets; secret api_key stored in the keychain.\nIt is sent as header api_key, as the API's document says.\nIt goes to https://api.example.test only.\n") {
		t.Fatalf("connection add without a place: %+v", r)
	}
	r = cli(t, home, "key-two\n", "connection", "add", "pets", "q", "--query", "apiKey")
	if r.code != 0 || strings.Contains(r.stdout, "as the API's document says") {
		t.Fatalf("connection add --query: %+v", r)
	}
	if r := cli(t, home, "key-three\n", "connection", "add", "pets", "c", "--cookie", "session", "--secret", "sess"); r.code != 0 {
		t.Fatalf("connection add --cookie: %+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	conns := cfg.Sources["pets"].Connections
	if got := conns["work"].Headers["api_key"]; got != "${secret:api_key}" {
		t.Errorf("work's header api_key = %q", got)
	}
	if got := conns["q"].Query["apiKey"]; got != "${secret:apiKey}" {
		t.Errorf("q's query apiKey = %q", got)
	}
	if got := conns["c"].Cookies["session"]; got != "${secret:sess}" {
		t.Errorf("c's cookie session = %q", got)
	}
	for conn, ref := range map[string]string{"work": "api_key", "q": "apiKey", "c": "sess"} {
		if v, err := kc.Get(config.SecretKey("pets", conn, ref)); err != nil || !strings.HasPrefix(v, "key-") {
			t.Errorf("keychain %s/%s: %q, %v", conn, ref, v, err)
		}
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"basic", "work"}, exitUsage, "basic's document names no API key, bearer token or OAuth; say where the secret goes: --header NAME, --query NAME or --cookie NAME (a bearer token: --header Authorization --prefix 'Bearer ')"},
		{[]string{"pets", "x", "--env", "KEY"}, exitFailure, "source pets is not a stdio source; --env is for stdio sources"},
		{[]string{"pets", "x", "--query", "a", "--cookie", "b"}, exitUsage, "takes one of --env, --header, --query and --cookie"},
	} {
		if r := cli(t, home, "secret\n", append([]string{"connection", "add"}, tc.args...)...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("connection add %v: %+v, want %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
	cfg, _ = config.Load(filepath.Join(home, "config.json"))
	if len(cfg.Sources["basic"].Connections) != 0 || len(cfg.Sources["pets"].Connections) != 3 {
		t.Errorf("refused connections were saved: %+v %+v", cfg.Sources["basic"], cfg.Sources["pets"].Connections)
	}
	// A document that takes only OAuth takes the secret as an access
	// token: an OpenAPI source has no sign-in of its own.
	r = cli(t, home, "token-four\n", "connection", "add", "oauth", "work")
	if r.code != 0 || !strings.Contains(r.stdout, "It is sent as an OAuth access token in header Authorization (after \"Bearer \"), as the API's document says.") {
		t.Fatalf("connection add to an OAuth API: %+v", r)
	}
	cfg, _ = config.Load(filepath.Join(home, "config.json"))
	if got := cfg.Sources["oauth"].Connections["work"].Headers["Authorization"]; got != "Bearer ${secret:Authorization}" {
		t.Errorf("oauth's Authorization header = %q", got)
	}
	// Its OAuth scheme's flow is implicit, which the hub does not run:
	// there is no sign-in, and nothing changes.
	before, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if r := cli(t, home, "", "connection", "login", "oauth"); r.code != exitFailure ||
		!strings.Contains(r.stderr, "the OpenAPI document of oauth offers no OAuth sign-in (no oauth2 scheme with an authorization code or client credentials flow, no OpenID Connect URL that its operations use); give its connection a token or key with: capabilities connection add oauth") {
		t.Errorf("connection login on an OpenAPI source without a sign-in: %+v", r)
	}
	if after, _ := os.ReadFile(filepath.Join(home, "config.json")); string(after) != string(before) {
		t.Errorf("a refused login changed the config:\n%s", after)
	}
}

// TestDoctorSaysWhatAnAPIWaitsFor: doctor names the operations of an OpenAPI source that wait for credentials its default
// connection does not give, with the command that gives them, and stop
// once the connection gives them.
func TestDoctorSaysWhatAnAPIWaitsFor(t *testing.T) {
	home := t.TempDir()
	pets, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"))
	if r := cli(t, home, "", "source", "add", "pets", "--openapi", pets, "--base-url", "https://api.example.test"); r.code != 0 {
		t.Fatalf("source add: %+v", r)
	}
	r := cli(t, home, "", "doctor")
	if !strings.Contains(r.stdout, "[warn] credentials pets: ") || !strings.Contains(r.stdout, " of 20 operations wait for credentials the default connection does not give\n       fix: an OAuth access token (petstore_auth): capabilities connection add pets default --header Authorization --prefix 'Bearer '") {
		t.Errorf("doctor without a connection:\n%s", r.stdout)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sources["pets"].Connections = map[string]*config.Connection{"default": {Headers: map[string]string{"api_key": "${secret:api_key}", "Authorization": "Bearer ${secret:token}"}}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, home, "", "doctor"); strings.Contains(r.stdout, "credentials pets") {
		t.Errorf("doctor once the connection gives both:\n%s", r.stdout)
	}
}

// TestSourceAddRefusesURLPassword: a password in --url, --base-url or
// --openapi, or a key in the query of an API's or a document's URL, is
// refused before anything is fetched with it, with the way a connection
// takes it instead; config.json is not written.
func TestSourceAddRefusesURLPassword(t *testing.T) {
	home := t.TempDir()
	var fetched atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fetched.Add(1) }))
	defer srv.Close()
	withPassword := strings.Replace(srv.URL, "http://", "http://alice:pw-123@", 1)
	pets, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"))
	for _, tc := range []struct {
		args      []string
		err, hint string
	}{
		{[]string{"--url", withPassword + "/mcp"}, "--url holds a password; secrets never go into config.json",
			"add the source with --url " + srv.URL + "/mcp, then: printf 'Basic %s' \"$(printf %s 'USER:PASSWORD' | base64)\" | capabilities connection add docs default --header Authorization"},
		{[]string{"--openapi", pets, "--base-url", withPassword}, "--base-url holds a password", "add the source with --base-url " + srv.URL + ", then:"},
		{[]string{"--openapi", withPassword + "/openapi.json"}, "--openapi holds a password", "save it, then give its file to --openapi"},
		// A key in a URL's query: an API's goes to a connection, a
		// document's nowhere.
		{[]string{"--openapi", pets, "--base-url", srv.URL + "/v1?region=eu&api_key=pw-123"}, "--base-url's query parameter api_key looks like a secret",
			"add the source with --base-url '" + srv.URL + "/v1?region=eu', then: capabilities connection add docs default --query api_key"},
		{[]string{"--openapi", srv.URL + "/openapi.json?token=pw-123"}, "--openapi's query parameter token looks like a secret", "save it, then give its file to --openapi"},
		// A key in an API's path: the URL references it.
		{[]string{"--openapi", pets, "--base-url", srv.URL + "/bot123456789:AAHdqTcvCH1vGWJxfSeofSApw-123"}, "--base-url's path holds what looks like a secret",
			"add the source with --base-url '" + srv.URL + "/${secret:url_path}', then: capabilities connection add docs default  (reads the secret from stdin)"},
	} {
		r := cli(t, home, "", append([]string{"source", "add", "docs"}, tc.args...)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, tc.err) || !strings.Contains(r.stderr, tc.hint) || strings.Contains(r.stdout+r.stderr, "pw-123") {
			t.Errorf("%v: %+v", tc.args, r)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("%d requests went to the server", n)
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); !os.IsNotExist(err) {
		t.Errorf("config.json was written: %v", err)
	}
}

// TestSourceAddRefusesAQuerySecret: a URL whose query holds what looks
// like a secret is refused, with the URL without it and the command that
// gives it to a connection, which sends it as the same parameter; followed,
// config.json keeps a reference and the keychain the key.
func TestSourceAddRefusesAQuerySecret(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	r := cli(t, home, "", "source", "add", "docs", "--url", "https://mcp.example.com/mcp?api_key=abc123&region=eu")
	if r.code != exitFailure || !strings.Contains(r.stderr, "--url's query parameter api_key looks like a secret; secrets never go into config.json") ||
		!strings.Contains(r.stderr, "add the source with --url 'https://mcp.example.com/mcp?region=eu', then: capabilities connection add docs default --query api_key  (reads the secret from stdin") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(home, "config.json")); !os.IsNotExist(err) {
		t.Errorf("config.json was written: %v", err)
	}
	if r := cli(t, home, "", "source", "add", "docs", "--url", "https://mcp.example.com/mcp?region=eu"); r.code != 0 || strings.Contains(r.stdout, "Note:") {
		t.Fatalf("a query without secrets: %+v", r)
	}
	if r := cli(t, home, "abc123\n", "connection", "add", "docs", "default", "--query", "api_key"); r.code != 0 {
		t.Fatalf("connection add --query on an HTTP source: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(home, "config.json"))
	cfg, lerr := config.Load(filepath.Join(home, "config.json"))
	if err != nil || lerr != nil || strings.Contains(string(b), "abc123") || cfg.Sources["docs"].Connections["default"].Query["api_key"] != "${secret:api_key}" {
		t.Errorf("config.json: %s %v %v", b, err, lerr)
	}
	if v, err := kc.Get(config.SecretKey("docs", "default", "api_key")); v != "abc123" || err != nil {
		t.Errorf("the keychain holds %q, %v", v, err)
	}
	if r := cli(t, home, "abc123\n", "connection", "add", "docs", "default", "--cookie", "sid"); r.code != exitFailure || !strings.Contains(r.stderr, "--cookie is for OpenAPI sources") {
		t.Errorf("--cookie on an HTTP source: %+v", r)
	}
}

// TestSourceAddRefusesAPathSecret: a URL whose path holds what looks like a
// secret is refused, with the URL that references it instead; followed,
// the source has the connection that fills it in, and connection add
// stores it.
func TestSourceAddRefusesAPathSecret(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	kc := homeKeychain(t, home)
	const key = "NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U"
	r := cli(t, home, "", "source", "add", "zap", "--url", "https://mcp.zapier.com/api/mcp/s/"+key+"/mcp")
	template := "https://mcp.zapier.com/api/mcp/s/${secret:url_path}/mcp"
	if r.code != exitFailure || !strings.Contains(r.stderr, "--url's path holds what looks like a secret; secrets never go into config.json") ||
		!strings.Contains(r.stderr, "add the source with --url '"+template+"', then: capabilities connection add zap default  (reads the secret from stdin)") || strings.Contains(r.stderr, key) {
		t.Fatalf("%+v", r)
	}
	r = cli(t, home, "", "source", "add", "zap", "--url", template)
	if r.code != 0 || !strings.Contains(r.stdout, "Its URL takes a secret from the keychain; store it with: capabilities connection add zap default") {
		t.Fatalf("the URL that references it: %+v", r)
	}
	if r := cli(t, home, key+"\n", "connection", "add", "zap", "default"); r.code != 0 {
		t.Fatalf("connection add: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || strings.Contains(string(b), key) || cfg.Sources["zap"].URL != template || cfg.Sources["zap"].DefaultConnection() != "default" {
		t.Errorf("config.json: %s %v", b, err)
	}
	if v, err := kc.Get(config.SecretKey("zap", "default", "url_path")); v != key || err != nil {
		t.Errorf("the keychain holds %q, %v", v, err)
	}
	if r := cli(t, home, "", "connection", "list", "zap"); !strings.Contains(r.stdout, "url_path (stored)") {
		t.Errorf("connection list: %+v", r)
	}
}

// TestSourceAddBaseURLReference: an API whose base URL references a secret
// is added with the connection that fills it in, and says how to store it.
func TestSourceAddBaseURLReference(t *testing.T) {
	home := t.TempDir()
	pets, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"))
	r := cli(t, home, "", "source", "add", "bot", "--openapi", pets, "--base-url", "https://api.example.com/bot${secret:token}")
	if r.code != 0 || !strings.Contains(r.stdout, "Its base URL takes a secret from the keychain; store it with: capabilities connection add bot default  (reads the secret from stdin)") {
		t.Fatalf("%+v", r)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || cfg.Sources["bot"].DefaultConnection() != "default" || cfg.Sources["bot"].BaseURL != "https://api.example.com/bot${secret:token}" {
		t.Errorf("config.json: %+v %v", cfg, err)
	}
	if r := cli(t, home, "", "source", "add", "evil", "--openapi", pets, "--base-url", "https://${secret:token}.example.com"); r.code == 0 || !strings.Contains(r.stderr, "not in its host") {
		t.Errorf("a reference in the host: %+v", r)
	}
}

// TestSourceAddOrigin: an operation whose own server is on another origin
// is left out, and source add says so with the command that serves it;
// --origin serves it, and an --origin no operation calls is noted.
func TestSourceAddOrigin(t *testing.T) {
	home := t.TempDir()
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.com"}],
		"paths":{"/items":{"get":{"operationId":"list","responses":{"200":{"description":"ok"}}}},
		"/upload":{"post":{"operationId":"upload","servers":[{"url":"https://uploads.example.com/"}],"responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := cli(t, home, "", "source", "add", "api", "--openapi", doc)
	want := "Added source api (namespace api): 1 operation, 1 skipped (capabilities doctor lists them).\n" +
		"Note: One of its operations calls a server of its own on another origin (https://uploads.example.com), and is left out: the source's credentials go to the API's origin only. To serve it and send the credentials there too: capabilities source add api --openapi " + doc + " --origin https://uploads.example.com --replace\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("add: %+v\nwant %q", r, want)
	}
	r = cli(t, home, "", "source", "add", "api", "--openapi", doc, "--origin", "https://uploads.example.com", "--origin", "https://other.example.com", "--replace")
	want = "Added source api (namespace api): 2 operations.\nNote: no operation of the document calls --origin https://other.example.com; it serves nothing more.\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("add --origin: %+v\nwant %q", r, want)
	}
	cfg, err := config.Load(filepath.Join(home, "config.json"))
	if err != nil || strings.Join(cfg.Sources["api"].Origins, " ") != "https://uploads.example.com https://other.example.com" {
		t.Errorf("config.json: %+v %v", cfg.Sources["api"], err)
	}
	if r := cli(t, home, "", "source", "add", "bad", "--openapi", doc, "--origin", "https://uploads.example.com/v1"); r.code == 0 || !strings.Contains(r.stderr, `sources.bad.origins[0]: "https://uploads.example.com/v1" is more than an origin`) {
		t.Errorf("an origin with a path: %+v", r)
	}
	if r := cli(t, home, "", "source", "add", "mcp", "--url", "https://mcp.example.com/mcp", "--origin", "https://uploads.example.com"); r.code != exitUsage {
		t.Errorf("--origin on an MCP source: %+v", r)
	}
}
