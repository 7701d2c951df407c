//go:build unix

package hub

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd's child lead a process group of its own, so
// closing the session can kill the servers it spawned too (an npx wrapper's
// node child, say).
func newProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killProcessGroup sends SIGKILL to the process group pgid, which
// newProcessGroup made the child lead; a group that is already gone is not
// an error.
func killProcessGroup(pgid int) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
