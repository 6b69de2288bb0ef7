//go:build unix

package hookpost

import (
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/sockcred"
)

// conn is Post's connection: a socket driven by system calls, so that
// record-step links neither net nor net/http.
type conn int

func newConn(fam int) (conn, error) {
	fd, err := sockcred.Socket(fam)
	return conn(fd), err
}

func (c conn) close() { syscall.Close(int(c)) }

// setTimeout bounds each send and receive (and connect) from now on.
func (c conn) setTimeout(d time.Duration) {
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	_ = syscall.SetsockoptTimeval(int(c), syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	_ = syscall.SetsockoptTimeval(int(c), syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
}

func (c conn) connect(t Target) error {
	if t.Socket == "" {
		_ = syscall.SetsockoptInt(int(c), syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}
	return retry(func() error { return syscall.Connect(int(c), t.sa) })
}

func (c conn) checkPeer(path string) error { return checkPeer(int(c), path) }

func (c conn) write(b []byte) (n int, err error) {
	err = retry(func() (err error) { n, err = syscall.Write(int(c), b); return })
	return n, err
}

func (c conn) read(b []byte) (n int, err error) {
	err = retry(func() (err error) { n, err = syscall.Read(int(c), b); return })
	return n, err
}

func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
