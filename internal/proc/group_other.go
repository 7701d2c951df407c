//go:build !unix

package proc

import "os/exec"

// NewGroup leaves cmd as it is: process groups are a Unix notion, and a
// Windows child keeps the default.
func NewGroup(*exec.Cmd) {}

// KillGroup does nothing here: closing the client session reaps the child
// itself, signalling it if it lingers.
func KillGroup(int) {}
