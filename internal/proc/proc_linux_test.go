package proc

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
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

// TestWithEnv finds a child by an entry of its environment, and not by a
// longer value that only begins with it. Each child says "up" once it runs
// under its own environment: until its execve, a just-forked child still
// shows the test's.
func TestWithEnv(t *testing.T) {
	marker := "CAPABILITIES_PROC_TEST=" + strconv.Itoa(os.Getpid())
	start := func(env string) *exec.Cmd {
		c := exec.Command("sh", "-c", "echo up; exec sleep 30")
		c.Env = append(os.Environ(), env)
		out, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
			t.Fatalf("child with %s said %q (%v)", env, line, err)
		}
		return c
	}
	cmd := start(marker)
	start(marker + "0")
	if got := WithEnv(marker); !slices.Equal(got, []int{cmd.Process.Pid}) {
		t.Errorf("WithEnv(%q) = %v; want [%d]", marker, got, cmd.Process.Pid)
	}
}
