package config

import (
	"encoding/json"
	"strings"
)

// Keys config.json knows at each level. A key that is not one of them is
// kept as it is (MCP clients write keys of their own beside the ones the hub
// reads), unless it is so close to a known key that it is surely a typo of
// it: "argz", "polcy" and "comand" would otherwise be kept and ignored, and
// the source would run without its arguments or the policy would not apply.
var (
	configKeys     = []string{"sources", "mcpServers", "policy", "retention", "catalog", "skills", "profiles"}
	sourceKeys     = []string{"command", "args", "env", "cwd", "url", "headers", "type", "disabled", "connections", "openapi", "baseUrl", "concurrentWrites", "allowInsecureHttp", "origins"}
	connectionKeys = []string{"default", "env", "headers", "oauth", "query", "cookies"}
)

// clientKeys are keys MCP clients write in their server entries (Claude,
// Cursor, VS Code, Cline, Windsurf, Zed...). They are accepted and kept even
// where one is close to a key the hub knows ("dev" and "env").
var clientKeys = map[string]bool{
	"type": true, "disabled": true, "enabled": true, "autoApprove": true, "alwaysAllow": true,
	"timeout": true, "description": true, "envFile": true, "transport": true, "name": true,
	"dev": true, "trust": true, "includeTools": true, "excludeTools": true, "disabledTools": true,
	"autoStart": true, "serverUrl": true, "httpUrl": true, "icon": true, "id": true, "version": true,
	"inputs": true, "sandbox": true, "roots": true, "oauth": true, "auth": true,
}

// checkKeys reports each key of rest (the keys left after the known ones
// were read) that looks like a misspelt known key.
func checkKeys(at string, rest map[string]json.RawMessage, known []string, add func(string, string, ...any)) {
	for _, k := range sortedKeys(rest) {
		if clientKeys[k] {
			continue
		}
		if near := nearKey(k, known); near != "" {
			key := k
			if at != "" {
				key = at + "." + k
			}
			add(key, "unknown key; did you mean %q?", near)
		}
	}
}

// nearKey returns the known key k is a typo of, or "" when it is none: the
// same letters in another case, or within one edit (a transposition counts
// as one) of a four-letter key and two of a longer one; for three-letter keys
// only two swapped letters or one added at the end. k itself being known is
// not a typo.
func nearKey(k string, known []string) string {
	best, bestD := "", 3
	for _, kn := range known {
		if k == kn {
			return ""
		}
		d := osaDistance(strings.ToLower(k), strings.ToLower(kn))
		limit := 2
		switch {
		case len(kn) <= 3:
			// One edit turns most three-letter words into one another
			// ("cmd", "cwd"); only swapped letters and a letter added at
			// the end count.
			limit = 0
			if d == 1 && (len(k) == len(kn) && sameLetters(k, kn) || strings.HasPrefix(strings.ToLower(k), strings.ToLower(kn))) {
				limit = 1
			}
		case len(kn) <= 4:
			limit = 1
		}
		if d <= limit && d < bestD && len(k) > 1 {
			best, bestD = kn, d
		}
	}
	return best
}

// osaDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of neighbours.
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// sameLetters reports whether a and b hold the same letters, ignoring case.
func sameLetters(a, b string) bool {
	count := map[rune]int{}
	for _, r := range strings.ToLower(a) {
		count[r]++
	}
	for _, r := range strings.ToLower(b) {
		count[r]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
