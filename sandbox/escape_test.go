package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// escapeHost records every call; the corpus checks what reached it.
type escapeHost struct{ testHost }

// TestEscapeCorpus runs every attempt in testdata/escapes.txt against both
// drivers. An attempt is JavaScript that returns "escaped" if it reached
// something it must not (a code compiler, a Go value, another realm's
// globals). Each must end without "escaped", without an engine failure,
// and leave the host with only well-formed calls.
func TestEscapeCorpus(t *testing.T) {
	attempts := loadCorpus(t, "testdata/escapes.txt")
	if len(attempts) < 60 {
		t.Fatalf("corpus has %d attempts, want at least 60", len(attempts))
	}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					t.Parallel()
					host := &escapeHost{}
					req := Request{Seed: 7, Clock: testClock, Namespaces: testNamespaces, Host: host, Limits: Limits{Compute: 2e9}}
					p, err := Prepare(a.code, Limits{})
					if err != nil {
						// Refused before running (import, with, ...) is a safe end.
						if e, ok := err.(*Error); !ok || e.Code != CodeSyntaxError {
							t.Fatalf("Prepare: %v", err)
						}
						return
					}
					req.Code = p.Code
					o := d.Run(context.Background(), req)
					switch errCode(o) {
					case CodeInternal, CodeWorkerCrashed:
						t.Fatalf("engine failure: %s", describeOutcome(o))
					}
					if strings.Contains(string(o.Result), "escaped") || strings.Contains(strings.Join(o.Logs, "\n"), "escaped") {
						t.Fatalf("escaped: %s", describeOutcome(o))
					}
					for _, c := range host.recorded() {
						if !json.Valid(c.Args) || (c.Connection != "" && c.Connection != "work") {
							t.Errorf("malformed call reached the host: %+v", c)
						}
					}
				})
			}
		})
	}
}

type attempt struct{ name, code string }

// loadCorpus reads attempts separated by lines "=== name".
func loadCorpus(t *testing.T, path string) []attempt {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []attempt
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if name, ok := strings.CutPrefix(line, "=== "); ok {
			out = append(out, attempt{name: name})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].code += line + "\n"
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
