package hookpost

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// conn is Post's connection on Windows: a net.Conn. Windows sockets are
// not file descriptors that read(2) and write(2) take, and the start-up
// cost net's linking saves on Linux is not what a Windows hook is held
// to; TCP only (unix: URLs are refused by Parse: ErrNoUnixSocket).
type conn struct {
	c       net.Conn
	timeout time.Duration
}

func newConn(fam int) (*conn, error) { return &conn{}, nil }

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
	}
}

// setTimeout bounds each send and receive (and connect) from now on.
func (c *conn) setTimeout(d time.Duration) {
	c.timeout = d
	if c.c != nil {
		_ = c.c.SetDeadline(time.Now().Add(d))
	}
}

func (c *conn) connect(t Target) error {
	var addr net.TCPAddr
	switch sa := t.sa.(type) {
	case *syscall.SockaddrInet4:
		addr = net.TCPAddr{IP: net.IP(sa.Addr[:]), Port: sa.Port}
	case *syscall.SockaddrInet6:
		addr = net.TCPAddr{IP: net.IP(sa.Addr[:]), Port: sa.Port}
	default:
		return ErrNoUnixSocket
	}
	nc, err := net.DialTimeout("tcp", addr.String(), c.timeout)
	if err != nil {
		return err
	}
	c.c = nc
	return nc.SetDeadline(time.Now().Add(c.timeout))
}

func (c *conn) checkPeer(path string) error { return ErrNoUnixSocket }

func (c *conn) write(b []byte) (int, error) { return c.c.Write(b) }

// read is 0, nil at the end of the answer, as read(2).
func (c *conn) read(b []byte) (int, error) {
	n, err := c.c.Read(b)
	if n == 0 && err != nil && errors.Is(err, io.EOF) {
		return 0, nil
	}
	return n, err
}
