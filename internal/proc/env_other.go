//go:build !linux

package proc

// WithEnv lists no process: only Linux shows another process's
// environment (/proc).
func WithEnv(string) []int { return nil }
