package secrets

import (
	"encoding/json"
	"strings"
	"testing"
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
