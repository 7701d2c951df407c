//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// limitWorker caps a worker's data segment, so a native allocation the
// guards miss kills the worker instead of exhausting the machine.
// RLIMIT_DATA rather than RLIMIT_AS: the Go runtime reserves far more
// address space than it uses.
func limitWorker(pid int, bytes int64) error {
	lim := unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	return unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil)
}
