//go:build linux || darwin

package localapi

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// errLocked reports that another process holds the home's lock.
var errLocked = errors.New("locked by another process")

// lockHome opens path and takes an exclusive flock on it without waiting.
// The lock lives as long as the returned file stays open; the kernel drops
// it when the process dies, so a crashed hub never leaves a stale lock.
func lockHome(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// listenSocket binds a unix socket at path with mode 0600. The socket is
// bound under a temporary name beside path, chmodded, and renamed into
// place, so path never names a socket with a wider mode. The caller holds
// the home's lock, which makes the temporary name its own. The listener does
// not unlink path on Close; the Service removes it while still holding the
// lock.
func listenSocket(path string) (net.Listener, error) {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path))
	if max := len(unix.RawSockaddrUnix{}.Path) - 1; len(tmp) > max {
		return nil, fmt.Errorf("socket path %s is %d bytes, over this system's limit of %d; set CAPABILITIES_HOME to a shorter folder", tmp, len(tmp), max)
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	fail := func(err error) (net.Listener, error) {
		ln.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	return ln, nil
}

// isNoListener reports whether a dial error means that no hub listens: the
// socket file is missing, or nothing accepts on it.
func isNoListener(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// checkPeer returns nil when the process at the other end of c runs as the
// same user as this one, and an error naming the peer's uid otherwise.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("connection of type %T has no peer credentials", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("reading peer credentials: %w", err)
	}
	uid := -1
	var perr error
	if err := raw.Control(func(fd uintptr) { uid, perr = peerUID(int(fd)) }); err != nil {
		return fmt.Errorf("reading peer credentials: %w", err)
	}
	if perr != nil {
		return fmt.Errorf("reading peer credentials: %w", perr)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("connection from uid %d refused: the hub runs as uid %d", uid, os.Getuid())
	}
	return nil
}
