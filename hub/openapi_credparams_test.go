package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// A document that declares its API key as a plain query parameter, with
// no security scheme ("key: Your API key"), and a connection that sends
// the key there: the model is not asked for it (describe shows no key, and
// no required one), the call goes out with the connection's key, a model
// that sets it anyway is refused, and without the connection the
// parameter is the model's again.
func TestCredentialParametersLeaveTheInput(t *testing.T) {
	ctx := context.Background()
	api, apiLog := startLoggingServer(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"temp":21}`)
	}))
	doc := filepath.Join(t.TempDir(), "wx.json")
	if err := writeTestFile(doc, `{"openapi":"3.0.3","info":{"title":"wx","version":"1"},"servers":[{"url":"`+api.URL+`"}],
		"paths":{"/forecast":{"get":{"operationId":"forecast","summary":"Get the forecast",
			"parameters":[
				{"name":"lat","in":"query","required":true,"schema":{"type":"number"}},
				{"name":"key","in":"query","required":true,"description":"Your API key.","schema":{"type":"string"}},
				{"name":"X-Trace","in":"header","schema":{"type":"string"}}],
			"responses":{"200":{"description":"ok"}}}}}}`); err != nil {
		t.Fatal(err)
	}
	kc := &svcMemKeychain{m: map[string]string{}}
	key := "wxk_" + strings.Repeat("4", 28)
	kc.Set(config.SecretKey("wx", "default", "key"), key)
	src := &config.Source{OpenAPI: doc,
		Connections: map[string]*config.Connection{"default": {Query: map[string]string{"key": "${secret:key}"}}}}
	h := newOpenAPIHub(t, "wx", src, map[string]config.Mode{"wx.forecast": config.Allow}, Options{Keychain: kc})

	decl, err := h.Describe(ctx, DescribeRequest{Targets: []string{"wx.forecast"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(decl, "key") || !strings.Contains(decl, "lat: number") || !strings.Contains(decl, `"X-Trace"?: string`) {
		t.Errorf("describe asks for the key, or lost another parameter:\n%s", decl)
	}
	env := execCode(t, h, `return await wx.forecast({ lat: 52.5 });`)
	if env.Status != StatusCompleted {
		t.Fatalf("the call: %s", envJSON(env))
	}
	if got := apiLog.find("/forecast"); len(got) != 1 || got[0].URI != "/forecast?lat=52.5&key="+key {
		t.Errorf("the API did not get the connection's key: %+v", got)
	}
	env = execCode(t, h, `try { await wx.forecast({ lat: 1, key: "mine" }); return ""; } catch (e) { return e.code + ": " + e.message; }`)
	var msg string
	json.Unmarshal(env.Result, &msg)
	if !strings.HasPrefix(msg, "invalid_arguments: ") || !strings.Contains(msg, `parameter "key" would set the query key "key", which the connection's credentials set`) {
		t.Errorf("a model's key: %s", envJSON(env))
	}
	if n := len(apiLog.find("/forecast")); n != 1 {
		t.Errorf("the refused call reached the API: %d calls", n)
	}

	// Without the connection the key is the model's to give again.
	cfg, err := config.Load(h.Paths().Config())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sources["wx"].Connections = nil
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	decl, err = h.Describe(ctx, DescribeRequest{Targets: []string{"wx.forecast"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(decl, "key: string") {
		t.Errorf("without a connection that sets it, the key is an argument:\n%s", decl)
	}
}
