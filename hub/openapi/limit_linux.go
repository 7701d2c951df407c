//go:build linux

package openapi

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// limitChild caps a parser child's data segment at bytes, so a document
// whose model grows past it ends the child instead of exhausting the
// machine. RLIMIT_DATA rather than RLIMIT_AS: the Go runtime reserves far
// more address space than it uses.
func limitChild(pid int, bytes int64) error {
	lim := unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	return unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil)
}

// childPeak is an ended child's peak resident memory in bytes.
func childPeak(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	return 0
}
