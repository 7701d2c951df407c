package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/internal/testwait"
)

func TestLogRotatesBySize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hub.log")
	f, err := openRotating(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for i := range 20 {
		line := fmt.Sprintf("line %02d of the log, 30 bytes\n", i)
		all = append(all, line)
		if _, err := f.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	var kept string
	for _, name := range []string{"hub.log.2", "hub.log.1", "hub.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(b) > 100 {
			t.Errorf("%s has %d bytes, more than the 100 allowed", name, len(b))
		}
		kept += string(b)
	}
	if _, err := os.Stat(filepath.Join(dir, "hub.log.3")); err == nil {
		t.Error("a third old log was kept; keep is 2")
	}
	// The newest lines are kept whole and in order.
	if !strings.HasSuffix(strings.Join(all, ""), kept) {
		t.Errorf("the kept logs are not the tail of what was written:\n%s", kept)
	}
	// Reopening appends to the current file.
	f, _ = openRotating(path, 100, 2)
	f.Write([]byte("after reopen\n"))
	f.Close()
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), "after reopen\n") {
		t.Errorf("reopened log: %q", b)
	}
}

// TestCrashLogIsBounded: each start of a detached hub appends to
// crash.log; one past the bound becomes crash.log.1, replacing the one
// before, so the two never hold more than the bound and one start's output.
func TestCrashLogIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.log")
	for start := range 6 {
		f, err := openCrashLog(path, 100)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "start %d: %s\n", start, strings.Repeat("x", 60))
		f.Close()
	}
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(path + ".1")
	if len(cur) > 100+70 || len(old) > 100+70 {
		t.Errorf("crash.log %d bytes, crash.log.1 %d bytes; the bound is 100 and one start's 70", len(cur), len(old))
	}
	if !strings.HasPrefix(string(cur), "start 4:") || !strings.Contains(string(cur), "start 5:") || !strings.HasPrefix(string(old), "start 2:") {
		t.Errorf("crash.log:\n%s\ncrash.log.1:\n%s", cur, old)
	}
	if _, err := os.Stat(path + ".2"); err == nil {
		t.Error("a third crash log was kept")
	}
}

func TestRepeatedErrorsAreRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		log := slog.New(newRepeatLimiter(slog.NewTextHandler(&buf, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		}), time.Minute))
		src := log.With("source", "github")
		for range 5 {
			src.Error("starting the source", "error", "exit status 1")
			log.Info("catalog ready")
		}
		src.Error("starting the source", "error", "another cause")
		log.With("source", "slack").Error("starting the source", "error", "exit status 1")
		time.Sleep(61 * time.Second)
		src.Error("starting the source", "error", "exit status 1")
		want := "level=ERROR msg=\"starting the source\" source=github error=\"exit status 1\"\n" +
			strings.Repeat("level=INFO msg=\"catalog ready\"\n", 5) +
			"level=ERROR msg=\"starting the source\" source=github error=\"another cause\"\n" +
			"level=ERROR msg=\"starting the source\" source=slack error=\"exit status 1\"\n" +
			"level=ERROR msg=\"starting the source\" source=github error=\"exit status 1\" repeated=4\n"
		if got := buf.String(); got != want {
			t.Errorf("log:\n%s\nwant:\n%s", got, want)
		}
	})
}

