//go:build race

package sandbox

// raceEnabled marks tests too slow under the race detector, and lifts the
// workers' data cap, which ThreadSanitizer's shadow memory cannot live with.
const raceEnabled = true
