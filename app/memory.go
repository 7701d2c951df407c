package main

// A hub lives in the tray for days. A run that moves large results takes
// its heap to hundreds of megabytes for a moment, and the Go runtime gives
// the freed pages back to the system slowly: a hub stayed at 330 MB a
// minute after a run of four 15 MB results, its live heap a few MB.
// releaseMemory gives them back once they are freed.

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// memoryCheckEvery is how often the hub looks at its free heap.
	memoryCheckEvery = 15 * time.Second
	// memoryFreeAbove is how much free heap the runtime may keep from the
	// system between two looks.
	memoryFreeAbove = 32 << 20
)

// releaseMemory returns the heap's free pages to the system every
// interval when more than memoryFreeAbove of them are kept, until ctx
// ends.
func releaseMemory(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			releaseFreeHeap(memoryFreeAbove)
		}
	}
}

// releaseFreeHeap returns the heap's free pages to the system when more
// than above bytes of them are kept (free and not yet returned), and
// reports whether it did. Reading the figure does not stop the world;
// returning the pages runs a collection first.
func releaseFreeHeap(above uint64) bool {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[0].Value.Uint64() <= above {
		return false
	}
	debug.FreeOSMemory()
	return true
}
