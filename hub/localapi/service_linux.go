package localapi

import "golang.org/x/sys/unix"

// peerUID returns the uid of the process that connected the unix socket fd,
// as the kernel recorded it at connect time (SO_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
