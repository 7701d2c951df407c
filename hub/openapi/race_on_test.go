//go:build race

package openapi

// raceEnabled: the race detector's shadow memory counts in a child's
// data-segment bound and in its peak, so the children of the tests get no
// bound under it and their peaks are not checked.
const raceEnabled = true
