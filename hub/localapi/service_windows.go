package localapi

import (
	"errors"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// errLocked reports that another process holds the home's lock.
var errLocked = errors.New("locked by another process")

// lockOffset is where the lock's byte range starts. Windows locks are
// mandatory, so the range lies far past the pid written at the start of the
// file, which a second hub must still be able to read.
const lockOffset = 1 << 30

// lockHome opens path and takes an exclusive lock on it without waiting
// (LockFileEx). The lock lives as long as the returned file stays open.
func lockHome(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	ol := &windows.Overlapped{Offset: lockOffset}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// listenSocket binds an AF_UNIX socket at path (Windows 10 1803 and later).
// Windows has no mode bits for it: the socket file inherits the ACL of the
// home folder, which lives in the person's profile. A named pipe with an
// explicit DACL is the planned replacement.
func listenSocket(path string) (net.Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// The Service removes the file itself, while it still holds the lock.
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// isNoListener reports whether a dial error means that no hub listens.
func isNoListener(err error) bool {
	return errors.Is(err, windows.WSAECONNREFUSED) ||
		errors.Is(err, syscall.ENOENT) ||
		errors.Is(err, windows.ERROR_FILE_NOT_FOUND) ||
		errors.Is(err, windows.ERROR_PATH_NOT_FOUND) ||
		errors.Is(err, os.ErrNotExist)
}

// checkPeer accepts every connection: AF_UNIX on Windows reports no peer
// credentials, so the folder ACL is the boundary there.
func checkPeer(net.Conn) error { return nil }
