package openapi

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
)

// elsewhereDoc is a document on 127.0.0.1:9 with one operation whose own
// server is on 127.0.0.2:9 (as GitHub's release-asset upload is on
// uploads.github.com) and one whose path's server is on the API's origin.
const elsewhereDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9/v1"}],
	"paths":{
		"/items":{"get":{"operationId":"list","responses":{"200":{"description":"ok"}}}},
		"/upload":{"post":{"operationId":"upload","servers":[{"url":"http://127.0.0.2:9"}],"responses":{"200":{"description":"ok"}}}},
		"/v2/items":{"servers":[{"url":"http://127.0.0.1:9"}],"get":{"operationId":"listV2","responses":{"200":{"description":"ok"}}}}}}`

// TestOriginsServeElsewhere: an operation whose own server is on another
// origin than the API's is served only by a source whose "origins" lists
// that origin; its request names that server, whatever the source's
// baseUrl. A source that stops listing it stops serving it at once: a
// call made on the old listing is refused before anything is sent (the
// document's server and the other origin are a closed port here, so a
// request sent would fail otherwise).
func TestOriginsServeElsewhere(t *testing.T) {
	file := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(file, []byte(elsewhereDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	src := New(Options{})
	defer src.Close()
	list := func(def *config.Source) (map[string]string, []string) {
		t.Helper()
		src.SetConfig(&config.Config{Sources: map[string]*config.Source{"api": def}})
		tools, err := src.ListTools(context.Background(), "api")
		var partial *upstream.ListingLimitError
		var warnings []string
		if errors.As(err, &partial) {
			warnings = partial.Warnings
		} else if err != nil {
			t.Fatal(err)
		}
		servers := map[string]string{}
		for _, tool := range tools {
			servers[tool.Name] = serverOf(tool)
		}
		return servers, warnings
	}

	const why = `skipped POST /upload: its own server http://127.0.0.2:9 is not on the API's origin (http://127.0.0.1:9), and a source's credentials go to that origin only; to serve it and send them there too, add "origins": ["http://127.0.0.2:9"] to the source in config.json`
	servers, warnings := list(&config.Source{OpenAPI: file})
	if want := map[string]string{"list": "http://127.0.0.1:9/v1", "listV2": "http://127.0.0.1:9"}; !maps.Equal(servers, want) || !slices.Equal(warnings, []string{why}) {
		t.Errorf("without origins: %v %q", servers, warnings)
	}
	for _, allowed := range []string{"http://127.0.0.2:9", "HTTP://127.0.0.2:9/"} {
		servers, warnings = list(&config.Source{OpenAPI: file, Origins: []string{allowed}, BaseURL: "http://localhost:4010"})
		if want := map[string]string{"list": "http://localhost:4010", "listV2": "http://localhost:4010", "upload": "http://127.0.0.2:9"}; !maps.Equal(servers, want) || len(warnings) != 0 {
			t.Errorf("origins %s: %v %q", allowed, servers, warnings)
		}
	}
	// The person takes the origin away; a run still holding the old
	// listing calls it.
	if _, warnings = list(&config.Source{OpenAPI: file, Origins: []string{"https://uploads.example.com"}}); !slices.Equal(warnings, []string{why}) {
		t.Errorf("another origin listed: %q", warnings)
	}
	_, err := src.Call(context.Background(), "api", "", "upload", nil, &upstream.RESTRequest{Method: "POST", Path: "/upload", Server: "http://127.0.0.2:9"})
	if err == nil || !strings.Contains(err.Error(), "calling upload: not sent: its own server http://127.0.0.2:9 is not on the API's origin") {
		t.Errorf("a call on the old listing: %v", err)
	}

	rep, err := (*Child)(nil).Inspect(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Operations != 2 || !slices.Equal(rep.Skipped, []string{why}) || len(rep.Elsewhere) != 1 || rep.Elsewhere["http://127.0.0.2:9"] != 1 {
		t.Errorf("the report: %+v", rep)
	}
}

// serverOf is the server of the request a listed tool carries.
func serverOf(tool *mcp.Tool) string {
	if r, ok := tool.Meta[upstream.RequestMeta].(*upstream.RESTRequest); ok {
		return r.Server
	}
	return ""
}

// TestElsewhereKeepsItsServer: a source whose baseUrl holds a secret (a
// key in the API's path) sends an operation on a listed origin to that
// origin's server, not to the filled-in baseUrl; the API's own operation
// goes to the filled-in baseUrl.
func TestElsewhereKeepsItsServer(t *testing.T) {
	type hit struct{ host, path string }
	hits := make(chan hit, 4)
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- hit{r.Host, r.URL.EscapedPath()}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	})
	apiSrv, otherSrv := serveOn(t, "127.0.0.1:0", record), serveOn(t, "127.0.0.2:0", record)
	doc := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"` + apiSrv + `"}],
		"paths":{"/items":{"get":{"operationId":"list","responses":{"200":{"description":"ok"}}}},
		"/upload":{"post":{"operationId":"upload","servers":[{"url":"` + otherSrv + `"}],"responses":{"200":{"description":"ok"}}}}}}`
	file := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := &hubtest.MemKeychain{}
	kc.Set(config.SecretKey("api", "default", "token"), "k-123")
	src := New(Options{Keychain: kc})
	defer src.Close()
	def := &config.Source{OpenAPI: file, BaseURL: apiSrv + "/bot${secret:token}", Origins: []string{otherSrv},
		Connections: map[string]*config.Connection{"default": {Default: true}}}
	src.SetConfig(&config.Config{Sources: map[string]*config.Source{"api": def}})
	tools, err := src.ListTools(context.Background(), "api")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*upstream.RESTRequest{}
	for _, tool := range tools {
		listed[tool.Name], _ = tool.Meta[upstream.RequestMeta].(*upstream.RESTRequest)
	}
	for name, want := range map[string]hit{"list": {strings.TrimPrefix(apiSrv, "http://"), "/botk-123/items"}, "upload": {strings.TrimPrefix(otherSrv, "http://"), "/upload"}} {
		if _, err := src.Call(context.Background(), "api", "", name, nil, listed[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := <-hits; got != want {
			t.Errorf("%s went to %+v, want %+v", name, got, want)
		}
	}
}

// serveOn serves h on addr ("127.0.0.2:0") and returns its URL.
func serveOn(t *testing.T, addr string, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}
