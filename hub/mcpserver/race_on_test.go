//go:build race

package mcpserver

// raceEnabled: the race detector makes guest code several times slower, so
// loops sized for the default compute limit are scaled down under it.
const raceEnabled = true
