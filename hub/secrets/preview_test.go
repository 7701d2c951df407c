package secrets

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// The one-line summary of an approval's preview stays within its budget,
// on one line, and shows no secret the preview hid.
func TestCompactPreview(t *testing.T) {
	r := Redactor{Known: []string{"hunter2-connection-secret"}}
	out := r.Preview(json.RawMessage(`{"owner":"acme","body":"uses hunter2-connection-secret inside",
"long":"` + strings.Repeat("a", 500) + `","labels":[` + strings.Repeat(`"l",`, 49) + `"last"]}`))
	if s := CompactPreview(out, 80); len(s) > 80+len("…") || strings.Contains(s, "hunter2") || strings.Contains(s, "\n") {
		t.Errorf("compactPreview = %q", s)
	}
}

// TestPreviewIsBounded: the preview of arguments too large to read (a
// file's content) is cut at MaxPreviewBytes, without splitting a character
// or an escape, and says how much there was; smaller ones are whole.
func TestPreviewIsBounded(t *testing.T) {
	small := Redactor{}.Preview(json.RawMessage(`{"path":"/tmp/a","content":"` + strings.Repeat("x", 1000) + `"}`))
	if strings.Contains(small, PreviewCut) || !json.Valid([]byte(small)) {
		t.Errorf("a small preview is cut: %.200s", small)
	}
	for _, unit := range []string{"é", "\u200b", `\"`} {
		raw, _ := json.Marshal(map[string]string{"content": strings.Repeat("ab"+strings.Trim(unit, `\`), 600000)})
		p := Redactor{}.Preview(raw)
		body, note, ok := strings.Cut(p, "…\n"+PreviewCut)
		if !ok || len(body) > MaxPreviewBytes || len(body) < MaxPreviewBytes-16 {
			t.Fatalf("%q: a %d KB preview cut to %d bytes (%v): %q", unit, len(raw)>>10, len(body), ok, p[max(0, len(p)-200):])
		}
		last := body[strings.LastIndexByte(body, '\\')+1:]
		if !utf8.ValidString(body) || last == "" || last[0] == 'u' && len(last) < 5 {
			t.Errorf("%q: the cut splits a character or an escape: %q", unit, body[len(body)-20:])
		}
		if !strings.HasSuffix(note, "; the first 64 KB are shown)") || !strings.Contains(note, " MB;") {
			t.Errorf("%q: the cut says %q", unit, note)
		}
	}
}
