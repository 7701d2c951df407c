package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSecretsScrubJSON(t *testing.T) {
	sec := New()
	sec.Set(ConnectionOwner("gh", "work"), "ghp_Secret42", "48213977", "a\"b<c", "abc")
	for _, tc := range []struct{ in, want string }{
		{`{"n":9007199254740993,"x":1.50}`, `{"n":9007199254740993,"x":1.50}`},
		{`{"t":"ghp_Secret42"}`, `{"t":"[secret]"}`},
		{`{"t":"Bearer ghp_Secret42!", "n": 9007199254740993}`, `{"t":"Bearer [secret]!", "n": 9007199254740993}`},
		{`{"ghp_Secret42":1}`, `{"[secret]":1}`},
		{`["\u0067hp_Secret42"]`, `["[secret]"]`},
		{`["a\"b\u003cc", "a\"b<c"]`, `["[secret]", "[secret]"]`},
		{`{"pin":48213977,"other":148213977.5,"fine":4821397}`, `{"pin":"[secret]","other":"[secret]","fine":4821397}`},
		{`"https://x/?t=ghp_Secret42"`, `"https://x/?t=[secret]"`},
		{`{"short":"abc"}`, `{"short":"abc"}`},
		{`not json ghp_Secret42`, `not json [secret]`},
	} {
		if got := string(sec.ScrubJSON(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("ScrubJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Values without characters JSON escapes take the short path, which
	// must still see through escapes.
	plain := New()
	plain.Set(ConnectionOwner("gh", "work"), "ghp_Secret42")
	for in, want := range map[string]string{
		`["\u0067hp_Secret42","x\nghp_Secret42","\u003cb\u003e"]`: `["[secret]","x\n[secret]","\u003cb\u003e"]`,
		`{"a":"line\none","n":1}`:                                 `{"a":"line\none","n":1}`,
	} {
		if got := string(plain.ScrubJSON(json.RawMessage(in))); got != want {
			t.Errorf("ScrubJSON(%s) = %s, want %s", in, got, want)
		}
	}
	if got := sec.Scrub("a%22b%3Cc and a\"b<c"); got != "[secret] and [secret]" {
		t.Errorf("Scrub of a URL-escaped secret = %q", got)
	}
	var nilSec *Secrets
	if got := string(nilSec.ScrubJSON(json.RawMessage(`"ghp_Secret42"`))); got != `"ghp_Secret42"` {
		t.Errorf("a nil registry changed %s", got)
	}
}

func TestSecretsScrubHandler(t *testing.T) {
	sec := New()
	var buf bytes.Buffer
	log := slog.New(sec.ScrubHandler(slog.NewTextHandler(&buf, nil)))
	// Values registered after the logger was made count.
	sec.Set("oauth gh/work", "tok-98765")
	log.With("pre", "tok-98765").Info("saw tok-98765", "err", errors.New("bad tok-98765"), slog.Group("in", "v", "tok-98765"), "n", 3)
	if out := buf.String(); strings.Contains(out, "tok-98765") || strings.Count(out, Mark) != 4 {
		t.Errorf("log line = %s", out)
	}
}

func TestCap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{strings.Repeat("a", 100), 40, strings.Repeat("a", 17) + "… (83 more bytes cut)"},
		{strings.Repeat("é", 50), 40, strings.Repeat("é", 8) + "… (84 more bytes cut)"},
		{strings.Repeat("a", 100), 5, "… (100 more bytes cut)"},
		{strings.Repeat("a", 100) + "\n  at line 1:7", 60, strings.Repeat("a", 23) + "… (77 more bytes cut)\n  at line 1:7"},
	} {
		got := Cap(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("Cap(%d bytes, %d) = %q, want %q", len(tc.in), tc.max, got, tc.want)
		}
		if tc.max >= 30 && len(got) > tc.max {
			t.Errorf("Cap(%d bytes, %d) is %d bytes", len(tc.in), tc.max, len(got))
		}
	}
}

func FuzzDecodeJSONString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u0067\n\t\"\\\/"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\u00e9é"`, `"\b\f\r"`, `"\uD83D\uDE00\uDE00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want string
		if !utf8.ValidString(s) || json.Unmarshal([]byte(s), &want) != nil || len(s) < 2 || s[0] != '"' {
			return
		}
		if got := decodeJSONString([]byte(s[1 : len(s)-1])); got != want {
			t.Errorf("decodeJSONString(%s) = %q, want %q", s, got, want)
		}
	})
}

// TestSecretsScrubTools: a tool that quotes a secret anywhere in its
// definition is replaced by a scrubbed copy whose schemas keep the order
// the upstream wrote them in; other tools, and the list given, stay as
// they are.
func TestSecretsScrubTools(t *testing.T) {
	sec := New()
	sec.Set(ConnectionOwner("bank", "main"), "sk_live_Secret42")
	schema := `{"type":"object","properties":{"to":{"type":"string","description":"not sk_live_Secret42"},"amount":{"type":"number"},"currency":{"type":"string"}}}`
	leaky := &mcp.Tool{Name: "transfer", Description: "Uses key sk_live_Secret42.", InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(`{"type":"object","properties":{"z":{},"a":{}}}`)}
	plain := &mcp.Tool{Name: "balance", Description: "The balance.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	tools := []*mcp.Tool{leaky, plain}
	out := sec.ScrubTools(tools)
	if tools[0] != leaky || leaky.Description != "Uses key sk_live_Secret42." {
		t.Fatal("ScrubTools changed the tools it was given")
	}
	if out[1] != plain {
		t.Error("a tool quoting no secret was copied")
	}
	got := out[0]
	if got.Name != "transfer" || got.Description != "Uses key [secret]." {
		t.Errorf("scrubbed tool = %q %q", got.Name, got.Description)
	}
	in, ok := got.InputSchema.(json.RawMessage)
	if !ok {
		t.Fatalf("input schema decoded to %T, want it as written", got.InputSchema)
	}
	if want := strings.ReplaceAll(schema, "sk_live_Secret42", Mark); string(in) != want {
		t.Errorf("input schema = %s, want %s", in, want)
	}
	if o, _ := got.OutputSchema.(json.RawMessage); string(o) != `{"type":"object","properties":{"z":{},"a":{}}}` {
		t.Errorf("output schema = %v", got.OutputSchema)
	}
}

// TestLooksSecretName: the names whose values are secrets, as env vars,
// headers and flags name them, and names that only look near one.
func TestLooksSecretName(t *testing.T) {
	for _, n := range []string{"GITHUB_TOKEN", "Authorization", "API_KEY", "apiKey", "DB_PASSWORD", "DB_PASS", "SMTP_PASS", "--pass",
		"AUTH", "auth", "X-Auth", "X_AUTH", "CLIENT_SECRET", "Cookie", "GITLAB_PAT", "key", "x-api-key"} {
		if !LooksSecretName(n) {
			t.Errorf("LooksSecretName(%q) = false", n)
		}
	}
	for _, n := range []string{"PATH", "PWD", "HOME", "AUTHOR", "OAUTH_CLIENT_ID", "AUTH_URL", "AUTH_MODE", "--auth", "DISABLE_AUTH", "PASSTHROUGH", "BYPASS", "COMPASS", "MONKEY_BUSINESS", "LOG_LEVEL"} {
		if LooksSecretName(n) {
			t.Errorf("LooksSecretName(%q) = true", n)
		}
	}
}
