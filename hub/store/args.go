package store

// A call's arguments as the journal keeps them for a person: compact JSON
// text, at most MaxArgsBytes, cut where the text stays readable and marked
// where it was cut. The caller scrubs secrets first; the store never sees
// them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxArgsBytes bounds the arguments a journal entry keeps, the mark that
// says they were cut included. A call's whole arguments are hashed
// (args_hash); these bytes are only for reading.
const MaxArgsBytes = 4 << 10

// argsCutMark starts the mark after arguments that were cut. Compact JSON
// has no raw newline (a string cannot hold one), so the mark is found
// again where it starts.
const argsCutMark = "\n… cut: "

// KeepArgs is what the journal keeps of a call's arguments args, already
// scrubbed: the JSON text compacted, and when that is over MaxArgsBytes,
// its start, cut neither inside a UTF-8 character nor inside an escape,
// and a mark that says how much was kept. "{}" for no arguments.
func KeepArgs(args json.RawMessage) string {
	text := bytes.TrimSpace(args)
	if len(text) == 0 {
		return "{}"
	}
	var compact bytes.Buffer
	if json.Compact(&compact, text) == nil {
		text = compact.Bytes()
	} else {
		// Not JSON: kept as text, on one line so the mark stays last.
		text = bytes.ReplaceAll(text, []byte("\n"), []byte(" "))
	}
	if len(text) <= MaxArgsBytes {
		return string(text)
	}
	mark := func(kept int) string {
		return fmt.Sprintf("%s%d of %d bytes kept", argsCutMark, kept, len(text))
	}
	keep := cutJSONText(text, MaxArgsBytes-len(mark(MaxArgsBytes)))
	return string(text[:keep]) + mark(keep)
}

// splitArgs splits kept arguments into their text and whether they were
// cut.
func splitArgs(s string) (string, bool) {
	if i := strings.LastIndex(s, argsCutMark); i >= 0 {
		return s[:i], true
	}
	return s, false
}

// cutJSONText is where to cut the JSON text b to at most n bytes: not
// inside a UTF-8 character, nor inside an escape (\" or \u00e9), nor
// between the two halves of an escaped surrogate pair.
func cutJSONText(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if n <= 0 {
		return 0
	}
	// The escapes that start before n, and whether n is in a string.
	inString := false
	escStart, escEnd := -1, -1
	for i := 0; i < n; {
		c := b[i]
		switch {
		case inString && c == '\\':
			end := i + 2
			if i+1 < len(b) && b[i+1] == 'u' {
				end = i + 6
				// A high surrogate escaped, with its low half after it.
				if hi := unicodeEscape(b, i); hi >= 0xD800 && hi < 0xDC00 && unicodeEscape(b, end) >= 0xDC00 {
					end += 6
				}
			}
			escStart, escEnd = i, end
			i = end
			continue
		case c == '"':
			inString = !inString
		}
		i++
	}
	if escStart >= 0 && escEnd > n {
		return escStart
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// unicodeEscape is the code unit of the \uXXXX escape at b[i:], -1 when
// there is none.
func unicodeEscape(b []byte, i int) int {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return -1
	}
	v := 0
	for _, c := range b[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}
