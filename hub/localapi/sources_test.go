package localapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/mcpserver"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/internal/testwait"
)

// The source routes the window and a script use: disable and enable
// through /v1/source/enable (status says so), restart through
// /v1/source/restart, and an unknown source is 404 on both.
func TestSourceRoutes(t *testing.T) {
	notes := newNotesServer()
	h := hubWith(t, map[string]*config.Source{"notes": {URL: hubtest.HTTPUpstream(t, notes.server, "", "").URL}})
	api := NewHandler(h, APIOptions{})
	call := func(method, path, body string) (int, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec.Code, rec.Body.String()
	}
	notesStatus := func() hub.SourceStatus {
		t.Helper()
		code, body := call("GET", "/v1/status", "")
		var st hub.Status
		if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil || len(st.Sources) != 1 {
			t.Fatalf("status: %d %s", code, body)
		}
		return st.Sources[0]
	}

	if code, body := call("POST", "/v1/source/enable", `{"name":"notes","enabled":false}`); code != 200 || !strings.Contains(body, `"enabled":false`) {
		t.Fatalf("disable: %d %s", code, body)
	}
	if st := notesStatus(); !st.Disabled || st.State != upstream.SourceDisabled {
		t.Fatalf("status after disabling: %+v", st)
	}
	if code, body := call("POST", "/v1/source/restart", `{"name":"notes"}`); code != 409 || !strings.Contains(body, "disabled") {
		t.Fatalf("restart of a disabled source: %d %s", code, body)
	}
	if code, body := call("POST", "/v1/source/enable", `{"name":"notes","enabled":true}`); code != 200 {
		t.Fatalf("enable: %d %s", code, body)
	}
	if code, body := call("POST", "/v1/source/restart", `{"name":"notes"}`); code != 200 {
		t.Fatalf("restart: %d %s", code, body)
	}
	if st := notesStatus(); st.Disabled || st.State != upstream.SourceUp || st.Tools != 1 {
		t.Fatalf("status after enabling and restarting: %+v", st)
	}
	for _, path := range []string{"/v1/source/enable", "/v1/source/restart"} {
		if code, body := call("POST", path, `{"name":"ghost","enabled":true}`); code != 404 || !strings.Contains(body, `no source named \"ghost\"`) {
			t.Errorf("%s of an unknown source: %d %s", path, code, body)
		}
	}
}

// A client connected through the shim is listed by /v1/clients with the
// name and version of its initialize, until it goes.
func TestClientsRoute(t *testing.T) {
	notes := newNotesServer()
	h := hubWith(t, map[string]*config.Source{"notes": {URL: hubtest.HTTPUpstream(t, notes.server, "", "").URL}})
	paths := config.Paths{Home: t.TempDir()}
	reg := mcpserver.NewSessions()
	servers := mcpserver.NewServers(h, mcpserver.Options{Sessions: reg})
	svc, err := Listen(ServiceOptions{Paths: paths, MCPServer: servers.All(), Profiles: servers.Server, Logger: svcTestLogger(t),
		Handler: NewHandler(h, APIOptions{Sessions: reg})})
	if err != nil {
		t.Fatal(err)
	}
	serveSvcTestHub(t, svc)
	c, err := Dial(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	clients := func() []mcpserver.ConnectedClient {
		t.Helper()
		var out []mcpserver.ConnectedClient
		if err := c.Do(context.Background(), "GET", "/v1/clients", nil, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := clients(); len(got) != 0 {
		t.Fatalf("before any client: %+v", got)
	}
	sh := startSvcTestShim(t, ShimOptions{Paths: paths})
	cs := svcConnectClient(t, sh.transport, "2025-11-25", nil)
	got := clients()
	if len(got) != 1 || got[0].Name != "test-client" || got[0].Version != "v0.0.1" || got[0].Profile != "" || got[0].Mode != config.ProfileCode {
		t.Fatalf("one client connected: %+v", got)
	}
	cs.Close()
	sh.closeStdin()
	testwait.For(t, svcTestWait, "the client to leave the list", func() bool { return len(clients()) == 0 })
}
