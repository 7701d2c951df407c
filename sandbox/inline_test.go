package sandbox

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// envelopeCost is what the cost model stands for: the bytes of v in a
// JSON envelope written by encoding/json, plus its bytes in the text copy of
// that envelope, itself a JSON string.
func envelopeCost(t *testing.T, v any) int {
	t.Helper()
	env, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(string(env))
	if err != nil {
		t.Fatal(err)
	}
	return len(env) + len(text) - 2 // the text copy's own quotes are the line's
}

func randomText(rng *rand.Rand) string {
	parts := []string{"a", "é", "日本", "😀", `"`, `\`, "\n", "\t", "\b", "\x01", "\x1f", "<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "'", "/", " "}
	var b strings.Builder
	for range rng.IntN(40) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

// TestInlineCostsMatchEncodingJSON checks the cost model against
// encoding/json on random text with every kind of character it escapes.
func TestInlineCostsMatchEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		s := randomText(rng)
		if got, want := stringCost(s), envelopeCost(t, s); got != want {
			t.Fatalf("stringCost(%q) = %d, encoding/json makes it %d", s, got, want)
		}
		// A result is JSON text from JSON.stringify: valid UTF-8, with
		// quotes and control characters escaped.
		raw, _ := json.Marshal(map[string]any{"k": strings.ToValidUTF8(s, "?"), "n": []int{1, 2}})
		raw = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\u2028`, "\u2028", `\u2029`, "\u2029").Replace(string(raw)))
		if got, want := rawCost(raw), envelopeCost(t, json.RawMessage(raw)); got != want {
			t.Fatalf("rawCost(%s) = %d, encoding/json makes it %d", raw, got, want)
		}
	}
	// A log line pays for its separator in the envelope and in the text.
	lines := []string{"", "a", `"q"`}
	if got, want := logCost("")+logCost("a")+logCost(`"q"`), envelopeCost(t, lines)-envelopeCost(t, []string{})+2; got != want {
		t.Errorf("three log lines cost %d, encoding/json makes them %d", got, want)
	}
}
