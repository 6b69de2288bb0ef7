// Package serve is the listening half of the organization policy's
// decider (`logbook-policy serve`, docs/policy.md §7): one process per
// key, holding the key's lock while it lives, answering each request on
// the key's socket with the handler it is given, and leaving when it has
// been idle for a while or when its binary or policy changed.
package serve

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
	"github.com/logbook-project/logbook/internal/sockcred"
)

// ErrBusy: another decider holds the key's lock (it serves, or is
// starting): this one has nothing to do.
var ErrBusy = errors.New("another decider serves this key")

// Options are a decider's.
type Options struct {
	Dir, Key string
	// Idle is how long the decider waits for a request before it leaves.
	Idle time.Duration
	// Tick is how often it looks at Idle and Stale (default 1s).
	Tick time.Duration
	// Stale, when not nil, is asked each tick: true when the decider must
	// leave (its binary or its policy changed, so no caller's key is
	// its own any more).
	Stale func() bool
	// Handle runs one request (its key already checked) and returns the
	// answer; Serve sets the answer's key. A panic in it closes the
	// connection without an answer (the caller falls back to the exec'd
	// hook).
	Handle func(decider.Request) decider.Answer
	// ReadTimeout bounds reading a request and writing its answer
	// (default 30s).
	ReadTimeout time.Duration
	// Ready, when not nil, is called once the socket listens.
	Ready func(sock string)
}

// Serve takes the key's lock, listens on its socket and answers until
// idle or stale. It returns ErrBusy at once when the lock is held.
func Serve(o Options) error {
	if o.Tick <= 0 {
		o.Tick = time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if err := decider.Secure(o.Dir); err != nil {
		return err
	}
	lock, err := lockKey(decider.LockFile(o.Dir, o.Key))
	if err != nil {
		return err
	}
	defer lock.Close()
	sock := decider.Socket(o.Dir, o.Key)
	// The lock is ours: a socket file left is a dead decider's.
	if err := os.Remove(sock); err != nil && !os.IsNotExist(err) {
		return err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return err
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(sock, 0o600); err != nil {
		l.Close()
		os.Remove(sock)
		return err
	}
	if o.Ready != nil {
		o.Ready(sock)
	}
	s := &server{o: o, me: uint32(os.Geteuid())}
	s.last.Store(time.Now().UnixNano())
	for {
		_ = l.SetDeadline(time.Now().Add(o.Tick))
		c, err := l.AcceptUnix()
		if err == nil {
			s.start(c)
			continue
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			os.Remove(sock)
			l.Close()
			s.wg.Wait()
			return err
		}
		idle := s.inflight.Load() == 0 && time.Since(time.Unix(0, s.last.Load())) >= o.Idle
		if idle || (o.Stale != nil && o.Stale()) {
			break
		}
	}
	// Leave: first the name goes (a caller now finds none and starts
	// another), then whoever connected before that is still answered.
	os.Remove(sock)
	for {
		_ = l.SetDeadline(time.Now().Add(20 * time.Millisecond))
		c, err := l.AcceptUnix()
		if err != nil {
			break
		}
		s.start(c)
	}
	l.Close()
	s.wg.Wait()
	return nil
}

type server struct {
	o        Options
	me       uint32
	wg       sync.WaitGroup
	inflight atomic.Int64
	last     atomic.Int64
	served   atomic.Uint64
}

func (s *server) start(c *net.UnixConn) {
	s.inflight.Add(1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.inflight.Add(-1)
		defer s.last.Store(time.Now().UnixNano())
		defer c.Close()
		s.handle(c)
	}()
}

func (s *server) handle(c *net.UnixConn) {
	defer func() { _ = recover() }() // the caller sees DECIDER_DIED and falls back
	if !s.peerOK(c) {
		return
	}
	_ = c.SetDeadline(time.Now().Add(s.o.ReadTimeout))
	head := make([]byte, decider.HeaderLen)
	if _, err := readFull(c, head); err != nil {
		return
	}
	msg, err := readMessage(c, head)
	if err != nil {
		return
	}
	req, status, err := decider.ParseRequest(msg)
	if err != nil {
		return
	}
	var out []byte
	switch {
	case status:
		st := decider.Status{Key: s.o.Key, Pid: uint64(os.Getpid()), Served: s.served.Load(), CPU: cpuTime()}
		out = st.Marshal()
	case req.Key != s.o.Key:
		// Another policy's caller: nothing is done; the answer names
		// this decider's key, which the caller refuses (ErrWrongKey).
		out = (&decider.Answer{Key: s.o.Key}).Marshal()
	default:
		a := s.o.Handle(req)
		a.Key = s.o.Key
		out = a.Marshal()
		s.served.Add(1)
	}
	_, _ = c.Write(out)
}

// peerOK: only this user's processes are answered.
func (s *server) peerOK(c *net.UnixConn) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		cred, err := sockcred.Peer(int(fd))
		ok = err == nil && cred.Uid == s.me
	})
	return ok
}

func readFull(c *net.UnixConn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readMessage reads the body a header announces (the header's checks
// are the wire format's own).
func readMessage(c *net.UnixConn, head []byte) ([]byte, error) {
	n, err := decider.BodyLen(head)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, len(head)+n)
	copy(msg, head)
	if _, err := readFull(c, msg[len(head):]); err != nil {
		return nil, err
	}
	return msg, nil
}
