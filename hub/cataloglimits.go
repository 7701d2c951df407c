package hub

import "sync"

// sourceWarnings are the warnings of each source's last listing: what the
// catalog skipped or cut. Safe for concurrent use.
type sourceWarnings struct {
	mu sync.Mutex
	by map[string][]string
}

// set replaces source's warnings with lines.
func (w *sourceWarnings) set(source string, lines []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string][]string{}
	}
	w.by[source] = append([]string(nil), lines...)
}

// add appends one warning, up to maxListingWarnings and a count beyond.
func (w *sourceWarnings) add(source, line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string][]string{}
	}
	ws := w.by[source]
	switch n := len(ws); {
	case n < 2*maxListingWarnings:
		ws = append(ws, line)
	case n == 2*maxListingWarnings:
		ws = append(ws, "and more skipped tools")
	}
	w.by[source] = ws
}

func (w *sourceWarnings) get(source string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.by[source]...)
}

// Warnings returns what the last listing of source skipped or cut short,
// one line each; nil when it was served whole.
func (c *Catalog) Warnings(source string) []string { return c.warnings.get(source) }
