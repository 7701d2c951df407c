package hub

import (
	"math"
	"regexp"
	"strings"
)

// secretNameRE matches names (keys, env vars, headers) whose values are
// secrets: tokens, passwords, keys, credentials, cookies.
var secretNameRE = regexp.MustCompile(`(?i)(token|passw(or)?d|passwd|secret|authoriz|credential|cookie|session|api[-_]?key|private[-_]?key|access[-_]?key|(^|[-_])key$|^key|(^|[-_])pat$|bearer|signature)`)

// tokenPrefixRE matches well-known credential prefixes.
var tokenPrefixRE = regexp.MustCompile(`^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}|(Bearer|Basic|token) [A-Za-z0-9._~+/=-]{12,})$`)

// LooksSecretName reports whether a key, env var or header name suggests
// that its value is a secret.
func LooksSecretName(name string) bool { return secretNameRE.MatchString(name) }

// LooksLikeToken reports whether a value looks like a credential: a
// well-known token prefix, or a long random-looking string without spaces.
func LooksLikeToken(v string) bool {
	v = strings.TrimSpace(v)
	if tokenPrefixRE.MatchString(v) {
		return true
	}
	if len(v) < 24 || len(v) > 512 || strings.ContainsAny(v, " \t\n/\\") {
		return false
	}
	// A path, URL or sentence is not a token.
	if strings.Contains(v, "://") || strings.Count(v, ".") > 2 {
		return false
	}
	var classes int
	var lower, upper, digit bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return classes >= 2 && digit && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
