package tsgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestQuote: quote writes what encoding/json writes without HTML
// escaping, whether s takes its plain path or not.
func TestQuote(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "a\"b", `back\slash`, "tab\there", "line\nbreak", "\x00\x1f", "\x7f", "<&>",
		"é", "漢字", "\u2028\u2029", "bad \xff utf-8", " ~!#$%'()*+,-./:;=?@[]^_`{|}",
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := quote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
		var b strings.Builder
		writeQuoted(&b, s)
		if b.String() != want {
			t.Errorf("writeQuoted(%q) = %s, want %s", s, b.String(), want)
		}
	}
}
