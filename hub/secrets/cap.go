package secrets

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cap returns s when it fits in max bytes, else its start, a marker
// naming how many bytes were cut and its last line when that is short (the
// "at line 3:7" of a thrown error), max bytes in all (the marker alone when
// max is smaller than it). It never splits a UTF-8 sequence.
func Cap(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	marker := func(cut int) string { return fmt.Sprintf("… (%d more bytes cut)", cut) }
	tail := ""
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && len(s)-i <= 256 && len(s)-i < max/4 {
		tail, s = s[i:], s[:i]
		max -= len(tail)
	}
	for keep := max - len(marker(len(s)-max)); ; keep-- {
		if keep <= 0 {
			return marker(len(s)) + tail
		}
		for keep > 0 && !utf8.RuneStart(s[keep]) {
			keep--
		}
		if out := s[:keep] + marker(len(s)-keep); len(out) <= max {
			return out + tail
		}
	}
}
