package localapi

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/keychain"
)

// startSvcHTTP serves the test MCP server over HTTP on a free port.
func startSvcHTTP(t *testing.T, token string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := ServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", Token: func() string { return token }, MCPServer: svcTestMCPServer(nil), Logger: svcTestLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeHTTP ended with %v", err)
			}
		case <-time.After(svcTestWait):
			t.Errorf("ServeHTTP did not stop within %s", svcTestWait)
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after the endpoint stopped", addr)
		}
	})
	return addr
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPGuards(t *testing.T) {
	const token = "s3cret-token"
	addr := startSvcHTTP(t, token)
	_, port, _ := net.SplitHostPort(addr)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	for _, tc := range []struct {
		name, auth, host, origin string
		want                     int
	}{
		{"no token", "", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", "", "", http.StatusUnauthorized},
		{"token without scheme", token, "", "", http.StatusUnauthorized},
		{"foreign host", "Bearer " + token, "attacker.example:" + port, "", http.StatusForbidden},
		{"loopback host, other port", "Bearer " + token, "127.0.0.1:1", "", http.StatusForbidden},
		{"foreign origin", "Bearer " + token, "", "http://attacker.example", http.StatusForbidden},
		{"https origin", "Bearer " + token, "", "https://localhost:" + port, http.StatusForbidden},
		{"foreign host, no token", "", "attacker.example:" + port, "", http.StatusForbidden},
		{"right token", "Bearer " + token, "", "", http.StatusOK},
		{"localhost host", "Bearer " + token, "localhost:" + port, "", http.StatusOK},
		{"own origin", "Bearer " + token, "", "http://localhost:" + port, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge")
			}
		})
	}
}

func TestHTTPMCP(t *testing.T) {
	const token = "another-token"
	addr := startSvcHTTP(t, token)
	for _, v := range svcProtocolVersions {
		t.Run(v, func(t *testing.T) {
			cs := svcConnectClient(t, &mcp.StreamableClientTransport{
				Endpoint:   "http://" + addr + "/mcp",
				HTTPClient: &http.Client{Transport: bearer{token}},
			}, v, nil)
			svcCallEcho(t, cs, "over http")
		})
	}
	t.Run("wrong token", func(t *testing.T) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), svcTestWait)
		defer cancel()
		_, err := c.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint:   "http://" + addr + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{"guess"}},
			MaxRetries: -1,
		}, nil)
		if err == nil {
			t.Fatal("a client with the wrong token connected")
		}
	})
}

func TestHTTPAddr(t *testing.T) {
	for in, want := range map[string]string{
		":8765":           "127.0.0.1:8765",
		"127.0.0.1:8765":  "127.0.0.1:8765",
		":0":              "127.0.0.1:0",
		"0.0.0.0:8765":    "",
		"localhost:8765":  "",
		"[::]:8765":       "",
		"192.168.1.2:80":  "",
		"example.com:443": "",
		"8765":            "",
		":99999":          "",
	} {
		got, err := loopbackAddr(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("loopbackAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, _, err := ServeHTTP(context.Background(), HTTPOptions{Addr: "0.0.0.0:0", Token: func() string { return "t" }, MCPServer: svcTestMCPServer(nil)})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1 only") {
		t.Errorf("ServeHTTP on 0.0.0.0: %v, want a refusal", err)
	}
	_, _, err = ServeHTTP(context.Background(), HTTPOptions{Addr: ":0", MCPServer: svcTestMCPServer(nil)})
	if err == nil {
		t.Errorf("ServeHTTP without a token started")
	}
}

func TestHTTPToken(t *testing.T) {
	kc := &hubtest.MemKeychain{}
	tok, err := HTTPToken(kc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) != 32 {
		t.Fatalf("token %q is not 32 bytes of base64url (%v)", tok, err)
	}
	if stored, _ := kc.Get("hub/http-token"); stored != tok {
		t.Fatalf("keychain holds %q under hub/http-token, want the token", stored)
	}
	again, err := HTTPToken(kc)
	if err != nil || again != tok {
		t.Fatalf("second HTTPToken = %q, %v; want the stored token", again, err)
	}
	other, _ := HTTPToken(&hubtest.MemKeychain{})
	if other == tok {
		t.Fatal("two keychains got the same token")
	}

	broken := &hubtest.MemKeychain{Err: &keychain.UnavailableError{Op: "reading", Key: HTTPTokenKey, Cause: "no Secret Service"}}
	if _, err := HTTPToken(broken); !errors.Is(err, keychain.ErrUnavailable) {
		t.Fatalf("HTTPToken with an unreachable keychain: %v, want ErrUnavailable", err)
	}
	if len(broken.M) != 0 {
		t.Fatal("HTTPToken stored a token although the keychain could not be read")
	}
}

// TestHTTPBodyBound: the endpoint reads a request's body up to
// MaxBodyBytes (the SDK's own bound, 4 MiB, refused a direct-mode call of
// 4.5 MB that the hub serves over stdio), and no further: 413 past it.
func TestHTTPBodyBound(t *testing.T) {
	const token = "body-token"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done, err := ServeHTTP(ctx, HTTPOptions{Addr: "127.0.0.1:0", Token: func() string { return token }, MCPServer: svcTestMCPServer(nil), Logger: svcTestLogger(t), MaxBodyBytes: 6 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	cs := svcConnectClient(t, &mcp.StreamableClientTransport{
		Endpoint:   "http://" + addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}},
		MaxRetries: -1,
	}, svcProtocolVersions[0], nil)
	if err := svcTryEcho(cs, strings.Repeat("a", 4608<<10)); err != nil {
		t.Errorf("a call of 4.5 MB under a bound of 6 MiB: %v", err)
	}
	if err := svcTryEcho(cs, strings.Repeat("a", 6<<20)); err == nil || !strings.Contains(err.Error(), "Request Entity Too Large") {
		t.Errorf("a call of 6 MiB: %v, want 413", err)
	}
}
