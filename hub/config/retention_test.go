package config

import (
	"testing"
	"time"
)

// Retention's bounds are what config.json says, each unset or non-positive
// one its default.
func TestRetentionBounds(t *testing.T) {
	for _, tc := range []struct {
		r        Retention
		maxAge   time.Duration
		maxBytes int64
	}{
		{Retention{}, 30 * 24 * time.Hour, 256 << 20},
		{Retention{MaxAgeDays: 0.5, MaxSizeMB: 1.5}, 12 * time.Hour, 3 << 19},
		{Retention{MaxAgeDays: -1, MaxSizeMB: 8}, 30 * 24 * time.Hour, 8 << 20},
	} {
		if age, bytes := tc.r.Bounds(); age != tc.maxAge || bytes != tc.maxBytes {
			t.Errorf("%+v.Bounds() = %v, %d; want %v, %d", tc.r, age, bytes, tc.maxAge, tc.maxBytes)
		}
	}
}
