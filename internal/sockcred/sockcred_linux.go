package sockcred

import "syscall"

// Supported: Linux tells who is at the other end of a Unix socket.
const Supported = true

// Socket is a close-on-exec stream socket of family fam.
func Socket(fam int) (int, error) {
	return syscall.Socket(fam, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}

// Peer is who is at the other end of the connected Unix socket fd
// (SO_PEERCRED: the peer's credentials when it connected or listened).
func Peer(fd int) (Cred, error) {
	u, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return Cred{}, err
	}
	return Cred{Uid: u.Uid, Pid: u.Pid}, nil
}
