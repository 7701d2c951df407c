//go:build linux || darwin

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Alive reports whether process pid exists (one of another user counts:
// the pid is taken). A zombie does not: a hub started detached by a shim
// and killed stays one until the shim exits.
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true // no /proc (macOS): the pid exists
	}
	// pid (comm) S ...: the state follows the last ')'.
	st := string(b)
	i := strings.LastIndexByte(st, ')')
	return i < 0 || i+2 >= len(st) || (st[i+2] != 'Z' && st[i+2] != 'X')
}
