//go:build !race

package mcpserver

const raceEnabled = false
