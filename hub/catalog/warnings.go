package catalog

// What the catalog skipped or cut of each source's last listing: a listing
// served in part (a bound of config.json's "catalog" reached), tools
// without a name or listed twice, definitions that do not encode, names
// that give no method name. The warnings show in the log, in `hub status`
// and in doctor.

import (
	"sync"

	"capabilities.sh/capabilities/hub/upstream"
)

// limitWarnings returns the warnings of a listing served in part; none
// for a nil error.
func limitWarnings(e *upstream.ListingLimitError) []string {
	if e == nil {
		return nil
	}
	return e.Warnings
}

// maxSourceWarnings bounds a source's warnings: twice the ten a listing
// served in part reports, so what the catalog adds fits beside them; one
// line says there were more.
const maxSourceWarnings = 20

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

// add appends one warning, up to maxSourceWarnings and a line beyond.
func (w *sourceWarnings) add(source, line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[string][]string{}
	}
	ws := w.by[source]
	switch n := len(ws); {
	case n < maxSourceWarnings:
		ws = append(ws, line)
	case n == maxSourceWarnings:
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
