package sockcred

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported: macOS tells who is at the other end of a Unix socket.
const Supported = true

// Socket is a close-on-exec stream socket of family fam. macOS has no
// SOCK_CLOEXEC: the flag is set just after, under syscall.ForkLock, as
// the standard library does, so no fork in between inherits it.
func Socket(fam int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(fam, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}

// Peer is who is at the other end of the connected Unix socket fd:
// LOCAL_PEERCRED's effective user id (the credentials the peer had when
// it connected or listened, as Linux's SO_PEERCRED) and LOCAL_PEERPID's
// process id.
func Peer(fd int) (Cred, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Cred{}, err
	}
	if x.Version != 0 { // XUCRED_VERSION
		return Cred{}, syscall.EPROTO
	}
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		pid = 0 // the uid is what is checked; the pid only names the peer
	}
	return Cred{Uid: x.Uid, Pid: int32(pid)}, nil
}
