package sandbox

import "unicode/utf8"

// The inline budget, Limits.InlineResultBytes, holds the result and the logs
// as a host returns them: in a JSON envelope, and again in a one-line text
// copy of that envelope sent as a JSON string (MCP's structured content and
// text content, the same line the CLI prints). A value's cost is its bytes
// in the envelope, as encoding/json writes them (with <, > and & escaped),
// plus its bytes in the text copy, where each quote and backslash of the
// envelope is escaped once more. A log line also pays for its separator in
// both, so 200,000 empty lines cost 8 bytes each, not nothing.

// logCost is what one log line costs in the envelope's logs array.
func logCost(s string) int { return stringCost(s) + 2 }

// stringCost is the cost of s as a JSON string: its quotes (1 + 2 bytes
// each) and each character.
func stringCost(s string) int {
	n := 6
	for i := 0; i < len(s); {
		c, size := runeCost(s[i:])
		n += c
		i += size
	}
	return n
}

// runeCost returns the cost of the first character of s, as encoding/json
// escapes it, and its length in s.
func runeCost(s string) (cost, size int) {
	b := s[0]
	if b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\':
			return 2 + 4, 1 // \" then \\\"
		case b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			return 2 + 3, 1 // \n then \\n
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			return 6 + 7, 1 // \u003c then \\u003c
		}
		return 2, 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return 6 + 7, 1 // \ufffd
	}
	if r == '\u2028' || r == '\u2029' {
		return 6 + 7, size
	}
	return 2 * size, size
}

// rawCost is the cost of JSON text, a result: encoding/json copies it into
// the envelope with <, >, &, U+2028 and U+2029 escaped.
func rawCost(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); i++ {
		switch b := raw[i]; {
		case b == '"' || b == '\\':
			n += 1 + 2
		case b == '<' || b == '>' || b == '&':
			n += 6 + 7
		case b == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			n += 6 + 7
			i += 2
		default:
			n += 2
		}
	}
	return n
}

// cutToCost returns the longest start of s that, with suffix after it,
// costs at most budget as a log line, not splitting a UTF-8 sequence, and
// whether there is one.
func cutToCost(s, suffix string, budget int) (string, bool) {
	room := budget - logCost(suffix)
	if room < 0 {
		return "", false
	}
	n := 0
	for i := 0; i < len(s); {
		c, size := runeCost(s[i:])
		if n+c > room {
			return s[:i] + suffix, true
		}
		n += c
		i += size
	}
	return s + suffix, true
}

// ResultCost is what a result's JSON text costs in the inline budget: a
// host that puts another value in place of an Outcome's Result keeps within
// the budget by costing no more than it.
func ResultCost(raw []byte) int { return rawCost(raw) }

// CutText returns the longest start of s that, with marker after it, costs
// at most cost as a JSON string, not splitting a UTF-8 sequence, and whether
// there is one.
func CutText(s, marker string, cost int) (string, bool) { return cutToCost(s, marker, cost+2) }
