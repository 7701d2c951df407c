package config

import (
	"encoding/json"
	"math"
	"time"
)

// Retention is config.json's "retention": how long finished runs, with
// their journals and pending inputs, are kept.
type Retention struct {
	// MaxAgeDays deletes finished runs last updated longer ago (default 30).
	MaxAgeDays float64 `json:"maxAgeDays,omitempty"`
	// MaxSizeMB keeps the newest finished runs whose stored size, with
	// the runs still waiting, fits in this many MiB; older ones are deleted
	// (default 256).
	MaxSizeMB float64 `json:"maxSizeMB,omitempty"`
}

// Retention defaults.
const (
	DefaultRetentionDays   = 30
	DefaultRetentionSizeMB = 256
)

var retentionKeys = []string{"maxAgeDays", "maxSizeMB"}

// Bounds returns the age and the size in bytes beyond which finished runs
// are deleted, the defaults standing in for what r leaves unset.
func (r Retention) Bounds() (maxAge time.Duration, maxBytes int64) {
	days, mb := r.MaxAgeDays, r.MaxSizeMB
	if days <= 0 {
		days = DefaultRetentionDays
	}
	if mb <= 0 {
		mb = DefaultRetentionSizeMB
	}
	return time.Duration(days * float64(24*time.Hour)), int64(mb * (1 << 20))
}

// IsZero reports a retention with nothing set (every default).
func (r Retention) IsZero() bool { return r == Retention{} }

// parseRetention reads the "retention" object; problems go to add.
func parseRetention(raw json.RawMessage, add func(string, string, ...any)) Retention {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		add("retention", `must be an object such as {"maxAgeDays": %d, "maxSizeMB": %d}`, DefaultRetentionDays, DefaultRetentionSizeMB)
		return Retention{}
	}
	var r Retention
	num := func(key string, max float64, dst *float64) {
		v, ok := fields[key]
		if !ok {
			return
		}
		delete(fields, key)
		var f float64
		if err := json.Unmarshal(v, &f); err != nil || f <= 0 || f > max || math.IsNaN(f) {
			add("retention."+key, "must be a number above 0 and at most %g", max)
			return
		}
		*dst = f
	}
	num("maxAgeDays", 36500, &r.MaxAgeDays)
	num("maxSizeMB", 1<<30, &r.MaxSizeMB)
	for _, k := range sortedKeys(fields) {
		if near := nearKey(k, retentionKeys); near != "" {
			add("retention."+k, "unknown key; did you mean %q?", near)
		} else {
			add("retention."+k, "unknown key; retention takes maxAgeDays and maxSizeMB")
		}
	}
	return r
}
