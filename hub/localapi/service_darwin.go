package localapi

import "golang.org/x/sys/unix"

// peerUID returns the effective uid of the process that connected the unix
// socket fd (LOCAL_PEERCRED, what getpeereid(3) reads).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
