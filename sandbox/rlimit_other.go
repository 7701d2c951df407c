//go:build !linux

package sandbox

// limitWorker is a no-op outside Linux: workers there rely on the heap
// watcher, the prelude guards and the wall-limit kill.
func limitWorker(pid int, bytes int64) error { return nil }
