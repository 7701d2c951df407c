package secrets

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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

// TestRedactCredentialsPrefilter: a pattern runs only on text that has one
// of its literals; every credential a pattern finds in text of any case
// has one, so the literals hide nothing the patterns would have found.
func TestRedactCredentialsPrefilter(t *testing.T) {
	for _, in := range []string{
		"AUTHORIZATION: Basic dXNlcjpwYXNzd29yZA==", "authorization=token abcdefgh12345", "BEARER abc.DEF-123_456",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "awſ_ſecret_acceſſ_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"rk_test_4eC39HqLyjWDarjtT1zdp7dc", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "ghs_abcdefghijklmnopqrstuvwxyz01",
		"xoxp-1234567890-abc", "glpat-abcdefghijklmnop", "AIzaSyA1234567890abcdefghijklmnopqrstu", "npm_abcdefghijklmnopqrstuvwxyz0123456",
		"ASIAIOSFODNN7EXAMPLE", "postgres://u:pw@host/db",
	} {
		whole := in
		for _, p := range credentialRE {
			whole = p.re.ReplaceAllString(whole, "${1}"+redactedMark+"${2}")
		}
		if whole == in {
			t.Fatalf("no pattern finds a credential in %q", in)
		}
		if got := RedactCredentials(in); got != whole {
			t.Errorf("RedactCredentials(%q) = %q; every pattern run on it gives %q", in, got, whole)
		}
	}
}

// BenchmarkRedactCredentials: a call's result of 6 KB of JSON without a
// credential, as the window and 'hub runs' redact every call's, against
// running every pattern over it (the reference, in the same process):
// bytes/s and x-every, the share of the reference's time.
func BenchmarkRedactCredentials(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 6<<10; i++ {
		sb.WriteString(`{"number":` + strings.Repeat("7", i%5+1) + `,"title":"Flaky test in checkout on arm64","labels":["ci","flaky"],"state":"open"},`)
	}
	s := sb.String()
	const refRounds = 20
	start := time.Now()
	for range refRounds {
		for _, p := range credentialRE {
			p.re.ReplaceAllString(s, "${1}"+redactedMark+"${2}")
		}
	}
	every := time.Since(start) / refRounds
	b.SetBytes(int64(len(s)))
	rounds := 0
	start = time.Now()
	for b.Loop() {
		RedactCredentials(s)
		rounds++
	}
	b.ReportMetric(float64(time.Since(start))/float64(rounds)/float64(every), "x-every")
}
