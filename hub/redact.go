package hub

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Redaction limits for argument previews.
const (
	previewMaxBytes  = 4096 // the whole preview
	previewMaxString = 200  // one string value
	previewMaxItems  = 20   // one array
	previewMaxDepth  = 6
	redactedMark     = "[redacted]"
)

// Redactor masks secrets in argument previews: values under keys that look
// secret, values that look like tokens, and any value equal to (or holding)
// a stored connection secret. Long strings and large arrays are cut with a
// note, and the whole preview has a size bound.
type Redactor struct {
	// Known are secret values the hub holds (connection secrets); any
	// string containing one is masked.
	Known []string
}

// Preview returns a redacted, pretty-printed preview of the JSON value raw.
func (r Redactor) Preview(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 {
		return "{}"
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "(arguments are not valid JSON)"
	}
	v = r.redact(v, "", 0)
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "(arguments could not be shown)"
	}
	s := string(b)
	if len(s) > previewMaxBytes {
		cut := previewMaxBytes
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("\n… (%d more bytes not shown)", len(s)-cut)
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (r Redactor) redact(v any, key string, depth int) any {
	if key != "" && LooksSecretName(key) {
		if v == nil {
			return nil
		}
		return redactedMark
	}
	switch x := v.(type) {
	case string:
		if r.holdsKnown(x) || LooksLikeToken(x) {
			return redactedMark
		}
		if n := len([]rune(x)); n > previewMaxString {
			return string([]rune(x)[:previewMaxString]) + fmt.Sprintf("… (%d more characters)", n-previewMaxString)
		}
		return x
	case []any:
		if depth >= previewMaxDepth {
			return fmt.Sprintf("[… %d items]", len(x))
		}
		n := min(len(x), previewMaxItems)
		out := make([]any, 0, n+1)
		for _, e := range x[:n] {
			out = append(out, r.redact(e, "", depth+1))
		}
		if len(x) > n {
			out = append(out, fmt.Sprintf("… %d more items", len(x)-n))
		}
		return out
	case map[string]any:
		if depth >= previewMaxDepth {
			return fmt.Sprintf("{… %d keys}", len(x))
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(x))
		for _, k := range keys {
			out[k] = r.redact(x[k], k, depth+1)
		}
		return out
	}
	return v
}

func (r Redactor) holdsKnown(s string) bool {
	for _, k := range r.Known {
		if len(k) >= 4 && strings.Contains(s, k) {
			return true
		}
	}
	return false
}
