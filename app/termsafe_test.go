package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
)

func TestTermSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain\ttext\nnext line\n", "plain\ttext\nnext line\n"},
		{"caf\u00e9 \u2713", "caf\u00e9 \u2713"},
		{"title\x1b]0;pwned\x07clear\x1b[2J", `title\u001b]0;pwned\u0007clear\u001b[2J`},
		{"over\rwrite\x7f", `over\u000dwrite\u007f`},
		{"c1 \u009b2J \u009d0;x\u009c", `c1 \u009b2J \u009d0;x\u009c`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{"bad \xff\xc2", `bad \xff\xc2`},
		{"zero\u200bwidth to\u200d \u3164", `zero\u200bwidth to\u200d \u3164`},
		{"tags \U000e0048\U000e0069", `tags \udb40\udc48\udb40\udc69`},
	} {
		var b bytes.Buffer
		n, err := termSafe{&b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) || b.String() != tc.want {
			t.Errorf("%q: wrote %q (%d, %v), want %q", tc.in, b.String(), n, err, tc.want)
		}
	}
	// JSON through it stays the same JSON.
	raw, _ := json.Marshal(map[string]string{"s": "\u009b2J \u202e \x1b \U000e0041"})
	var b bytes.Buffer
	termSafe{&b}.Write(raw)
	var back, orig map[string]string
	json.Unmarshal(raw, &orig)
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["s"] != orig["s"] {
		t.Errorf("JSON %s became %s (%v)", raw, b.String(), err)
	}
}

// rawControls lists the terminal controls that reached out raw.
func rawControls(s string) []string {
	var found []string
	for _, r := range s {
		if unsafeRune(r, len(string(r))) {
			found = append(found, fmt.Sprintf("%U", r))
		}
	}
	return found
}

// TestHostileTextIsInertInTheCLI: an upstream whose tool description
// carries an OSC that retitles the terminal and a CSI that clears it, model
// code with an escape in it, and arguments with a C1 CSI and a bidi
// override: search and describe print the description without them (and
// say so), hub runs and hub approve print them visibly and inertly.
func TestHostileTextIsInertInTheCLI(t *testing.T) {
	w := newWorld(t, 0)
	cfg := &config.Config{Sources: map[string]*config.Source{
		"hostile": {Command: os.Args[0], Env: map[string]string{upstreamEnv: "1", "UPSTREAM_LOG": w.logFile, "SLOW_MS": "0",
			"UPSTREAM_DESCRIPTION": "Append a line.\x1b]0;pwned\x07\x1b[2J"}},
	}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	check := func(what, out, wantVisible string) {
		t.Helper()
		if raw := rawControls(out); len(raw) > 0 {
			t.Errorf("%s printed raw controls %v:\n%q", what, raw, out)
		}
		if !strings.Contains(out, wantVisible) {
			t.Errorf("%s does not show %q:\n%s", what, wantVisible, out)
		}
	}
	out, errOut, code := w.cli("", "search", "append a line")
	if code != 0 {
		t.Fatalf("search: %s", errOut)
	}
	// What the model reads of an upstream holds none of them
	// (hiddentext.ForModel); the CLI prints what the model reads.
	check("search", out, `Append a line.]0;pwned[2 invisible characters removed][2J`)
	out, errOut, code = w.cli("", "describe", "hostile.slowWrite")
	if code != 0 {
		t.Fatalf("describe: %s", errOut)
	}
	check("describe", out, `Append a line.]0;pwned[2 invisible characters removed][2J`)

	code1 := "const clear = \"\x1b[2J\"; await hostile.slowWrite({ text: \"\u009b2J \u202eevil p\u0430ypal\" }); return clear.length;"
	out, errOut, _ = w.cli(code1, "execute", "--json", "-")
	var env hub.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil || env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("execute: %v %s %s", err, out, errOut)
	}
	out, errOut, code = w.cli("", "hub", "runs")
	if code != 0 {
		t.Fatalf("hub runs: %s", errOut)
	}
	check("hub runs", out, `\u001b[2J`)
	out, errOut, code = w.cli("", "hub", "approve", env.RunID, "--yes")
	if code != 0 {
		t.Fatalf("hub approve: %s", errOut)
	}
	check("hub approve", out, `\u009b2J \u202eevil`)
	check("hub approve", out, `! "pаypal" mixes Latin and Cyrillic letters that look alike`)
}
