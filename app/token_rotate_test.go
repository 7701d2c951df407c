package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/internal/testwait"
)

// initialize is an MCP initialize request: what a client sends first.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rotate-test","version":"1"}}}`

// mcpStatus posts an initialize request to the endpoint with token and
// returns the status code.
func mcpStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRotateTokenOnARunningHub: `hub token --rotate` against a hub that
// serves --http: the old token is refused (401) from then on, the new one
// is taken, and the client file install --http wrote carries the new token,
// 0600, with a backup that holds neither.
func TestRotateTokenOnARunningHub(t *testing.T) {
	requireKeychain(t)
	w := newWorld(t, 0)
	homeKeychain(t, w.home)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	url := "http://127.0.0.1:" + port + "/mcp"

	if out, errOut, code := w.cli("", "install", "cursor", "--http", ":"+port); code != 0 {
		t.Fatalf("install --http: %d %s %s", code, out, errOut)
	}
	old, errOut, code := w.cli("", "hub", "token")
	old = strings.TrimSpace(old)
	if code != 0 || len(old) < 40 {
		t.Fatalf("hub token: %d %q %s", code, old, errOut)
	}
	cursor := filepath.Join(w.userHome, ".cursor", "mcp.json")
	if b, _ := os.ReadFile(cursor); !strings.Contains(string(b), "Bearer "+old) {
		t.Fatalf("cursor's file lacks the token:\n%s", b)
	}

	cmd := exec.Command(w.bin, "hub", "--headless", "--http", ":"+port)
	cmd.Env = w.env()
	w.hubOut = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = w.hubOut, w.hubOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.hubCmd = cmd
	testwait.For(t, 60*time.Second, "the hub's HTTP endpoint to take the token", func() bool {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+old)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if got := mcpStatus(t, url, "not-the-token"); got != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d, want 401", got)
	}

	out, errOut, code := w.cli("", "hub", "token", "--rotate")
	if code != 0 || !strings.Contains(out, "takes only the new token") || !strings.Contains(out, "cursor now carries the new token") {
		t.Fatalf("hub token --rotate: %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, old) {
		t.Error("--rotate printed the old token")
	}
	tok, _, _ := w.cli("", "hub", "token")
	tok = strings.TrimSpace(tok)
	if tok == old || len(tok) < 40 || strings.Contains(out, tok) {
		t.Fatalf("after --rotate the token is %q (old %q), printed: %v", tok, old, strings.Contains(out, tok))
	}
	if got := mcpStatus(t, url, old); got != http.StatusUnauthorized {
		t.Errorf("the old token after --rotate: %d, want 401", got)
	}
	if got := mcpStatus(t, url, tok); got != http.StatusOK {
		t.Errorf("the new token after --rotate: %d, want 200", got)
	}

	b, _ := os.ReadFile(cursor)
	if strings.Contains(string(b), old) || !strings.Contains(string(b), "Bearer "+tok) {
		t.Errorf("cursor's file after --rotate:\n%s", b)
	}
	if fi, err := os.Stat(cursor); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cursor's file: %v, %v; want 0600", fi.Mode(), err)
	}
	backups, _ := filepath.Glob(cursor + ".bak-*")
	if len(backups) == 0 {
		t.Fatal("no backup of cursor's file")
	}
	for _, bk := range backups {
		b, _ := os.ReadFile(bk)
		if strings.Contains(string(b), old) || strings.Contains(string(b), tok) {
			t.Errorf("backup %s holds a token:\n%s", bk, b)
		}
		if fi, _ := os.Stat(bk); fi.Mode().Perm() != 0o600 {
			t.Errorf("backup %s is %v, want 0600", bk, fi.Mode())
		}
	}

	// Rotating with no hub running still replaces the token in the file.
	w.stopHub()
	out, errOut, code = w.cli("", "hub", "token", "--rotate")
	if code != 0 || !strings.Contains(out, "No hub runs") || !strings.Contains(out, "cursor now carries the new token") {
		t.Fatalf("hub token --rotate without a hub: %d\n%s\n%s", code, out, errOut)
	}
	third, _, _ := w.cli("", "hub", "token")
	if b, _ := os.ReadFile(cursor); !strings.Contains(string(b), "Bearer "+strings.TrimSpace(third)) {
		t.Errorf("cursor's file after the second rotation:\n%s", b)
	}
}
