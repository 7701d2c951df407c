package hubtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Allocated runs f and returns how many bytes of Go heap it allocated
// (cumulative, so a buffer read and dropped counts): what bounds tests
// measure instead of time.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Sparse makes a file of size bytes at p that takes no disk.
func Sparse(t testing.TB, p string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// DeepPadded is a JSON value nested depth objects deep, each with a pad of
// padKB KB before its key "a", and "end" at the bottom: a read of the
// path a.a.a... walks past every pad.
func DeepPadded(depth, padKB int) []byte {
	pad := strings.Repeat("x", padKB<<10)
	var b strings.Builder
	for range depth {
		b.WriteString(`{"pad":"` + pad + `","a":`)
	}
	b.WriteString(`"end"`)
	b.WriteString(strings.Repeat("}", depth))
	return []byte(b.String())
}
