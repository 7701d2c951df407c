//go:build !windows

package main

import (
	"os/exec"
	"syscall"
)

// detach makes cmd outlive this process: its own session, no terminal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
