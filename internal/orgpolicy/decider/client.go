//go:build unix

package decider

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/sockcred"
)

// Conn is a connection to a decider whose peer was checked.
type Conn struct{ fd int }

// Connect connects to the decider's socket and checks who answers: the
// process at the other end (sockcred.Peer) must be this user's. A socket
// that is missing or refuses is ErrAbsent (start one); any other failure
// of the checks is ErrInsecure.
func Connect(sock string) (*Conn, error) {
	if len(sock) > 107 {
		return nil, &Error{Code: ErrAbsent, Detail: fmt.Sprintf("socket path %s is over 107 bytes (set LOGBOOK_POLICYD_DIR to a shorter directory)", sock)}
	}
	fd, err := sockcred.Socket(syscall.AF_UNIX)
	if err != nil {
		return nil, &Error{Code: ErrAbsent, Detail: "socket: " + err.Error()}
	}
	if err := retry(func() error { return syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}) }); err != nil {
		syscall.Close(fd)
		return nil, &Error{Code: ErrAbsent, Detail: fmt.Sprintf("connect to %s: %v", sock, err)}
	}
	if err := checkPeer(fd, sock); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &Conn{fd: fd}, nil
}

// checkPeer: the socket file and the process answering on it are this
// user's (the directory's checks are Secure's).
func checkPeer(fd int, sock string) error { return checkPeerAs(fd, sock, uint32(os.Geteuid())) }

func checkPeerAs(fd int, sock string, me uint32) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(sock, &st); err != nil {
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s: %v", sock, err)}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK || st.Uid != me {
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s is not a socket of this user's (uid %d, mode %o)", sock, st.Uid, st.Mode)}
	}
	cred, err := sockcred.Peer(fd)
	if err != nil {
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s: cannot read who answers: %v", sock, err)}
	}
	if cred.Uid != me {
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s is answered by uid %d (pid %d), not this user (uid %d)", sock, cred.Uid, cred.Pid, me)}
	}
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error { return syscall.Close(c.fd) }

// Ask sends req and reads the answer, at most timeout for the whole
// exchange. The connection is closed. A connection that ends, resets or
// times out before a whole answer came is ErrDied; an answer that is not
// one is ErrGarbage; one for another key is ErrWrongKey.
func (c *Conn) Ask(req *Request, timeout time.Duration) (Answer, error) {
	defer c.Close()
	if len(req.Payload) > MaxPayload {
		return Answer{}, &Error{Code: ErrTooLarge, Detail: fmt.Sprintf("a payload of %d bytes (at most %d go to the decider)", len(req.Payload), MaxPayload)}
	}
	msg, err := c.exchange(req.Marshal(), timeout)
	if err != nil {
		return Answer{}, err
	}
	a, err := ParseAnswer(msg)
	if err != nil {
		return Answer{}, err
	}
	if a.Key != req.Key {
		return Answer{}, &Error{Code: ErrWrongKey, Detail: fmt.Sprintf("the decider serves key %.32s, this call's policy, keys and binary make %.32s", a.Key, req.Key)}
	}
	return a, nil
}

// Status asks the decider for its Status.
func (c *Conn) Status(timeout time.Duration) (Status, error) {
	defer c.Close()
	msg, err := c.exchange(StatusRequest(), timeout)
	if err != nil {
		return Status{}, err
	}
	return ParseStatus(msg)
}

func (c *Conn) exchange(out []byte, timeout time.Duration) ([]byte, error) {
	// One deadline for the whole exchange, not one per read: a peer that
	// trickles its answer a byte at a time must not hold the hook longer
	// than timeout (the call then goes to the exec'd hook).
	deadline := time.Now().Add(timeout)
	for b := out; len(b) > 0; {
		if err := c.until(deadline, syscall.SO_SNDTIMEO); err != nil {
			return nil, died("send", err)
		}
		var n int
		err := retry(func() (err error) { n, err = syscall.Write(c.fd, b); return })
		if err != nil {
			return nil, died("send", err)
		}
		b = b[n:]
	}
	head := make([]byte, headerLen)
	if err := c.readFull(head, deadline); err != nil {
		return nil, err
	}
	n, err := BodyLen(head)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, headerLen+n)
	copy(msg, head)
	if err := c.readFull(msg[headerLen:], deadline); err != nil {
		return nil, err
	}
	return msg, nil
}

// until sets the socket's timeout for opt to what is left before
// deadline; none left is EAGAIN, as a timed-out call's.
func (c *Conn) until(deadline time.Time, opt int) error {
	left := time.Until(deadline)
	if left <= 0 {
		return syscall.EAGAIN
	}
	if left < time.Millisecond {
		left = time.Millisecond
	}
	tv := syscall.NsecToTimeval(left.Nanoseconds())
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}

func (c *Conn) readFull(b []byte, deadline time.Time) error {
	for len(b) > 0 {
		if err := c.until(deadline, syscall.SO_RCVTIMEO); err != nil {
			return died("read the answer", err)
		}
		var n int
		err := retry(func() (err error) { n, err = syscall.Read(c.fd, b); return })
		if err != nil {
			return died("read the answer", err)
		}
		if n == 0 {
			return &Error{Code: ErrDied, Detail: "the decider closed the connection before a whole answer"}
		}
		b = b[n:]
	}
	return nil
}

func died(what string, err error) *Error {
	if errors.Is(err, syscall.EAGAIN) {
		return &Error{Code: ErrDied, Detail: what + ": no answer in time"}
	}
	return &Error{Code: ErrDied, Detail: what + ": " + err.Error()}
}

func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// NeedStart reports whether no decider holds the key's lock: none serves
// it or is starting. (Two callers may both see none and both start one;
// the second to start finds the lock held and exits at once.)
func NeedStart(dir, key string) bool {
	fd, err := syscall.Open(LockFile(dir, key), syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return true
	}
	defer syscall.Close(fd)
	return syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// Start runs exe with args (argv[0] is exe) as a decider, detached from
// the caller: a session of its own, stdin, stdout and stderr /dev/null,
// the working directory /, never waited for.
func Start(exe string, args, env []string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	fd := null.Fd()
	_, err = syscall.ForkExec(exe, append([]string{exe}, args...), &syscall.ProcAttr{
		Dir: "/", Env: env, Files: []uintptr{fd, fd, fd},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	return err
}
