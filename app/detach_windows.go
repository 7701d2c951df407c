//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// detach makes cmd outlive this process, without a console window.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	const createNewProcessGroup = 0x00000200
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | createNewProcessGroup, HideWindow: true}
}
