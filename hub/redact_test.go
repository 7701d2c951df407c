package hub

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedaction(t *testing.T) {
	r := Redactor{Known: []string{"hunter2-connection-secret"}}
	args := map[string]any{
		"owner":         "acme",
		"token":         "plain-but-under-a-secret-key",
		"Authorization": "Bearer x",
		"apiKey":        "k",
		"body":          "uses hunter2-connection-secret inside",
		"note":          "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"long":          strings.Repeat("a", 500),
		"labels":        make([]any, 50),
		"nested":        map[string]any{"password": "p", "ok": 1},
	}
	raw, _ := json.Marshal(args)
	out := r.Preview(raw)
	for _, secret := range []string{"plain-but-under-a-secret-key", "Bearer x", `"k"`, "hunter2-connection-secret", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", `"p"`} {
		if strings.Contains(out, secret) {
			t.Errorf("preview shows %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{`"owner": "acme"`, "300 more characters", "30 more items", `"ok": 1`, redactedMark} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
	big, _ := json.Marshal(map[string]any{"items": strings.Split(strings.Repeat("word ", 5000), " ")})
	if p := r.Preview(big); len(p) > previewMaxBytes+100 {
		t.Errorf("preview of %d bytes is %d bytes; want it bounded", len(big), len(p))
	}
	if s := compactPreview(out, 80); len(s) > 80+len("…") || strings.Contains(s, "hunter2") || strings.Contains(s, "\n") {
		t.Errorf("compactPreview = %q", s)
	}
}
