//go:build linux || darwin

package sockcred

import (
	"os"
	"syscall"
	"testing"
)

// TestPeer: the other end of a socket pair is this process.
func TestPeer(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	c, err := Peer(fds[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.Uid != uint32(os.Geteuid()) || c.Pid != int32(os.Getpid()) {
		t.Errorf("peer %+v, want uid %d pid %d", c, os.Geteuid(), os.Getpid())
	}
	if !Supported {
		t.Error("Supported is false")
	}
}

// TestSocketCloseOnExec: the socket is not inherited by a program this
// process starts.
func TestSocketCloseOnExec(t *testing.T) {
	fd, err := Socket(syscall.AF_UNIX)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if errno != 0 || flags&syscall.FD_CLOEXEC == 0 {
		t.Errorf("F_GETFD = %#x, %v: want FD_CLOEXEC", flags, errno)
	}
}
