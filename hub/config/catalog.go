package config

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// CatalogLimits bound what one source's tools/list may hold, so a server
// that pages forever, lists millions of tools or sends huge definitions
// costs the hub a bounded amount of memory, time and disk. The defaults are
// well above the largest real APIs (GitHub's REST API is 1,223 operations,
// its largest definition 440 KB with every schema inlined, 15 MB in all;
// Microsoft Graph's is about 16,000 operations). config.json sets them
// under "catalog"; zero keeps the default.
//
// A source over a bound is served up to it: the tools listed before the
// listing stopped, without the definitions that were too large, with a
// warning in the log, in `hub status` and in doctor.
type CatalogLimits struct {
	// MaxPages is how many tools/list pages one listing follows.
	MaxPages int `json:"maxPages,omitempty"`
	// MaxTools is how many tools one source keeps.
	MaxTools int `json:"maxTools,omitempty"`
	// MaxDefinitionBytes is the largest tool definition (name, description,
	// schemas, annotations as JSON) kept; a larger one is skipped.
	MaxDefinitionBytes int `json:"maxDefinitionBytes,omitempty"`
	// MaxSourceBytes is how many bytes of definitions one listing reads,
	// the skipped ones included, before it stops.
	MaxSourceBytes int64 `json:"maxSourceBytes,omitempty"`
}

// DefaultCatalogLimits are the bounds config.json does not change.
func DefaultCatalogLimits() CatalogLimits {
	return CatalogLimits{MaxPages: 1000, MaxTools: 20_000, MaxDefinitionBytes: 1 << 20, MaxSourceBytes: 256 << 20}
}

// WithDefaults fills each unset bound with its default.
func (l CatalogLimits) WithDefaults() CatalogLimits {
	d := DefaultCatalogLimits()
	if l.MaxPages > 0 {
		d.MaxPages = l.MaxPages
	}
	if l.MaxTools > 0 {
		d.MaxTools = l.MaxTools
	}
	if l.MaxDefinitionBytes > 0 {
		d.MaxDefinitionBytes = l.MaxDefinitionBytes
	}
	if l.MaxSourceBytes > 0 {
		d.MaxSourceBytes = l.MaxSourceBytes
	}
	return d
}

// parseCatalogLimits reads config.json's "catalog" object.
func parseCatalogLimits(raw json.RawMessage, add func(string, string, ...any)) CatalogLimits {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		add("catalog", "must be an object such as {\"maxTools\": 20000}")
		return CatalogLimits{}
	}
	var l CatalogLimits
	num := func(key string, set func(int64)) {
		v, ok := fields[key]
		if !ok {
			return
		}
		delete(fields, key)
		var n int64
		if err := json.Unmarshal(v, &n); err != nil || n <= 0 {
			add("catalog."+key, "must be a positive whole number")
			return
		}
		set(n)
	}
	num("maxPages", func(n int64) { l.MaxPages = int(min(n, 1<<31-1)) })
	num("maxTools", func(n int64) { l.MaxTools = int(min(n, 1<<31-1)) })
	num("maxDefinitionBytes", func(n int64) { l.MaxDefinitionBytes = int(min(n, 1<<31-1)) })
	num("maxSourceBytes", func(n int64) { l.MaxSourceBytes = n })
	for _, k := range sortedKeys(fields) {
		add("catalog."+k, "unknown key; the catalog takes maxPages, maxTools, maxDefinitionBytes and maxSourceBytes")
	}
	return l
}

// HumanBytes is a size as the messages about the hub's limits give it:
// "512 B", "1.5 KB", "32.0 MB".
func HumanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
