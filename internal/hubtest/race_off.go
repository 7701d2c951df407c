//go:build !race

package hubtest

// RaceEnabled reports whether the race detector is on.
const RaceEnabled = false
