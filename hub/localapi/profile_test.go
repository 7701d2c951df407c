package localapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// TestShimProfile: the shim asks the socket for its profile's server; an
// unknown profile is refused with 404 naming those that exist, at start
// and when the profile is gone by the time the shim reconnects.
func TestShimProfile(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	all, work := svcTestMCPServer(nil), svcTestMCPServer(nil)
	var removed atomic.Bool
	profiles := func(name string) (*mcp.Server, error) {
		if name == "work" && !removed.Load() {
			return work, nil
		}
		return nil, fmt.Errorf("no profile named %q; profiles: work", name)
	}
	listen := func() *svcTestHub {
		svc, err := Listen(ServiceOptions{Paths: paths, MCPServer: all, Profiles: profiles, Logger: svcTestLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		return serveSvcTestHub(t, svc)
	}
	h := listen()

	err := RunShim(context.Background(), ShimOptions{Paths: paths, Profile: "nope", Stdin: strings.NewReader(""), Stdout: io.Discard})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound || !strings.Contains(err.Error(), `no profile named "nope"; profiles: work`) {
		t.Fatalf("RunShim with an unknown profile = %v", err)
	}

	sh := startSvcTestShim(t, ShimOptions{Paths: paths, Profile: "work"})
	cs := svcConnectClient(t, sh.transport, "2026-07-28", nil)
	svcCallEcho(t, cs, "in work")
	if n, m := svcCountSessions(work), svcCountSessions(all); n != 1 || m != 0 {
		t.Fatalf("sessions: %d of the profile's server, %d of the whole hub's; want 1 and 0", n, m)
	}

	// The hub comes back without the profile: the shim stops, and serves
	// nothing in its place.
	removed.Store(true)
	h.stop(t)
	listen()
	select {
	case err := <-sh.done:
		if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
			t.Errorf("the shim ended with %v; want the hub's 404", err)
		}
	case <-time.After(svcTestWait):
		t.Fatal("the shim kept going after its profile was removed")
	}
	if n := svcCountSessions(all); n != 0 {
		t.Errorf("the whole hub's server has %d sessions; the shim fell back to it", n)
	}
}

// TestHTTPProfilePath: /mcp/p/NAME is the profile's server, behind the
// same guard; an unknown profile is 404 and never the whole hub.
func TestHTTPProfilePath(t *testing.T) {
	const token = "s3cret-token"
	// The whole hub's server has no echo: a call that reaches it fails.
	all, work := mcp.NewServer(&mcp.Implementation{Name: "all", Version: "1"}, nil), svcTestMCPServer(nil)
	profiles := func(name string) (*mcp.Server, error) {
		if name == "work" {
			return work, nil
		}
		return nil, fmt.Errorf("no profile named %q; profiles: work", name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := ServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", Token: func() string { return token }, MCPServer: all, Profiles: profiles, Logger: svcTestLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	base := "http://" + addr + "/mcp"
	post := func(url, auth string) (int, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(base+"/p/nope", "Bearer "+token); code != http.StatusNotFound || !strings.Contains(body, `no profile named "nope"; profiles: work`) {
		t.Errorf("unknown profile: %d %q", code, body)
	}
	if code, _ := post(base+"/p/work", "Bearer wrong"); code != http.StatusUnauthorized {
		t.Errorf("profile path without the token: %d, want 401", code)
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/p/work", HTTPClient: &http.Client{Transport: bearer{token}}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		svcCallEcho(t, cs, "in work over "+version)
		cs.Close()
	}
}
