//go:build linux || darwin

package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

func TestServiceLock(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	first, err := Listen(ServiceOptions{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Listen(ServiceOptions{Paths: paths})
	if !errors.Is(err, ErrHubRunning) {
		t.Fatalf("second Listen: %v, want ErrHubRunning", err)
	}
	want := "a hub already runs for " + paths.Home + " (pid " + strconv.Itoa(os.Getpid()) + ", socket " + paths.Socket() + ")"
	if err.Error() != want {
		t.Fatalf("second Listen:\n got %q\nwant %q", err, want)
	}
	var hre *HubRunningError
	if !errors.As(err, &hre) || hre.PID != os.Getpid() || hre.Socket != paths.Socket() {
		t.Fatalf("error %#v does not carry the pid and socket", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(paths.Socket()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}

	// After the first closes, a hub can start; after it serves and stops,
	// another can too.
	h := startSvcTestHub(t, paths, svcTestMCPServer(nil))
	if _, err := Listen(ServiceOptions{Paths: paths}); !errors.Is(err, ErrHubRunning) {
		t.Fatalf("Listen beside a serving hub: %v, want ErrHubRunning", err)
	}
	// A hub that stopped serving keeps the lock until it has closed: one
	// that starts meanwhile waits for it, a while.
	h.stopServing(t)
	if _, err := os.Stat(paths.Socket()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Serve returned: %v", err)
	}
	_, err = Listen(ServiceOptions{Paths: paths, CloseWait: 100 * time.Millisecond})
	if hre := (*HubRunningError)(nil); !errors.As(err, &hre) || !hre.Closing || !strings.Contains(err.Error(), "stopped serving but has not finished closing") {
		t.Fatalf("Listen beside a hub still closing: %v", err)
	}
	var releasing atomic.Bool
	go func() {
		time.Sleep(200 * time.Millisecond)
		releasing.Store(true)
		h.svc.Close()
	}()
	third, err := Listen(ServiceOptions{Paths: paths, CloseWait: time.Minute})
	if err != nil {
		t.Fatalf("Listen once the stopped hub closed: %v", err)
	}
	if !releasing.Load() {
		t.Fatal("Listen took the home before the stopped hub released it")
	}
	third.Close()
}

func TestServiceStaleSocket(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	// A socket file whose listener is gone, as a killed hub leaves it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: paths.Socket(), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(paths.Socket()); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	if _, err := Dial(context.Background(), paths); !errors.Is(err, ErrNoHub) {
		t.Fatalf("Dial on a stale socket: %v, want ErrNoHub", err)
	}

	startSvcTestHub(t, paths, svcTestMCPServer(nil))
	c, err := Dial(context.Background(), paths)
	if err != nil {
		t.Fatalf("Dial after replacing the stale socket: %v", err)
	}
	defer c.Close()
	conn, err := c.UpgradeMCP(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
}

func TestServiceLiveSocketWithoutLock(t *testing.T) {
	// Something answers on the socket although nobody holds the lock: the
	// socket is not stale and must not be removed.
	paths := config.Paths{Home: t.TempDir()}
	ln, err := net.Listen("unix", paths.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	_, err = Listen(ServiceOptions{Paths: paths})
	if !errors.Is(err, ErrHubRunning) {
		t.Fatalf("Listen: %v, want ErrHubRunning", err)
	}
	if !strings.Contains(err.Error(), "pid unknown") {
		t.Errorf("error %q should say the pid is unknown", err)
	}
	<-accepted
	if _, err := os.Stat(paths.Socket()); err != nil {
		t.Fatalf("live socket removed: %v", err)
	}
	// The failed Listen released the lock.
	lock, err := lockHome(paths.Lock())
	if err != nil {
		t.Fatalf("lock still held after a failed Listen: %v", err)
	}
	lock.Close()
}

func TestServiceSocketMode(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	startSvcTestHub(t, config.Paths{Home: home}, svcTestMCPServer(nil))
	for path, want := range map[string]os.FileMode{home: 0o700, config.Paths{Home: home}.Socket(): 0o600, config.Paths{Home: home}.Lock(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
	fi, _ := os.Stat(config.Paths{Home: home}.Socket())
	if fi.Mode().Type() != os.ModeSocket {
		t.Errorf("hub.sock is %v, want a socket", fi.Mode().Type())
	}
	b, err := os.ReadFile(config.Paths{Home: home}.Lock())
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q (%v), want our pid", b, err)
	}
}

func TestServiceForeignUID(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the test runs a peer process as uid 65534 (nobody)")
	}
	// The home must be traversable by nobody (0711), so that what refuses
	// the peer is the socket's mode, or the uid check.
	home, err := os.MkdirTemp("", "caps-uid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	bin := filepath.Join(home, "hub.test")
	svcCopyExecutable(t, bin)
	if err := os.Chmod(home, 0o711); err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	svc, err := Listen(ServiceOptions{
		Paths:     config.Paths{Home: home},
		MCPServer: svcTestMCPServer(nil),
		Logger:    svcTestLogger(t),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handled.Add(1)
			w.Write([]byte(`{"ok":true}`))
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveSvcTestHub(t, svc)

	runPeer := func(t *testing.T) svcPeerResult {
		cmd := exec.Command(bin, "-test.run=^TestServiceHelperProcess$")
		cmd.Env = append(os.Environ(), svcHelperEnv+"=foreign-peer", "CAPABILITIES_HOME="+home)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Stderr = svcLogWriter{t}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("peer process: %v", err)
		}
		var r svcPeerResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("peer said %q: %v", out, err)
		}
		if r.UID != 65534 {
			t.Fatalf("peer ran as uid %d", r.UID)
		}
		return r
	}

	t.Run("mode 0600", func(t *testing.T) {
		r := runPeer(t)
		if !r.EACCES {
			t.Fatalf("peer of another uid: %+v, want connect to fail with EACCES", r)
		}
	})
	t.Run("mode 0666, uid check", func(t *testing.T) {
		if err := os.Chmod(svc.Addr(), 0o666); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(svc.Addr(), 0o600)
		r := runPeer(t)
		if r.ConnectErr != "" {
			t.Fatalf("peer could not connect to a 0666 socket: %+v", r)
		}
		if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "uid 65534 refused") {
			t.Errorf("peer's request: %d %q, want 403 naming the uid", r.Status, r.Body)
		}
		if !r.ClosedAfter {
			t.Errorf("the hub kept a refused connection open")
		}
		if r.MCPStatus != http.StatusForbidden {
			t.Errorf("peer's MCP upgrade: status %d, want 403", r.MCPStatus)
		}
	})
	if n := handled.Load(); n != 0 {
		t.Errorf("the handler served %d requests of a foreign peer", n)
	}
	if n := svcCountSessions(svc.opts.MCPServer); n != 0 {
		t.Errorf("%d MCP sessions after foreign peers, want 0", n)
	}
}

// svcCopyExecutable copies the test binary to dst, executable by everyone.
func svcCopyExecutable(t *testing.T, dst string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestServiceHostAndOrigin(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	var handled atomic.Int32
	svc, err := Listen(ServiceOptions{
		Paths:  paths,
		Logger: svcTestLogger(t),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handled.Add(1)
			w.Write([]byte(`{"ok":true}`))
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveSvcTestHub(t, svc)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", paths.Socket())
	}}}
	defer hc.CloseIdleConnections()
	for _, tc := range []struct {
		name, host, origin string
		want               int
	}{
		{"local marker", apiHost, "", http.StatusOK},
		{"foreign host", "example.com", "", http.StatusForbidden},
		{"localhost", "localhost", "", http.StatusForbidden},
		{"origin", apiHost, "https://example.com", http.StatusForbidden},
		{"null origin", apiHost, "null", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "http://"+apiHost+"/v1/status", nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	if n := handled.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1 (only the local marker passes)", n)
	}
}

func TestServiceClient(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	if _, err := Dial(context.Background(), paths); !errors.Is(err, ErrNoHub) {
		t.Fatalf("Dial without a hub: %v, want ErrNoHub", err)
	} else if !strings.Contains(err.Error(), paths.Socket()) {
		t.Errorf("ErrNoHub %q does not name the socket", err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/echo", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]string
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			writeAPIError(w, http.StatusBadRequest, err.Error(), "")
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"said": in["say"]})
	})
	mux.HandleFunc("POST /v1/approve", func(w http.ResponseWriter, r *http.Request) {
		writeAPIError(w, http.StatusConflict, "run r1 has no pending call", "list runs with capabilities hub runs --pending")
	})
	svc, err := Listen(ServiceOptions{Paths: paths, Handler: mux, Logger: svcTestLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	h := serveSvcTestHub(t, svc)
	c, err := Dial(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	var out map[string]string
	if err := c.Do(ctx, http.MethodPost, "/v1/echo", map[string]string{"say": "hi"}, &out); err != nil {
		t.Fatal(err)
	}
	if out["said"] != "hi" {
		t.Errorf("Do decoded %v", out)
	}
	err = c.Do(ctx, http.MethodPost, "/v1/approve", nil, nil)
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("Do: %v (%T), want *APIError", err, err)
	}
	want := APIError{Status: http.StatusConflict, Message: "run r1 has no pending call", Hint: "list runs with capabilities hub runs --pending"}
	if *ae != want {
		t.Errorf("APIError %+v, want %+v", *ae, want)
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/nothing", nil, nil); !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		t.Errorf("unknown route: %v, want a 404 APIError", err)
	}
	// Without an MCP server the upgrade is refused with a clear status.
	if _, err := c.UpgradeMCP(ctx); !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable {
		t.Errorf("UpgradeMCP without an MCP server: %v, want 503", err)
	}

	h.stop(t)
	if err := c.Do(ctx, http.MethodPost, "/v1/echo", map[string]string{"say": "hi"}, &out); !errors.Is(err, ErrNoHub) {
		t.Errorf("Do after the hub stopped: %v, want ErrNoHub", err)
	}
}

func TestServiceUpgradeRequired(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	startSvcTestHub(t, paths, svcTestMCPServer(nil))
	c, err := Dial(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A plain GET of /v1/mcp is told how to upgrade.
	err = c.Do(context.Background(), http.MethodGet, mcpPath, nil, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUpgradeRequired || !strings.Contains(ae.Message, mcpUpgrade) {
		t.Fatalf("GET %s without Upgrade: %v, want 426 naming %s", mcpPath, err, mcpUpgrade)
	}
}

func TestServiceMCPSessions(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			paths := config.Paths{Home: t.TempDir()}
			srv := svcTestMCPServer(nil)
			startSvcTestHub(t, paths, srv)
			c, err := Dial(context.Background(), paths)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var sessions []*mcp.ClientSession
			for range 2 {
				conn, err := c.UpgradeMCP(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				sessions = append(sessions, svcConnectClient(t, &mcp.IOTransport{Reader: conn, Writer: conn}, v, nil))
			}
			svcWaitFor(t, "two hub sessions", func() bool { return svcCountSessions(srv) == 2 })
			svcCallEcho(t, sessions[0], "one")
			svcCallEcho(t, sessions[1], "two")
			sessions[0].Close()
			svcWaitFor(t, "the closed session to end", func() bool { return svcCountSessions(srv) == 1 })
			svcCallEcho(t, sessions[1], "still")
		})
	}
}

func TestServiceStopEndsSessions(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	blocked := make(chan struct{})
	srv := svcTestMCPServer(blocked)
	h := startSvcTestHub(t, paths, srv)
	c, err := Dial(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn, err := c.UpgradeMCP(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cs := svcConnectClient(t, &mcp.IOTransport{Reader: conn, Writer: conn}, "2025-11-25", nil)
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		callErr <- err
	}()
	<-blocked
	h.stop(t) // returns only after the session's handler has ended
	if err := <-callErr; err == nil {
		t.Fatal("a call in flight when the hub stopped succeeded")
	}
	if n := svcCountSessions(srv); n != 0 {
		t.Errorf("%d sessions after Serve returned", n)
	}
	if _, err := os.Stat(paths.Socket()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Serve returned: %v", err)
	}
}
