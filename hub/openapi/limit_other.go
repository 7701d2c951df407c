//go:build !linux

package openapi

import "os"

// limitChild sets no hard bound where RLIMIT_DATA is not enforced: the
// child's soft limit (GOMEMLIMIT), the document's size bound and the
// parse's time limit remain.
func limitChild(pid int, bytes int64) error { return nil }

// childPeak is 0: the peak is read on Linux only.
func childPeak(ps *os.ProcessState) int64 { return 0 }
