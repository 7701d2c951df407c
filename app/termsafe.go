package main

import (
	"fmt"
	"io"
	"unicode/utf8"

	"capabilities.sh/capabilities/internal/hiddentext"
)

// The CLI's output boundary.
//
// What the CLI prints comes in part from others: tool names and
// descriptions from upstream servers, model code and arguments in runs and
// approvals, error text. A terminal obeys control sequences in it: an OSC
// retitles the window (ESC ] 0 ; ... BEL), a CSI clears the screen or moves
// the cursor over what the person was reading (ESC [ 2 J), a carriage
// return overwrites a line, a bidi override reorders it. So every command
// but the protocol ones (mcp, the sandbox worker) writes through termSafe,
// which prints each such character as a visible \uXXXX escape and leaves
// newlines and tabs, which the formats need. The escape is JSON's own, so
// --json output stays the same JSON.

// termSafe writes p to w with control characters made visible.
//
// Concurrency: like the writer it wraps. It keeps no state between writes;
// a UTF-8 sequence split across two writes is escaped byte by byte.
type termSafe struct{ w io.Writer }

func (t termSafe) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if unsafeRune(r, size) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return t.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, p[i])
		case unsafeRune(r, size):
			out = append(out, hiddentext.Escape(r)...)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unsafeRune reports a character a terminal may act on rather than show,
// or that shows as nothing: C0 controls but tab and newline (a carriage
// return among them), DEL, C1 controls (U+0080-U+009F, among them the
// one-character CSI and OSC), bytes that are not UTF-8, and what
// hiddentext.Is reports besides: bidi controls, zero-width characters,
// the tag characters that spell text no one sees.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r == '\n' || r == '\t':
		return false
	case r == '\r':
		return true
	}
	return hiddentext.Is(r)
}
