package search

import (
	"runtime"
	"testing"
)

// TestIndexMemory bounds the heap a built index keeps per tool: about 270
// bytes for the synthetic catalog when this test was written (postings,
// the second stage's features, the vocabulary), so a catalog of 100,000
// tools holds under 40 MB.
func TestIndexMemory(t *testing.T) {
	const n, perTool = 5_000, 400
	docs := SyntheticCatalog(n, benchSeed)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := Build(docs, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(ix)
	runtime.KeepAlive(docs)
	if kept > n*perTool {
		t.Errorf("the index keeps %d bytes for %d tools, %d per tool; want at most %d", kept, n, kept/n, perTool)
	}
	t.Logf("%d bytes per tool", kept/n)
}
