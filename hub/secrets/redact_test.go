package secrets

import (
	"encoding/json"
	"strings"
	"testing"
)

// The preview hides credentials by what they are, never by the name of
// their key, and shows the whole call with its exact numbers.
func TestRedaction(t *testing.T) {
	r := Redactor{Known: []string{"hunter2-connection-secret", "48213977"}}
	raw := json.RawMessage(`{"owner":"acme","Key":"photos/2024/cat.jpg","signature":"Ada Lovelace","sessionName":"standup",
"sha":"3f786850e387550fdab836ed7e6dc881de23001b","uuid":"0b5a4c1e-8a3f-4f7e-9d7b-6c2e1f0a9b8c",
"body":"uses hunter2-connection-secret inside","pin":48213977,"id":9007199254740993,"ratio":1.50,
"note":"my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789, keep it",
"header":"Authorization: Bearer abc.DEF-123_456","prose":"the Bearer of news and basic functionality",
"stripe":"sk_live_4eC39HqLyjWDarjtT1zdp7dc","slack":"xoxb-123456789012-abcdefghij","aws":"AKIAIOSFODNN7EXAMPLE",
"jwt":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
"url":"https://ada:s3cret@db.example.com/x","pem":"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
"env":"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY","anthropic":"key sk-ant-api03-abcdefghijklmnop_qrstu","ghp_abcdefghijklmnopqrstuvwxyz0123456789":"as a key",
"long":"` + strings.Repeat("a", 500) + `","labels":[` + strings.Repeat(`"l",`, 49) + `"last"],
"deep":[[[[[[[[{"x":1}]]]]]]]]}`)
	out := r.Preview(raw)
	for _, hidden := range []string{"hunter2-connection-secret", "48213977", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "abc.DEF-123_456",
		"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "xoxb-123456789012", "AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9", "s3cret", "MIIEpAIBAAKCAQEA", "wJalrXUtnFEMI", "sk-ant-api03"} {
		if strings.Contains(out, hidden) {
			t.Errorf("preview shows %q:\n%s", hidden, out)
		}
	}
	for _, want := range []string{`"owner": "acme"`, `"Key": "photos/2024/cat.jpg"`, `"signature": "Ada Lovelace"`, `"sessionName": "standup"`,
		`"sha": "3f786850e387550fdab836ed7e6dc881de23001b"`, `"uuid": "0b5a4c1e-8a3f-4f7e-9d7b-6c2e1f0a9b8c"`,
		`"body": "uses [secret] inside"`, `"pin": "[secret]"`, `"id": 9007199254740993`, `"ratio": 1.50`,
		`"note": "my token is [redacted], keep it"`, `"header": "Authorization: Bearer [redacted]"`,
		`"prose": "the Bearer of news and basic functionality"`, `"url": "https://ada:[redacted]@db.example.com/x"`,
		`"[redacted]": "as a key"`, `"pem": "[redacted]"`, `"env": "aws_secret_access_key = [redacted]"`, `"anthropic": "key [redacted]"`, strings.Repeat("a", 500), `"last"`, `"x": 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, `"l"`) != 49 {
		t.Errorf("preview shows %d of 49 labels", strings.Count(out, `"l"`))
	}
	for in, want := range map[string]string{``: `{}`, `{`: `(arguments are not valid JSON)`, `[]`: `[]`} {
		if got := r.Preview(json.RawMessage(in)); got != want {
			t.Errorf("Preview(%q) = %q, want %q", in, got, want)
		}
	}
}
