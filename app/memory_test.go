package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// After 128 MB of garbage is collected, the free heap the runtime keeps
// from the system is given back by releaseFreeHeap, down to its bound.
func TestReleaseFreeHeap(t *testing.T) {
	keep := make([][]byte, 0, 128)
	for range 128 {
		keep = append(keep, make([]byte, 1<<20))
	}
	for i := range keep {
		keep[i][0] = 1
	}
	keep = nil
	runtime.GC()
	releaseFreeHeap(32 << 20)
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	if free := s[0].Value.Uint64(); free > 32<<20 {
		t.Errorf("%d MB of free heap kept from the system, want at most 32", free>>20)
	}
	if releaseFreeHeap(32 << 20) {
		t.Errorf("released again with nothing to release")
	}
}
