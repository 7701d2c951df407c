// Package jsonstr writes a JSON string exactly as encoding/json writes
// it, copying the strings that need no escape as they are instead of
// going through json.Marshal. Definitions are hashed and pinned byte for
// byte, so the bytes must be encoding/json's own.
package jsonstr

import (
	"encoding/json"
	"unicode/utf8"
)

// Plain reports whether s, a string's bytes between its quotes, is what
// encoding/json would write for itself: valid UTF-8 with no control
// character, quote, backslash, <, >, &, U+2028 or U+2029.
func Plain[T string | []byte](s T) bool {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b < 0x20 || b == '\\' || b == '"' || b == '<' || b == '>' || b == '&' {
				return false
			}
			i++
			continue
		}
		var r rune
		var n int
		switch v := any(s[i:]).(type) {
		case string:
			r, n = utf8.DecodeRuneInString(v)
		case []byte:
			r, n = utf8.DecodeRune(v)
		}
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}

// Append appends s to out as encoding/json writes a string.
func Append(out []byte, s string) []byte {
	if Plain(s) {
		out = append(out, '"')
		out = append(out, s...)
		return append(out, '"')
	}
	b, _ := json.Marshal(s) // a string always encodes
	return append(out, b...)
}