// TestHubStartedByAClientLogsEachLineOnce starts the hub as a client does
// (the shim, detached) and reads its log.
func TestHubStartedByAClientLogsEachLineOnce(t *testing.T) {
	bin := binary(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.json"), []byte("{}\n"), 0o600)
	t.Cleanup(func() { killStrays(home) })
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "CAPABILITIES_HOME="+home, "HOME="+t.TempDir(), "DISPLAY=", "WAYLAND_DISPLAY=")
	client := mcp.NewClient(&mcp.Implementation{Name: "log-test-client", Version: "1.2"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting through capabilities mcp: %v", err)
	}
	sess.Close() // the client goes away; the hub it started stays
	c, err := localapi.Dial(context.Background(), config.Paths{Home: home})
	if err != nil {
		t.Fatalf("no hub after the shim started one: %v", err)
	}
	// Stopping makes the hub write its last lines and close the log.
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	var log []byte
	if !testwait.Until(20*time.Second, func() bool {
		log, _ = os.ReadFile(filepath.Join(home, "logs", "hub.log"))
		return bytes.Contains(log, []byte("local api stopped"))
	}) {
		t.Fatalf("the hub did not log its stop within 20s:\n%s", log)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if seen[line] {
			t.Errorf("line logged twice: %s", line)
		}
		seen[line] = true
	}
	for _, want := range []string{`msg="client connected" client="log-test-client 1.2"`, `msg="client disconnected" client="log-test-client 1.2"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
	if n := strings.Count(string(log), `msg="hub running"`); n != 1 {
		t.Errorf("\"hub running\" logged %d times:\n%s", n, log)
	}
	if crash, _ := os.ReadFile(filepath.Join(home, "logs", "crash.log")); bytes.Contains(crash, []byte("hub running")) {
		t.Errorf("the log went to crash.log too:\n%s", crash)
	}
}

// TestCLILogSpeaksToAPerson: the hub a CLI command runs in its own process
// reports warnings and errors as lines of the command's output, naming
// what they are about before the detail; below a warning it says nothing.
func TestCLILogSpeaksToAPerson(t *testing.T) {
	var b bytes.Buffer
	log := cliLog(&b)
	log.Info("catalog rebuilt", "tools", 12)
	log.Warn("skipping an upstream skill", "source", "gh", "problem", "skill:review has no SKILL.md")
	log.With("source", "gh").Error("upstream session died", "connection", "work", "error", "EOF before the handshake")
	log.Warn("retention failed", "err", "")
	want := "warning: skipping an upstream skill (source gh): skill:review has no SKILL.md\n" +
		"error: upstream session died (source gh, connection work): EOF before the handshake\n" +
		"warning: retention failed\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestStartOutput: what a started hub wrote past the point it started at,
// on one line and at most its last 500 bytes; nothing when it wrote
// nothing.
func TestStartOutput(t *testing.T) {
	home := t.TempDir()
	e := &env{Getenv: func(k string) string { return map[string]string{"CAPABILITIES_HOME": home}[k] }}
	logs := config.Paths{Home: home}.Logs()
	os.MkdirAll(logs, 0o700)
	path := filepath.Join(logs, "crash.log")
	os.WriteFile(path, []byte("an older start's panic\n"), 0o600)
	from := int64(len("an older start's panic\n"))
	if got := startOutput(e, from); got != "" {
		t.Errorf("nothing written since: %q", got)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("capabilities hub: config.json: sources.a.command: must be a string\nhint: check config.json\n")
	f.Close()
	if got, want := startOutput(e, from), "capabilities hub: config.json: sources.a.command: must be a string; hint: check config.json"; got != want {
		t.Errorf("startOutput = %q, want %q", got, want)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(strings.Repeat("goroutine dump line\n", 100) + "the end")
	f.Close()
	if got := startOutput(e, from); len(got) > 500 || !strings.HasSuffix(got, "the end") {
		t.Errorf("a long output: %d bytes, %q", len(got), got)
	}
}

// TestShimSaysWhyTheHubStopped: a client's 'capabilities mcp' on a home
// whose config.json is broken ends within seconds with the hub's own words,
// not after the whole wait with a hint to go and look.
func TestShimSaysWhyTheHubStopped(t *testing.T) {
	w := &world{t: t, bin: binary(t), home: t.TempDir(), userHome: t.TempDir()}
	if err := os.WriteFile(filepath.Join(w.home, "config.json"), []byte(`{"sources": {"a": {"command": 5}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	stdout, stderr, code := w.cli(initialize, "mcp")
	if code == 0 || !strings.Contains(stderr, "the hub it started stopped: capabilities hub: ") || !strings.Contains(stderr, "sources.a.command: must be a string") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}
