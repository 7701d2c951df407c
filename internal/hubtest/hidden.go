package hubtest

import "strings"

// InTags spells s in Unicode tag characters (U+E0000 plus each ASCII
// character), which show as nothing in a window or a terminal: text an
// upstream can hide in a tool's description.
func InTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xe0000 + r)
	}
	return b.String()
}
