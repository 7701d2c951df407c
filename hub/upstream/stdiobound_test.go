package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestUpstreamStdioAnswerTooLarge: the filesystem server reading a file of
// 17 MB answers in one line past the bound of one message (the SDK's for a
// stdio line, 16 MB). The call fails saying so, as an answer too large to
// ask for again, not as a server that is down and may be retried; the
// session, whose stream was cut mid-message, ends, and a later call is
// served by a new one.
func TestUpstreamStdioAnswerTooLarge(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"big.txt": 17 << 20, "small.txt": 5} {
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte("a"), size), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	u := newTestUpstreams(t, Options{RestartBackoff: time.Millisecond}, hubtest.Config(map[string]*config.Source{"fs": hubtest.FilesystemSource(t, dir)}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	read := func(name string) (string, error) {
		args, _ := json.Marshal(map[string]string{"path": filepath.Join(dir, name)})
		res, err := u.Call(ctx, "fs", "", "read_text_file", args)
		if err != nil {
			return "", err
		}
		return hubtest.TextOf(res), nil
	}
	_, err := read("big.txt")
	var ue *Error
	if !errors.As(err, &ue) || ue.Kind != KindTooLarge || ue.Retryable || !ue.Sent ||
		!strings.Contains(err.Error(), "read_text_file: the server's answer is over 16.0 MB, the most one message may hold") {
		t.Fatalf("reading 17 MB: %#v (%v)", err, err)
	}
	if h := ue.Hint(); !strings.Contains(h, "less at once") {
		t.Errorf("hint %q", h)
	}
	for {
		text, err := read("small.txt")
		if err == nil {
			if text != "aaaaa" {
				t.Fatalf("reading 5 bytes after: %q", text)
			}
			break
		}
		if !errors.As(err, &ue) || ue.Kind != KindUnavailable || ctx.Err() != nil {
			t.Fatalf("reading 5 bytes after: %v", err)
		}
	}
}
