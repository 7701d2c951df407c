//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// pollable returns a pipe end the Go scheduler can wait on without
// blocking a thread. A worker's stdin and stdout start in blocking mode: a
// reader goroutine then sits in a read system call, and the goroutine it
// hands a message to can wait for the runtime to notice before it runs.
// Anything else is returned as it is.
func pollable(rw any) any {
	f, ok := rw.(*os.File)
	if !ok {
		return rw
	}
	fd := int(f.Fd())
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return rw
	}
	if syscall.SetNonblock(fd, true) != nil {
		return rw
	}
	return os.NewFile(uintptr(fd), f.Name())
}
