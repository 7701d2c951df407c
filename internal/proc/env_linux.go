package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// WithEnv lists the processes, this one aside, whose environment holds the
// entry kv (NAME=value), as /proc shows them. Tests find what a command
// left running by a marker in the environment its children inherit.
func WithEnv(kv string) []int {
	want := []byte(kv + "\x00")
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			pids = append(pids, pid)
		}
	}
	return pids
}
