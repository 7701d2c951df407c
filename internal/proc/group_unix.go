//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// NewGroup makes cmd's child lead a process group of its own, so
// closing the session can kill the servers it spawned too (an npx wrapper's
// node child, say).
func NewGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillGroup sends SIGKILL to the process group pgid, which NewGroup made
// the child lead; a group that is already gone is not an error.
func KillGroup(pgid int) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
