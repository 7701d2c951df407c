package proc

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// A child that exited but was not waited for is a zombie: its pid exists,
// its process does not, as a hub killed while its shim has not yet waited.
func TestAliveZombie(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("zombie pid %d is alive", cmd.Process.Pid)
	}
}
