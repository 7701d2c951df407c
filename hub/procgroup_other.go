//go:build !unix

package hub

import "os/exec"

// newProcessGroup leaves cmd as it is: process groups are a Unix notion,
// and a Windows child keeps the default.
func newProcessGroup(*exec.Cmd) {}

// killProcessGroup does nothing here: closing the client session reaps
// the child itself, signalling it if it lingers.
func killProcessGroup(int) {}
